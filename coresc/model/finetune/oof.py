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
from ..encoder import (
    EncoderSettings,
    OnnxEncoder,
    Unit,
    encoder_info,
    paper_units,
    scatter,
)
from . import cache, require_torch
from .base import BaseCheckpoint, read_base
from .export import EXPORT_FORM, export_onnx
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
    t0 = time.monotonic()
    base = read_base(settings.base)
    check_length(base, settings)
    tok = tokenizer_for(base, settings)
    inputs = [paper_units(tok, p, settings) for p in papers]
    index = {lab: i for i, lab in enumerate(label_set)}
    oof = _cross_fit(base, settings, inputs, labels, label_set, folds, device, log)
    log(f"encoder: final fine-tuning on all {len(papers)} papers")
    key, state = fine_tune(base, settings, label_set,
                           *_examples(inputs, labels, range(len(papers)), index), device, log)
    onnx = _exported(base, settings, len(label_set), key, state)
    n_train = sum(1 for seq in labels for lab in seq if lab)
    info = encoder_info(label_set, settings, {
        "base_sha256": base.sha, "train_key": key, "n_train_sentences": n_train,
        "device": device, "seconds": round(time.monotonic() - t0, 1)})
    return oof, FittedEncoder(onnx, _tokenizer_json(tok), info)


def cross_fit(papers: Sequence[Paper], labels: Sequence[Sequence[str | None]],
              label_set: Sequence[str], settings: EncoderSettings, folds: Sequence[int],
              device: str = "cpu", log: Log = print,
              only_folds: Sequence[int] | None = None) -> list[np.ndarray]:
    """Each paper's probabilities (sentences x ``label_set``) from the encoder fine-tuned
    on the papers of every other fold (one fine-tuning per fold, cached).

    With outer folds this is the cross-fitting protocol of an experiment: fold f's test
    papers are read by the encoder trained without fold f, and its CRF trains on the
    other papers' probabilities, each from an encoder trained without that paper's fold
    (but with fold f's papers: the indirect route by which test labels shape the CRF's
    training features, which the nested protocol closes at about twice the cost).
    ``only_folds``: fine-tune only the encoders of these folds (the other papers' rows
    stay zero).
    """
    base = read_base(settings.base)
    check_length(base, settings)
    tok = tokenizer_for(base, settings)
    inputs = [paper_units(tok, p, settings) for p in papers]
    return _cross_fit(base, settings, inputs, labels, label_set, folds, device, log,
                      only_folds)


def _cross_fit(base, settings, inputs, labels, label_set, folds, device, log,
               only_folds=None) -> list[np.ndarray]:
    index = {lab: i for i, lab in enumerate(label_set)}
    k = max(folds) + 1
    out: list[np.ndarray] = [np.zeros((len(seq), len(label_set)), np.float32)
                             for seq in labels]
    for f in range(k) if only_folds is None else only_folds:
        train = [i for i in range(len(inputs)) if folds[i] != f]
        test = [i for i in range(len(inputs)) if folds[i] == f]
        log(f"encoder: fold {f + 1}/{k}, fine-tuning on {len(train)} papers")
        key, state = fine_tune(base, settings, label_set,
                               *_examples(inputs, labels, train, index), device, log)
        flat = [u for i in test for u in inputs[i][0]]
        probs = _probabilities(base, settings, label_set, key, state, flat, device)
        sizes = [sum(len(u[2]) for u in inputs[i][0]) for i in test]
        for i, part in zip(test, _split(probs, sizes), strict=True):
            out[i] = scatter(part, inputs[i][1], len(labels[i]))
    return out


def _exported(base: BaseCheckpoint, settings: EncoderSettings, n_labels: int, key: str,
              state: dict) -> bytes:
    """The ONNX bytes of fine-tuned encoder ``key`` as a model directory ships them."""
    form = cache.digest(EXPORT_FORM, "int8 per channel" if settings.quantize else "float")
    name = f"encoder-{form[:16]}.onnx"
    onnx = cache.load_bytes(key, name)
    if onnx is None:
        onnx = export_onnx(base, settings, n_labels, state, settings.quantize)
        cache.save_bytes(key, name, onnx)
    return onnx


def _probabilities(base: BaseCheckpoint, settings: EncoderSettings,
                   label_set: Sequence[str], key: str, state: dict, units: Sequence[Unit],
                   device: str) -> np.ndarray:
    """Probabilities (spans x labels) of fine-tuned encoder ``key`` over ``units``.

    An int8 encoder's probabilities differ from its float32 weights' (a few labels in a
    hundred change their argmax), so with ``quantize`` they come from the exported int8
    graph: the CRF then learns from the numbers the shipped encoder gives, and an
    experiment scores what ships.
    """
    if not settings.quantize:
        return predict(base, settings, label_set, key, state, units, device)
    pkey = cache.digest(key, "int8 per channel, a unit a run", EXPORT_FORM,
                        cache.examples_digest(units))
    hit = cache.load_array(pkey)
    if hit is not None and hit.shape == (sum(len(u[2]) for u in units), len(label_set)):
        return hit
    onnx = _exported(base, settings, len(label_set), key, state)
    enc = OnnxEncoder(onnx, base.tokenizer, encoder_info(label_set, settings),
                      threads=require_torch().get_num_threads())
    probs = enc.predict_units(units)
    cache.save_array(pkey, probs)
    return probs


def check_length(base: BaseCheckpoint, settings: EncoderSettings) -> None:
    """CorescError when windows could be longer than the base has positions for."""
    from ...errors import CorescError

    limit = base.config.get("max_position_embeddings", 512)
    if settings.context == "window" and settings.window_tokens > limit:
        raise CorescError(f"encoder window_tokens {settings.window_tokens} is more than the "
                          f"base model reads ({limit} word pieces)")


def _examples(inputs: Sequence[tuple[list[Unit], list[list[int]]]], labels,
              papers: Sequence[int], index: dict[str, int],
              ) -> tuple[list[Unit], list[list[int]]]:
    """The units of ``papers`` that score a labelled sentence, with each span's label
    index (-100: not trained on)."""
    xs, ys = [], []
    for i in papers:
        units, where = inputs[i]
        for unit, idx in zip(units, where, strict=True):
            y = [index.get(labels[i][j], -100) for j in idx]
            if any(v >= 0 for v in y):
                xs.append(unit)
                ys.append(y)
    return xs, ys


def _split(arr: np.ndarray, sizes: Sequence[int]) -> list[np.ndarray]:
    return np.split(arr, np.cumsum(sizes)[:-1]) if sizes else []


def _tokenizer_json(tok) -> str:
    """The tokenizer as shipped: no padding, truncation at the settings' length."""
    return tok.to_str()
