"""Fine-tune the encoder on labelled sentences, and predict with it, in torch.

:func:`fine_tune` returns the fine-tuned weights (a name -> tensor mapping for
safetensors); :func:`predict` runs them. Both reuse :mod:`.cache`. With
``train_layers`` below ``layers`` the frozen lower layers run once per distinct
sentence and are kept in memory (:class:`FrozenStates`), so each training step and
each further encoder of a cross-validation only pays for the layers it trains.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np

from ..encoder import EncoderSettings, Unit, pad_batch, pad_units, unit_batches
from . import cache, require_torch
from .base import BaseCheckpoint
from .bert import BertConfig, BertEncoder

torch = require_torch()
nn = torch.nn

Log = Callable[[str], None]


class SentenceClassifier(nn.Module):
    """Encoder + span pooling + dropout + linear head.

    ``forward(ids, mask, types, pool, start=0)`` gives logits (batch x spans x labels):
    ``pool`` (batch x spans x tokens) holds each span's averaging weights, so a row of
    one span over every token is the mean pooling of a one-sentence input.
    """

    def __init__(self, config: BertConfig, n_labels: int) -> None:
        super().__init__()
        self.bert = BertEncoder(config)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)
        self.head = nn.Linear(config.hidden_size, n_labels)

    def forward(self, ids, mask, types, pool, start: int = 0):
        pooled = pool @ self.bert.hidden(ids, mask, types, start)
        return self.head(self.dropout(pooled))


def build(base: BaseCheckpoint, settings: EncoderSettings, n_labels: int,
          state: dict | None = None) -> SentenceClassifier:
    """The network with the base's first ``layers`` layers (or ``state`` if given)."""
    from safetensors.torch import load as load_st

    config = BertConfig.from_dict({**base.config, "num_hidden_layers": settings.layers})
    model = SentenceClassifier(config, n_labels)
    if state is None:
        torch.manual_seed(settings.seed)
        nn.init.normal_(model.head.weight, std=0.02)
        nn.init.zeros_(model.head.bias)
        weights = load_st(base.weights)
        keep = {}
        for name, tensor in weights.items():
            if name.startswith("encoder.layer."):
                if int(name.split(".")[2]) >= settings.layers:
                    continue
            elif not name.startswith("embeddings.") or name.endswith("position_ids"):
                continue
            keep["bert." + name] = tensor
        missing, _ = model.load_state_dict(keep, strict=False)
        if [m for m in missing if not m.startswith("head.")]:
            raise ValueError(f"base checkpoint lacks {missing[:3]}")
    else:
        model.load_state_dict(state)
    return model


class FrozenStates:
    """Hidden states after the frozen layers, one tensor (tokens x hidden) per input.

    Kept as float16 in a dict keyed by the input's ids and types, shared by every
    fine-tuning and prediction of a process with the same base and frozen depth.
    """

    _store: dict[tuple, dict[bytes, object]] = {}

    def __init__(self, base: BaseCheckpoint, settings: EncoderSettings) -> None:
        self.depth = settings.layers - settings.train_layers
        self.key = (base.sha, self.depth)
        self.states = self._store.setdefault(self.key, {})
        self.base, self.settings = base, settings

    @staticmethod
    def _key(e: Unit) -> bytes:
        return np.asarray(e[0], np.int32).tobytes() + b"|" + np.asarray(e[1], np.int8).tobytes()

    def fill(self, encoded: Sequence[Unit], device: str, log: Log) -> None:
        todo = {self._key(e): e for e in encoded if self._key(e) not in self.states}
        if not todo:
            return
        model = build(self.base, self.settings, 1).to(device).eval()
        items = list(todo.items())
        log(f"encoder: running the {self.depth} frozen layer(s) once over "
            f"{len(items)} inputs")

        def run(ids, mask, types):
            with torch.no_grad():
                t = [torch.from_numpy(a).to(device) for a in (ids, mask, types)]
                h = model.bert.hidden(*t, 0, self.depth).to("cpu", torch.float16)
            return [h[r, : int(m.sum())] for r, m in enumerate(mask)]

        order = sorted(range(len(items)), key=lambda i: len(items[i][1][0]))
        for start in range(0, len(order), 64):
            rows = order[start:start + 64]
            batch = pad_batch([items[i][1][:2] for i in rows])
            for i, h in zip(rows, run(*batch), strict=True):
                self.states[items[i][0]] = h.clone()

    def batch(self, units: Sequence[Unit], device: str):
        """Padded hidden states (batch x tokens x hidden, float32), mask, types, pool."""
        ids, mask, types, pool = pad_units(units)
        h = torch.zeros((len(units), ids.shape[1], self.base.config["hidden_size"]))
        for r, e in enumerate(units):
            s = self.states[self._key(e)]
            h[r, : len(s)] = s.float()
        return (h.to(device), *(torch.from_numpy(a).to(device) for a in (mask, types, pool)))


def _inputs(units: Sequence[Unit], states: FrozenStates | None, device: str):
    """The network's inputs for a batch of units (hidden states above frozen layers)."""
    if states:
        return states.batch(units, device)
    return [torch.from_numpy(a).to(device) for a in pad_units(units)]


def _batches(units: Sequence[Unit], size: int, rng: np.random.Generator) -> list[list[int]]:
    """Batches of units of similar length (ties broken at random), about ``size``
    sentences each, in random order."""
    order = rng.permutation(len(units))
    batches = [[int(order[i]) for i in b]
               for b in unit_batches([units[i] for i in order], size)]
    rng.shuffle(batches)
    return batches


def train_key(base: BaseCheckpoint, settings: EncoderSettings, labels: Sequence[str],
              encoded: Sequence[Unit], y: Sequence[Sequence[int]], device: str) -> str:
    """The cache key of one fine-tuning."""
    s = settings.to_dict()
    for name in ("inner_folds", "neighbours", "feature_scale", "quantize"):  # CRF side
        s.pop(name)
    return cache.digest("coresc-encoder-2", s, base.sha, torch.device(device).type,
                        list(labels), cache.examples_digest(encoded, y))


def fine_tune(base: BaseCheckpoint, settings: EncoderSettings, labels: Sequence[str],
              encoded: Sequence[Unit], y: Sequence[Sequence[int]], device: str = "cpu",
              log: Log = print) -> tuple[str, dict]:
    """Fine-tune on the units ``encoded`` with, per unit, the label index (into
    ``labels``) of each span, ``-100`` for a span not trained on.

    Returns ``(key, state)``: the cache key and the weights. Found in the cache, nothing
    is trained.
    """
    from safetensors.torch import load as load_st
    from safetensors.torch import save as save_st

    check_device(device)
    key = train_key(base, settings, labels, encoded, y, device)
    hit = cache.load_bytes(key, "weights.safetensors")
    if hit is not None:
        log(f"encoder: reusing fine-tuned weights {key[:12]} from {cache.cache_dir()}")
        return key, load_st(hit)
    t0 = time.monotonic()
    model = build(base, settings, len(labels)).to(device).train()
    frozen = _freeze(model, settings)
    states = FrozenStates(base, settings) if frozen else None
    if states:
        states.fill(encoded, device, log)
    rng = np.random.default_rng(settings.seed)
    torch.manual_seed(settings.seed)
    n_spans = sum(len(u[2]) for u in encoded)
    steps_per_epoch = len(unit_batches(encoded, settings.batch_size))
    total = max(1, round(steps_per_epoch * settings.epochs))
    opt = _optimizer(model, settings)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, _schedule(total, settings.warmup))
    step, seen, last = 0, 0, t0
    while step < total:
        for rows in _batches(encoded, settings.batch_size, rng):
            if step >= total:
                break
            batch = [encoded[i] for i in rows]
            logits = model(*_inputs(batch, states, device), start=frozen)
            target = _targets([y[i] for i in rows], logits.shape[1]).to(device)
            loss = nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                                               target.reshape(-1), ignore_index=-100)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            step += 1
            seen += sum(len(encoded[i][2]) for i in rows)
            now = time.monotonic()
            if now - last >= 30 or step == total:
                last = now
                rate = seen / (now - t0)
                left = (total - step) * n_spans / steps_per_epoch / rate
                log(f"encoder: step {step}/{total}, loss {loss.item():.3f}, "
                    f"{rate:.0f} sentences/s, {_fmt(max(0.0, left))} left")
    state = {k: v.detach().to("cpu").contiguous() for k, v in model.state_dict().items()}
    cache.save_bytes(key, "weights.safetensors", save_st(state))
    log(f"encoder: fine-tuned on {n_spans} sentences in {_fmt(time.monotonic() - t0)}")
    return key, state


def _targets(y: Sequence[Sequence[int]], width: int):
    """Label indices (batch x ``width``), -100 (ignored) past each unit's spans."""
    t = torch.full((len(y), width), -100, dtype=torch.long)
    for r, row in enumerate(y):
        t[r, : len(row)] = torch.tensor(list(row), dtype=torch.long)
    return t


def check_device(device: str) -> None:
    """CorescError unless torch can use ``device``."""
    from ...errors import CorescError

    if str(device).startswith("cuda") and not torch.cuda.is_available():
        raise CorescError(f"--device {device}: this torch sees no CUDA GPU "
                          f"(torch {torch.__version__}); use --device cpu")


def _freeze(model: SentenceClassifier, settings: EncoderSettings) -> int:
    """Freeze embeddings and lower layers when ``train_layers`` says so; their depth."""
    if not settings.train_layers or settings.train_layers >= settings.layers:
        return 0
    depth = settings.layers - settings.train_layers
    for p in model.bert.embeddings.parameters():
        p.requires_grad_(False)
    for layer in model.bert.encoder.layer[:depth]:
        for p in layer.parameters():
            p.requires_grad_(False)
    return depth


def _optimizer(model: SentenceClassifier, settings: EncoderSettings):
    """AdamW: the head at ``head_lr``; no weight decay on biases and layer norms."""
    groups: dict[tuple[float, float], list] = {}
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        lr = settings.head_lr if name.startswith("head.") else settings.lr
        decay = 0.0 if p.ndim == 1 else settings.weight_decay
        groups.setdefault((lr, decay), []).append(p)
    return torch.optim.AdamW([{"params": ps, "lr": lr, "weight_decay": wd}
                              for (lr, wd), ps in groups.items()])


def _schedule(total: int, warmup: float) -> Callable[[int], float]:
    n_warm = max(1, int(total * warmup))

    def factor(step: int) -> float:
        if step < n_warm:
            return (step + 1) / n_warm
        return max(0.0, (total - step) / max(1, total - n_warm))

    return factor


def predict(base: BaseCheckpoint, settings: EncoderSettings, labels: Sequence[str],
            key: str, state: dict, encoded: Sequence[Unit], device: str = "cpu",
            ) -> np.ndarray:
    """Probabilities (spans x labels, units and spans in order) of the fine-tuned
    encoder ``key`` (cached)."""
    pkey = cache.digest(key, cache.examples_digest(encoded))
    n_spans = sum(len(u[2]) for u in encoded)
    hit = cache.load_array(pkey)
    if hit is not None and hit.shape == (n_spans, len(labels)):
        return hit
    model = build(base, settings, len(labels), state).to(device).eval()
    frozen = _freeze(model, settings)
    states = FrozenStates(base, settings) if frozen else None
    if states:
        states.fill(encoded, device, lambda _msg: None)

    probs = np.zeros((n_spans, len(labels)), dtype=np.float32)
    offsets = np.cumsum([0] + [len(u[2]) for u in encoded])
    with torch.no_grad():
        for rows in unit_batches(encoded, 64):
            batch = [encoded[i] for i in rows]
            out = torch.softmax(model(*_inputs(batch, states, device), start=frozen), -1)
            out = out.to("cpu").numpy()
            for r, i in enumerate(rows):
                n = len(encoded[i][2])
                probs[offsets[i]:offsets[i] + n] = out[r, :n]
    cache.save_array(pkey, probs)
    return probs


def _fmt(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"
