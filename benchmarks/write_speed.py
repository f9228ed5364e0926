"""How long writing annotated papers takes in each output format (one process).

Reads every paper of a folder (default: the CRA corpus, 50 papers), annotates them once
with the ``fast`` model (not timed), then writes them all to one file per format with
:func:`coresc.writers.write_papers` (Parquet: pyarrow, a row group per 100,000 rows;
PubAnnotation: one file per paper, into a folder), ``--repeat`` times, the formats taking
turns so that a slower moment of a shared machine falls on each alike. Prints the median
and best wall-clock and CPU seconds per format, sentences per CPU-second and the size
written.

    python benchmarks/write_speed.py [--folder ../shared/data/cra-corpus] [--repeat 5]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from coresc.config import data_dir
from coresc.pipeline import annotate_paper, open_model
from coresc.readers import read_corpus
from coresc.writers import write_papers

FORMATS = ("jsonl", "tsv", "parquet", "bioc", "bioc-json", "w3c", "pubannotation", "xml")


def size_of(path: Path) -> int:
    if path.is_dir():
        return sum(p.stat().st_size for p in path.iterdir())
    return path.stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", type=Path, default=data_dir() / "cra-corpus")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--formats", nargs="+", default=list(FORMATS))
    args = parser.parse_args()
    papers = read_corpus([args.folder])
    model = open_model("fast")
    for paper in papers:
        annotate_paper(model, paper)
    n = sum(len(p) for p in papers)
    print(f"{len(papers)} papers, {n} sentences from {args.folder}")
    times: dict[str, list[tuple[float, float]]] = {f: [] for f in args.formats}
    sizes: dict[str, int] = {}
    out = Path(tempfile.mkdtemp(prefix="coresc-write-"))
    try:
        for _ in range(args.repeat):
            for fmt in args.formats:
                target = out / fmt
                w0, c0 = time.perf_counter(), time.process_time()
                write_papers(papers, fmt, target, as_directory=fmt in ("pubannotation", "xml"))
                times[fmt].append((time.perf_counter() - w0, time.process_time() - c0))
                sizes[fmt] = size_of(target)
                shutil.rmtree(target) if target.is_dir() else target.unlink()
    finally:
        shutil.rmtree(out, ignore_errors=True)
    print("| format | wall s (median / best) | CPU s (median / best) | sentences per CPU-s "
          "| size (MB) |")
    print("| --- | --- | --- | --- | --- |")
    for fmt in args.formats:
        walls, cpus = [t[0] for t in times[fmt]], [t[1] for t in times[fmt]]
        cpu = statistics.median(cpus)
        print(f"| {fmt} | {statistics.median(walls):.3f} / {min(walls):.3f} | "
              f"{cpu:.3f} / {min(cpus):.3f} | {n / cpu:,.0f} | {sizes[fmt] / 1e6:.2f} |")


if __name__ == "__main__":
    main()
