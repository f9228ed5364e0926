"""What the CRF learns from: out-of-fold encoder probabilities, and the final encoder.

For the training papers the CRF sees probabilities from encoders fine-tuned on the
other inner folds, never from an encoder that was trained on the paper: an encoder is
far surer of its own training sentences, and a CRF trained on that would trust it too
much. The encoder that ships is fine-tuned on all training papers and exported to ONNX.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...document import Paper
from ..encoder import Encoded, EncoderSettings, encoder_info, encoder_inputs
from . import cache
from .base import BaseCheckpoint, read_base
from .export import export_onnx
from .train import fine_tune, predict

Log = Callable[[str], None]


@dataclass
class FittedEncoder:
    """A fine-tuned encoder as a model directory holds it."""

    onnx: bytes
    tokenizer: str
    info: dict[str, Any]


def tokenizer_for(base: BaseCheckpoint, settings: EncoderSettings):
    from tokenizers import Tokenizer

    tok = Tokenizer.from_str(base.tokenizer)
    tok.no_padding()
    tok.enable_truncation(settings.max_tokens)
    return tok


def fit_encoder(papers: Sequence[Paper], labels: Sequence[Sequence[str | None]],
                label_set: Sequence[str], settings: EncoderSettings, folds: Sequence[int],
                device: str = "cpu", log: Log = print,
                ) -> tuple[list[np.ndarray], FittedEncoder]:
    """Out-of-fold probabilities per paper (sentences x ``label_set``), and the encoder
    fine-tuned on all papers.

    ``labels`` are the primary gold labels per paper and sentence (``None``: not trained
    on); ``folds`` the inner fold of each paper.
    """
    from ..encoder import tokenize

    t0 = time.monotonic()
    base = read_base(settings.base)
    tok = tokenizer_for(base, settings)
    encoded = [tokenize(tok, encoder_inputs(p, settings.context)) for p in papers]
    index = {lab: i for i, lab in enumerate(label_set)}
    k = max(folds) + 1
    oof: list[np.ndarray | None] = [None] * len(papers)
    for f in range(k):
        train = [i for i in range(len(papers)) if folds[i] != f]
        test = [i for i in range(len(papers)) if folds[i] == f]
        log(f"encoder: inner fold {f + 1}/{k}, fine-tuning on {len(train)} papers")
        key, state = fine_tune(base, settings, label_set, *_examples(encoded, labels, train,
                                                                     index), device, log)
        flat = [e for i in test for e in encoded[i]]
        probs = predict(base, settings, label_set, key, state, flat, device)
        for i, part in zip(test, _split(probs, [len(encoded[i]) for i in test]), strict=True):
            oof[i] = part
    log(f"encoder: final fine-tuning on all {len(papers)} papers")
    key, state = fine_tune(base, settings, label_set,
                           *_examples(encoded, labels, range(len(papers)), index), device, log)
    name = "encoder-int8.onnx" if settings.quantize else "encoder.onnx"
    onnx = cache.load_bytes(key, name)
    if onnx is None:
        onnx = export_onnx(base, settings, len(label_set), state, settings.quantize)
        cache.save_bytes(key, name, onnx)
    n_train = sum(1 for seq in labels for lab in seq if lab)
    info = encoder_info(label_set, settings, {
        "base_sha256": base.sha, "train_key": key, "n_train_sentences": n_train,
        "device": device, "seconds": round(time.monotonic() - t0, 1)})
    return [o if o is not None else np.zeros((0, len(label_set))) for o in oof], \
        FittedEncoder(onnx, _tokenizer_json(tok), info)


def _examples(encoded: Sequence[Sequence[Encoded]], labels, papers: Sequence[int],
              index: dict[str, int]) -> tuple[list[Encoded], list[int]]:
    xs, ys = [], []
    for i in papers:
        for e, lab in zip(encoded[i], labels[i], strict=True):
            if lab in index:
                xs.append(e)
                ys.append(index[lab])
    return xs, ys


def _split(arr: np.ndarray, sizes: Sequence[int]) -> list[np.ndarray]:
    return np.split(arr, np.cumsum(sizes)[:-1]) if sizes else []


def _tokenizer_json(tok) -> str:
    """The tokenizer as shipped: no padding, truncation at the settings' length."""
    return tok.to_str()
