"""How long reading papers into the document model takes (one process, one core).

Reads every file of the ART corpus (225 papers), the CRA corpus (50) and SAPIENTA's
OA-STM output (107) with :func:`coresc.readers.read_corpus`, ``--repeat`` times each,
and prints wall-clock and CPU seconds (median and best over the repeats) with the
papers and sentences read. Also times writing them back as mode2 XML.

    python benchmarks/read_speed.py [--data ../shared/data] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

from coresc.config import data_dir
from coresc.readers import read_corpus
from coresc.writers.mode2 import render_mode2

CORPORA = (
    ("ART (gold)", "art-corpus"),
    ("CRA (gold)", "cra-corpus"),
    ("OA-STM SAPIENTA output (silver)", "oa-stm/coresc-auto"),
)
ART_TARGET_S = 10.0


def time_read(folder: Path, repeat: int) -> dict:
    walls, cpus = [], []
    papers = []
    for _ in range(repeat):
        papers = []  # drop the previous run's trees before timing the next
        w0, c0 = time.perf_counter(), time.process_time()
        papers = read_corpus([folder])
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
    w0 = time.perf_counter()
    n_bytes = sum(len(render_mode2(p)) for p in papers)
    write_s = time.perf_counter() - w0
    return {
        "papers": len(papers),
        "sentences": sum(len(p) for p in papers),
        "wall_median": statistics.median(walls),
        "wall_best": min(walls),
        "cpu_median": statistics.median(cpus),
        "write_s": write_s,
        "write_mb": n_bytes / 1e6,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=None, help="corpus folder "
                        "(default: coresc.config.data_dir())")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    root = args.data or data_dir()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    print(f"# read speed, {time.strftime('%Y-%m-%d')}, Python {platform.python_version()}, "
          f"data {root}, {args.repeat} runs each, one core")
    print("| corpus | papers | sentences | read wall s (median / best) | read CPU s | "
          "sentences/s | write mode2 s |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    art_ok = True
    for name, sub in CORPORA:
        folder = root / sub
        if not folder.is_dir():
            print(f"| {name} | missing: {folder} | | | | | |")
            continue
        r = time_read(folder, args.repeat)
        print(f"| {name} | {r['papers']} | {r['sentences']:,} | {r['wall_median']:.2f} / "
              f"{r['wall_best']:.2f} | {r['cpu_median']:.2f} | "
              f"{r['sentences'] / r['wall_median']:,.0f} | {r['write_s']:.2f} |")
        sys.stdout.flush()
        if sub == "art-corpus":
            art_ok = r["wall_median"] < ART_TARGET_S
    print(f"ART target (< {ART_TARGET_S:.0f} s): {'met' if art_ok else 'NOT met'}")
    return 0 if art_ok else 1


if __name__ == "__main__":
    sys.exit(main())
