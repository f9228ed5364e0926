"""Accuracy of an encoder model's variants on held-out gold papers: int8, truncation.

    python benchmarks/encoder_tradeoff.py MODEL_DIR --config cra-3fold-encoder --fold 1

MODEL_DIR is a model with a sentence encoder trained on the training papers of fold
``--fold`` of ``--config`` (e.g. saved by ``coresc experiment CONFIG`` without
``--no-models``); it is scored on that fold's test papers (gold labels) as it is, with
its encoder reading inputs of a half and a quarter of the trained length (word pieces
per input, or per window), and with the encoder re-exported with int8
weights (from the fine-tuned weights in the encoder cache, ``$CORESC_CACHE_DIR``; needs
the ``train`` extra). Prints accuracy and macro-F1 of the primary label, and the
encoder's own accuracy (its argmax), for each variant. The CRF and the secondary layer
are the model's, unchanged: this measures what the cheaper encoder costs a trained model.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from coresc.experiments import fold_papers, load_config
from coresc.metrics import classification_scores
from coresc.model import CoreSCClassifier
from coresc.model.encoder import EncoderSettings, OnnxEncoder


def _int8_encoder(enc: OnnxEncoder) -> OnnxEncoder:
    from safetensors.torch import load as load_st

    from coresc.model.finetune import cache
    from coresc.model.finetune.base import read_base
    from coresc.model.finetune.export import export_onnx

    info = enc.info
    settings = EncoderSettings.from_dict({**info["settings"], "quantize": True})
    weights = cache.load_bytes(info["train_key"], "weights.safetensors")
    if weights is None:
        sys.exit(f"fine-tuned weights {info['train_key'][:12]} are not in the encoder cache")
    base = read_base(settings.base)
    data = export_onnx(base, settings, len(info["labels"]), load_st(weights), quantize=True)
    return OnnxEncoder(data, enc.tokenizer.to_str(), {**info, "settings": settings.to_dict()},
                       threads=0)


def _truncated(enc: OnnxEncoder, onnx: bytes, tokens: int) -> OnnxEncoder:
    """The encoder reading shorter inputs: heading inputs cut to ``tokens`` word pieces,
    or windows of ``tokens`` (sentences cut to at most a quarter of it)."""
    settings = dict(enc.info["settings"])
    if settings.get("context") == "window":
        settings.update(window_tokens=tokens,
                        sentence_tokens=min(settings.get("sentence_tokens", 64), tokens // 4))
    else:
        settings["max_tokens"] = tokens
    return OnnxEncoder(onnx, enc.tokenizer.to_str(), {**enc.info, "settings": settings},
                       threads=0)


def score(model: CoreSCClassifier, papers) -> tuple[float, float, float]:
    """Accuracy and macro-F1 of the primary label, and the encoder's own accuracy."""
    gold, pred, enc_hits, n = [], [], 0, 0
    labels = model._encoder.info["labels"]
    for paper, ranked in zip(papers, model.predict(papers), strict=True):
        probs = model._encoder.predict_paper(paper)
        for s, r, p in zip(paper.sentences(), ranked, probs, strict=True):
            if s.gold:
                gold.append(s.gold[0].code)
                pred.append(r[0].label)
                enc_hits += labels[int(np.argmax(p))] == s.gold[0].code
                n += 1
    scores = classification_scores(gold, pred)
    return scores["accuracy"], scores["macro_f1"], enc_hits / n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", type=Path)
    ap.add_argument("--config", default="cra-3fold-encoder")
    ap.add_argument("--fold", type=int, default=1, help="1-based, as the runner names them")
    args = ap.parse_args(argv)
    fold, _, test = fold_papers(load_config(args.config), args.fold)
    model = CoreSCClassifier.load(args.model)
    n = sum(1 for p in test for s in p.sentences() if s.gold)
    print(f"{args.model}: {fold.name} of {args.config}, {len(test)} test papers, "
          f"{n} gold sentences\n")
    print("| encoder | accuracy % | macro-F1 | encoder alone % |")
    print("| --- | ---: | ---: | ---: |")
    original = model._encoder
    onnx = (args.model / "encoder.onnx").read_bytes()
    window = original.settings.context == "window"
    full = original.settings.window_tokens if window else original.settings.max_tokens
    unit = "word-piece windows" if window else "word pieces"
    variants = [(f"float32, {full} {unit} (as trained)", lambda: original),
                *[(f"float32, {t} {unit}", lambda t=t: _truncated(original, onnx, t))
                  for t in (full // 2, full // 4)],
                (f"int8 weights, {full}", lambda: _int8_encoder(original))]
    for name, make in variants:
        model._encoder = make()
        acc, f1, enc = score(model, test)
        print(f"| {name} | {acc * 100:.2f} | {f1:.3f} | {enc * 100:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
