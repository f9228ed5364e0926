"""Fine-tune the encoder on labelled sentences, and predict with it, in torch.

:func:`fine_tune` returns the fine-tuned weights (a name -> tensor mapping for
safetensors); :func:`predict` runs them. Both reuse :mod:`.cache`. With
``train_layers`` below ``layers`` the frozen lower layers run once per distinct
sentence and are kept in memory (:class:`FrozenStates`), so each training step and
each further encoder of a cross-validation only pays for the layers it trains.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence

import numpy as np

from ..encoder import Encoded, EncoderSettings, pad_batch
from . import cache, require_torch
from .base import BaseCheckpoint
from .bert import BertConfig, BertEncoder

torch = require_torch()
nn = torch.nn

Log = Callable[[str], None]


class SentenceClassifier(nn.Module):
    """Encoder (mean-pooled) + dropout + linear head; ``forward`` gives logits."""

    def __init__(self, config: BertConfig, n_labels: int) -> None:
        super().__init__()
        self.bert = BertEncoder(config)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)
        self.head = nn.Linear(config.hidden_size, n_labels)

    def forward(self, ids, mask, types, start: int = 0):
        return self.head(self.dropout(self.bert(ids, mask, types, start)))


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
    def _key(e: Encoded) -> bytes:
        return np.asarray(e[0], np.int32).tobytes() + b"|" + np.asarray(e[1], np.int8).tobytes()

    def fill(self, encoded: Sequence[Encoded], device: str, log: Log) -> None:
        todo = {self._key(e): e for e in encoded if self._key(e) not in self.states}
        if not todo:
            return
        model = build(self.base, self.settings, 1).to(device).eval()
        items = list(todo.items())
        log(f"encoder: running the {self.depth} frozen layer(s) once over "
            f"{len(items)} sentences")

        def run(ids, mask, types):
            with torch.no_grad():
                t = [torch.from_numpy(a).to(device) for a in (ids, mask, types)]
                h = model.bert.hidden(*t, 0, self.depth).to("cpu", torch.float16)
            return [h[r, : int(m.sum())] for r, m in enumerate(mask)]

        order = sorted(range(len(items)), key=lambda i: len(items[i][1][0]))
        for start in range(0, len(order), 64):
            rows = order[start:start + 64]
            for i, h in zip(rows, run(*pad_batch([items[i][1] for i in rows])), strict=True):
                self.states[items[i][0]] = h.clone()

    def batch(self, encoded: Sequence[Encoded], device: str):
        """Padded hidden states (batch x tokens x hidden, float32), mask and types."""
        ids, mask, types = pad_batch(encoded)
        h = torch.zeros((len(encoded), ids.shape[1], self.base.config["hidden_size"]))
        for r, e in enumerate(encoded):
            s = self.states[self._key(e)]
            h[r, : len(s)] = s.float()
        return (h.to(device), torch.from_numpy(mask).to(device),
                torch.from_numpy(types).to(device))


def _batches(lengths: Sequence[int], size: int, rng: np.random.Generator) -> list[list[int]]:
    """Index batches of similar length, in random order (ties broken at random)."""
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], rng.random()))
    batches = [order[i:i + size] for i in range(0, len(order), size)]
    rng.shuffle(batches)
    return batches


def train_key(base: BaseCheckpoint, settings: EncoderSettings, labels: Sequence[str],
              encoded: Sequence[Encoded], y: Sequence[int], device: str) -> str:
    """The cache key of one fine-tuning."""
    s = settings.to_dict()
    for name in ("inner_folds", "neighbours", "quantize"):  # not part of fine-tuning
        s.pop(name)
    return cache.digest("coresc-encoder-1", s, base.sha, torch.device(device).type,
                        list(labels), cache.examples_digest(encoded, y))


def fine_tune(base: BaseCheckpoint, settings: EncoderSettings, labels: Sequence[str],
              encoded: Sequence[Encoded], y: Sequence[int], device: str = "cpu",
              log: Log = print) -> tuple[str, dict]:
    """Fine-tune on ``encoded`` inputs with label indices ``y`` (into ``labels``).

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
    lengths = [len(e[0]) for e in encoded]
    steps_per_epoch = math.ceil(len(encoded) / settings.batch_size)
    total = max(1, round(steps_per_epoch * settings.epochs))
    opt = _optimizer(model, settings)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, _schedule(total, settings.warmup))
    target = torch.tensor(list(y), dtype=torch.long)
    step, seen, last = 0, 0, t0
    while step < total:
        for rows in _batches(lengths, settings.batch_size, rng):
            if step >= total:
                break
            batch = [encoded[i] for i in rows]
            if states:
                inputs = states.batch(batch, device)
                logits = model(*inputs, start=frozen)
            else:
                inputs = [torch.from_numpy(a).to(device) for a in pad_batch(batch)]
                logits = model(*inputs)
            loss = nn.functional.cross_entropy(logits, target[rows].to(device))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            step += 1
            seen += len(rows)
            now = time.monotonic()
            if now - last >= 30 or step == total:
                last = now
                rate = seen / (now - t0)
                log(f"encoder: step {step}/{total}, loss {loss.item():.3f}, "
                    f"{rate:.0f} sentences/s, {_fmt(max(0.0, (total - step) * len(rows) / rate))}"
                    f" left")
    state = {k: v.detach().to("cpu").contiguous() for k, v in model.state_dict().items()}
    cache.save_bytes(key, "weights.safetensors", save_st(state))
    log(f"encoder: fine-tuned on {len(encoded)} sentences in {_fmt(time.monotonic() - t0)}")
    return key, state


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
            key: str, state: dict, encoded: Sequence[Encoded], device: str = "cpu",
            ) -> np.ndarray:
    """Probabilities (inputs x labels) of the fine-tuned encoder ``key`` (cached)."""
    pkey = cache.digest(key, cache.examples_digest(encoded))
    hit = cache.load_array(pkey)
    if hit is not None and hit.shape == (len(encoded), len(labels)):
        return hit
    model = build(base, settings, len(labels), state).to(device).eval()
    frozen = _freeze(model, settings)
    states = FrozenStates(base, settings) if frozen else None
    if states:
        states.fill(encoded, device, lambda _msg: None)

    probs = np.zeros((len(encoded), len(labels)), dtype=np.float32)
    order = sorted(range(len(encoded)), key=lambda i: len(encoded[i][0]))
    with torch.no_grad():
        for start in range(0, len(order), 64):
            rows = order[start:start + 64]
            batch = [encoded[i] for i in rows]
            if states:
                logits = model(*states.batch(batch, device), start=frozen)
            else:
                logits = model(*[torch.from_numpy(a).to(device) for a in pad_batch(batch)])
            probs[rows] = torch.softmax(logits, -1).to("cpu").numpy()
    cache.save_array(pkey, probs)
    return probs


def _fmt(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"
