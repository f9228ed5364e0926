"""Speed of the sentence encoder tier on one core (prints the figures in docs/benchmarks.md).

Three measurements, each on the sentences of the real JATS and Elsevier papers in
``../shared/data`` (read from raw XML):

* ``tradeoff``: the exported ONNX encoder alone over whole papers, one thread, for each
  number of layers, float32 or int8 weights, the heading context cut at 128 / 64 / 32
  word pieces and the window context at 256 / 128 / 64 (``--overlap``: the
  sentences read again before each window; ``--sentence-tokens``: the word pieces a
  sentence in a window is cut to). Speed does not
  depend on the fine-tuned values, so the encoders are built from the base checkpoint
  with an untrained head (needs the ``train`` extra and the base weights).
* ``annotate``: a model (bundled name or directory) annotating every paper, from raw XML
  to output files, pinned to one core with one onnxruntime thread; start-up (imports,
  model load) excluded.
* ``cold``: ``coresc annotate PAPER -o OUT --model MODEL`` as a fresh process, wall time.

Sentences per second are given per CPU-second of the process as well as per wall
second: on a shared machine CPU time is the figure that stands for a quiet core.

    python benchmarks/encoder_speed.py tradeoff --layers 1,2,3,6
    python benchmarks/encoder_speed.py tradeoff --layers 1,2,3 --max-tokens '' \
        --window-tokens 256 --overlap 0,1
    python benchmarks/encoder_speed.py tradeoff --layers 3 --max-tokens '' \
        --window-tokens 256 --overlap 0 --sentence-tokens 64,48,40,32
    python benchmarks/encoder_speed.py annotate --model accurate
    python benchmarks/encoder_speed.py cold --model accurate
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from coresc.config import data_dir


def papers_paths(limit: int | None = None) -> list[Path]:
    root = data_dir()
    paths = sorted((root / "jats").glob("*.xml")) + sorted((root / "jats").glob("*.nxml"))
    paths += sorted((root / "oa-stm" / "source-xml").glob("*.xml"))
    return paths[:limit] if limit else paths


def one_core() -> None:
    """Pin this process to one core and every library to one thread."""
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})


def tradeoff(args) -> None:
    from coresc.model.encoder import EncoderSettings, OnnxEncoder, encoder_info
    from coresc.model.finetune.base import read_base
    from coresc.model.finetune.export import export_onnx
    from coresc.model.finetune.oof import tokenizer_for
    from coresc.model.finetune.train import build
    from coresc.readers import read_file

    one_core()
    papers = [p for path in papers_paths(args.papers) for p in read_file(path)]
    n = sum(len(p.sentences()) for p in papers)
    base = read_base(args.base)
    labels = [f"L{i}" for i in range(11)]
    print(f"{n} sentences of {len(papers)} papers, whole papers; one thread")
    print("| layers | weights | context | word pieces | file MB | sentences / CPU-s | "
          "sentences / s (wall) |")
    print("|---|---|---|---|---|---|---|")
    for layers in [int(x) for x in args.layers.split(",")]:
        for quantize in (False, True)[: 1 if args.float_only else 2]:
            settings = EncoderSettings(layers=layers, train_layers=min(2, layers),
                                       quantize=quantize)
            state = build(base, settings, len(labels)).state_dict()
            data = export_onnx(base, settings, len(labels), state, quantize)
            for context, tokens in _contexts(args):
                s = EncoderSettings(layers=layers, train_layers=min(2, layers), quantize=quantize,
                                    context=context,
                                    **tokens)
                enc = OnnxEncoder(data, tokenizer_for(base, s).to_str(),
                                  encoder_info(labels, s), threads=1)
                enc.predict_paper(papers[0])  # warm-up
                cpu, wall = time.process_time(), time.perf_counter()
                for paper in papers:
                    enc.predict_paper(paper)
                cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
                shown = ", ".join(f"{k} {v}" for k, v in tokens.items())
                print(f"| {layers} | {'int8' if quantize else 'float32'} | {context} | "
                      f"{shown} | {len(data) / 1e6:.1f} | {n / cpu:.0f} | {n / wall:.0f} |",
                      flush=True)


def _contexts(args) -> list[tuple[str, dict]]:
    """(context, word-piece settings) pairs to time: each heading cut and window length."""
    out = [("heading", {"max_tokens": int(x)}) for x in args.max_tokens.split(",") if x]
    out += [("window", {"window_tokens": int(x), "overlap": int(o), "sentence_tokens": int(k)})
            for x in args.window_tokens.split(",") if x for o in args.overlap.split(",")
            for k in args.sentence_tokens.split(",")]
    return out


def annotate(args) -> None:
    one_core()
    from coresc.model import CoreSCClassifier
    from coresc.model.storage import resolve_model
    from coresc.readers import read_file
    from coresc.writers import write_papers

    model = CoreSCClassifier.load(resolve_model(args.model), threads=1)
    paths = papers_paths(args.papers)
    with tempfile.TemporaryDirectory(prefix="coresc-bench-") as out:
        cpu, wall = time.process_time(), time.perf_counter()
        n = 0
        for path in paths:
            papers = read_file(path)
            model.annotate(papers)
            n += sum(len(p) for p in papers)
            write_papers(papers, args.to, str(Path(out) / (path.stem + "." + args.to)),
                         inputs=[path])
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(f"{args.model}: {len(paths)} papers, {n} sentences, raw XML -> {args.to} files, "
          f"one core: {n / wall:.0f} sentences/s wall, {n / cpu:.0f} sentences/CPU-s "
          f"({wall:.1f} s wall, {cpu:.1f} CPU-s)")


def cold(args) -> None:
    paper = args.paper or str(papers_paths()[0])
    times = []
    with tempfile.TemporaryDirectory(prefix="coresc-bench-") as out:
        for i in range(args.repeat):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "coresc", "annotate", paper, "-o",
                            str(Path(out) / f"out{i}.xml"), "--model", args.model],
                           check=True, stderr=subprocess.DEVNULL)
            times.append(time.perf_counter() - t)
    times.sort()
    print(f"{args.model}: cold annotate of {Path(paper).name}: median "
          f"{times[len(times) // 2]:.2f} s wall over {args.repeat} fresh processes "
          f"(min {times[0]:.2f}, max {times[-1]:.2f})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="what", required=True)
    t = sub.add_parser("tradeoff")
    t.add_argument("--layers", default="1,2,3,4,6")
    t.add_argument("--max-tokens", default="128,64,32",
                   help="heading context: the word-piece cuts to time ('' = none)")
    t.add_argument("--window-tokens", default="256,128,64",
                   help="window context: the window lengths to time ('' = none)")
    t.add_argument("--overlap", default="1",
                   help="windows: sentences read again as the next window's context, "
                        "comma-separated values to time (the bundled model's since issue 41: 0)")
    t.add_argument("--sentence-tokens", default="64",
                   help="windows: the word pieces a sentence is cut to, comma-separated "
                        "values to time")
    t.add_argument("--float-only", action="store_true", help="skip the int8 exports")
    t.add_argument("--papers", type=int, default=12)
    t.add_argument("--base", default="all-MiniLM-L6-v2")
    a = sub.add_parser("annotate")
    a.add_argument("--model", default="accurate")
    a.add_argument("--papers", type=int)
    a.add_argument("--to", default="xml")
    c = sub.add_parser("cold")
    c.add_argument("--model", default="accurate")
    c.add_argument("--paper")
    c.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    {"tradeoff": tradeoff, "annotate": annotate, "cold": cold}[args.what](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
