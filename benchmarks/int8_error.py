"""How far int8 weights move a fine-tuned encoder's probabilities, and what they save.

One fine-tuned encoder (its ``weights.safetensors`` from the encoder cache,
``$CORESC_CACHE_DIR/encoders/KEY[:2]/KEY/``) is exported four ways: float32 (stored
compactly, as a float model ships), and onnxruntime's dynamic int8 quantisation with one
scale per tensor or per output channel, of the fused graph (as coresc exports) and of
the plain one. Each reads the first ``--papers`` CRA papers (one thread, each unit
alone); printed: file size, CPU seconds, and against float32 the labels that change and
the mean and largest absolute difference of the probabilities (docs/benchmarks.md,
issue 41). Needs the train extra.

    python benchmarks/int8_error.py ~/.cache/coresc/encoders/7c/7cc1.../weights.safetensors \
        --layers 3 --train-layers 2 --overlap 0
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from coresc.config import data_dir
from coresc.model.encoder import EncoderSettings, OnnxEncoder, encoder_info
from coresc.model.finetune import export
from coresc.model.finetune.base import read_base
from coresc.model.finetune.train import torch
from coresc.readers import read_file


def main() -> int:
    from safetensors.torch import load as load_st

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("weights", type=Path)
    ap.add_argument("--layers", type=int, default=3)
    ap.add_argument("--train-layers", type=int, default=2)
    ap.add_argument("--overlap", type=int, default=0)
    ap.add_argument("--papers", type=int, default=4)
    args = ap.parse_args()
    torch.set_num_threads(1)
    state = load_st(args.weights.read_bytes())
    s = EncoderSettings(layers=args.layers, train_layers=args.train_layers,
                        context="window", overlap=args.overlap, epochs=1.0)
    base = read_base(s.base)
    plain = export.plain_onnx(base, s, 11, state)
    fused = export.fuse(plain, base.config)
    variants = {"float32": export.compact(fused),
                "int8 per tensor (fused)": export.quantize_int8(fused, per_channel=False),
                "int8 per channel (fused)": export.quantize_int8(fused),
                "int8 per tensor (plain)": export.quantize_int8(plain, per_channel=False),
                "int8 per channel (plain)": export.quantize_int8(plain)}
    paths = sorted((data_dir() / "cra-corpus").glob("*.xml"))[:args.papers]
    papers = [p for path in paths for p in read_file(path)]
    labels = [f"L{i}" for i in range(11)]
    out = {}
    print(f"{sum(len(p) for p in papers)} sentences of {len(papers)} CRA papers, one thread")
    print("| export | MB | CPU s | labels changed | mean abs diff | largest |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name, data in variants.items():
        si = EncoderSettings(**{**s.to_dict(), "quantize": name != "float32"})
        enc = OnnxEncoder(data, base.tokenizer, encoder_info(labels, si), threads=1)
        t = time.process_time()
        out[name] = np.concatenate([enc.predict_paper(p) for p in papers])
        cpu = time.process_time() - t
        d = np.abs(out[name] - out["float32"])
        changed = int((out[name].argmax(1) != out["float32"].argmax(1)).sum())
        print(f"| {name} | {len(data) / 1e6:.1f} | {cpu:.2f} | {changed} | "
              f"{d.mean():.4f} | {d.max():.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
