"""Speed of `coresc annotate` with a bundled model, on one core.

1. Throughput: papers from raw XML to output files through `coresc.annotate_files` (what
   `coresc annotate` runs: read, annotate, write each paper atomically, manifest), timed
   after start-up: sentences per second. Start-up is importing, loading the model and the
   tagger and one warm-up run on the bundled example paper (data/, not one of the timed
   papers), which pays for the modules imported on first use. Corpora: the 10 JATS papers
   (../shared/data/jats) and the 108 Elsevier papers (../shared/data/oa-stm/source-xml);
   `--corpus both` (default) times all 118 in one run. Each measurement runs in a fresh
   process; the median of RUNS is reported (this VM's timings vary from process to
   process), with wall and CPU seconds.
2. Start-up included: `coresc annotate ONE_PAPER` as a subprocess, wall time (best of 3).

    python benchmarks/annotate_speed.py                   # JATS + Elsevier, mode2 XML
    python benchmarks/annotate_speed.py --corpus jats --to jsonl --runs 3
    python benchmarks/annotate_speed.py --corpus jats --runs 1 --model fast
    PYTHONPATH=/path/to/old/checkout python benchmarks/annotate_speed.py   # code before

`--model NAME` (a bundled name or a model directory) times that model; without it, the
default model (`accurate`, or `$CORESC_MODEL`), as `coresc annotate` would use. The model
is named in the result: the two bundled models differ in speed by more than 10x.

BLAS is pinned to one thread; add `taskset -c 0` to pin the process to one core.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from coresc.config import data_dir

# "On one core": numpy's BLAS would otherwise start threads that fight over the 2 cores.
# Set before anything imports numpy (coresc imports it lazily); subprocesses inherit it.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

RUNS = 5
EXAMPLE = Path(__file__).resolve().parent.parent / "data" / "example-paper.xml"


def corpus_files(corpus: str) -> list[Path]:
    d = data_dir()
    files = []
    if corpus in ("jats", "both"):
        files += sorted((d / "jats").glob("*.xml")) + sorted((d / "jats").glob("*.nxml"))
    if corpus in ("elsevier", "both"):
        files += sorted((d / "oa-stm" / "source-xml").glob("*.xml"))
    if not files:
        raise SystemExit(f"no papers found under {d}")
    return files


def throughput(files: list[Path], out: Path, fmt: str) -> dict:
    try:
        from coresc.batch import annotate_files
    except ImportError:  # a checkout from before streaming (524a861): its own pipeline
        return _whole_batch_throughput(files, out, fmt)
    suffix = "" if fmt in ("xml", "html") else f".{fmt}"
    annotate_files([EXAMPLE], out / f"warm-up{suffix}", to=fmt, progress="off",
                   as_directory=True)
    cpu = time.process_time()
    summary = annotate_files(files, out / f"timed{suffix}", to=fmt, progress="off")
    cpu = time.process_time() - cpu
    if summary.failures:
        raise SystemExit(f"failed: {summary.failures[0].error}")
    return {"sentences": summary.sentences, "papers": summary.papers,
            "seconds": summary.seconds, "cpu": cpu}


def _whole_batch_throughput(files: list[Path], out: Path, fmt: str) -> dict:
    """Read all, annotate all, write all: how `coresc annotate` worked before streaming."""
    from coresc.commands.convert import read_papers
    from coresc.model import clear_cache, load_default
    from coresc.writers import write_papers

    model = load_default()
    warm, _, _ = read_papers([EXAMPLE])
    model.annotate(warm)
    write_papers(warm, fmt, out / "warm-up", inputs=[EXAMPLE], as_directory=True)
    clear_cache()
    t0, cpu = time.perf_counter(), time.process_time()
    papers, errors, _ = read_papers(files)
    model.annotate(papers)
    write_papers(papers, fmt, out / "timed", inputs=files, as_directory=True)
    return {"sentences": sum(len(p) for p in papers), "papers": len(papers),
            "seconds": time.perf_counter() - t0, "cpu": time.process_time() - cpu}


def in_fresh_process(corpus: str, fmt: str) -> dict:
    res = subprocess.run([sys.executable, __file__, "--once", "--corpus", corpus,
                          "--to", fmt], check=True, capture_output=True, text=True)
    return json.loads(res.stdout)


def startup(paper: Path, out: Path) -> float:
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "coresc", "annotate", str(paper), "-o",
                        str(out)], check=True, stderr=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", choices=("jats", "elsevier", "both"), default="both")
    ap.add_argument("--to", default="xml", choices=("xml", "jsonl", "tsv", "html"))
    ap.add_argument("--runs", type=int, default=RUNS)
    ap.add_argument("--model", help="a bundled model's name or a model directory (default: "
                                    "the default model, as `coresc annotate` uses)")
    ap.add_argument("--once", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.model:  # the fresh processes and `coresc annotate` below inherit it
        os.environ["CORESC_MODEL"] = args.model
    files = corpus_files(args.corpus)
    if args.once:
        with tempfile.TemporaryDirectory() as tmp:
            print(json.dumps(throughput(files, Path(tmp), args.to)))
        return 0
    from coresc.model.storage import default_model_dir

    print(f"model: {default_model_dir()}")
    print(f"load average before: {os.getloadavg()[0]:.2f} (1 min)")
    runs = [in_fresh_process(args.corpus, args.to) for _ in range(args.runs)]
    for r in runs:
        print(f"  run: {r['sentences']} sentences in {r['seconds']:.2f}s wall "
              f"({r['cpu']:.2f}s CPU) = {r['sentences'] / r['seconds']:,.0f} sentences/s")
    med = sorted(runs, key=lambda r: r["seconds"])[len(runs) // 2]
    print(f"annotate {med['papers']} papers ({args.corpus}) to {args.to} with "
          f"{default_model_dir().name}: "
          f"{med['sentences']} sentences in {med['seconds']:.2f}s = "
          f"{med['sentences'] / med['seconds']:,.0f} sentences/s wall, "
          f"{med['sentences'] / med['cpu']:,.0f} per CPU second "
          f"(start-up excluded, median of {len(runs)} processes)")
    print(f"load average after: {os.getloadavg()[0]:.2f} (1 min)")
    with tempfile.TemporaryDirectory() as tmp:
        one = startup(files[0], Path(tmp) / "one.xml")
    print(f"coresc annotate {files[0].name} (start-up included): {one:.2f}s (best of 3)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
