"""Wall time of `coresc train PAPERS --from SOURCE -o DIR` (adapting a model to a field).

Runs the real command line (a fresh process, as `coresc review` runs it) on the first N
papers of a gold corpus (sorted by file name) for each source model given, and prints
the seconds from start to exit, the CPU seconds the command used (user + system: what it
would take on an idle machine with one busy core, which the wall time is not when other
jobs share the cores), and the machine's load average before each run.

examples:
  python benchmarks/adapt_speed.py --source /tmp/art-src accurate
  python benchmarks/adapt_speed.py --source fast --papers 3
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from coresc.config import data_dir  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", nargs="+", required=True,
                    help="source models: directories or bundled names")
    ap.add_argument("--corpus", default=str(data_dir() / "cra-corpus"))
    ap.add_argument("--papers", type=int, default=10)
    args = ap.parse_args(argv)
    papers = sorted(Path(args.corpus).glob("*.xml"))[: args.papers]
    print(f"{len(papers)} papers of {args.corpus}; {os.cpu_count()} cores")
    print("source\twall seconds\tCPU seconds\tload average before")
    for source in args.source:
        with tempfile.TemporaryDirectory(prefix="coresc-adapt-") as tmp:
            load = os.getloadavg()[0]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.monotonic()
            done = subprocess.run([sys.executable, "-m", "coresc", "train", *map(str, papers),
                                   "--from", source, "-o", str(Path(tmp) / "model")],
                                  capture_output=True, text=True)
            took = time.monotonic() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if done.returncode:
            print(f"{source}: failed: {done.stderr.strip().splitlines()[-1]}")
            return 1
        print(f"{source}\t{took:.1f}\t{cpu:.1f}\t{load:.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
