"""Papers per second of `coresc annotate` on the 108 Elsevier papers: --jobs 1, --jobs 2, Dask.

Each configuration runs as `coresc annotate ../shared/data/oa-stm/source-xml -o DIR` in a
fresh process (mode2 XML, one file per paper), in turns, ROUNDS times; the median is
reported. Two times per run: the run itself as the command's summary line gives it
(start-up excluded: imports, loading the model, and for Dask the workers loading it),
and the whole command's wall time. Dask: a LocalCluster of 2 worker processes with one
thread each on 127.0.0.1, started once before the runs (`--scheduler ADDRESS`).

    python benchmarks/batch_speed.py            # all three, 3 rounds
    python benchmarks/batch_speed.py --rounds 5 --no-dask
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from coresc.config import data_dir

_SUMMARY = re.compile(r"annotated (\d+) sentences of (\d+) paper\(s\) in ([\d.]+)s")


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def run(args: list[str], out: Path) -> tuple[float, float, int, float]:
    """(run seconds, wall seconds, papers, CPU seconds) of one `coresc annotate` command.

    CPU seconds are those of the command and its worker processes (not of Dask's).
    """
    t0, cpu = time.perf_counter(), _children_cpu()
    res = subprocess.run([sys.executable, "-m", "coresc", "annotate", *args, "-o", str(out)],
                         capture_output=True, text=True)
    wall, cpu = time.perf_counter() - t0, _children_cpu() - cpu
    m = _SUMMARY.search(res.stderr)
    if res.returncode != 0 or m is None:
        raise SystemExit(f"failed: {' '.join(args)}\n{res.stderr}")
    return float(m.group(3)), wall, int(m.group(2)), cpu


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-dask", action="store_true")
    args = ap.parse_args()
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    corpus = str(data_dir() / "oa-stm" / "source-xml")
    configs = {"--jobs 1": ["--jobs", "1"], "--jobs 2": ["--jobs", "2"]}
    cluster = None
    if not args.no_dask:
        from distributed import LocalCluster

        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                               host="127.0.0.1", dashboard_address=None)
        configs["dask, 2 local workers"] = ["--scheduler", cluster.scheduler_address]
    times: dict[str, list[tuple[float, float, int, float]]] = {name: [] for name in configs}
    print(f"load average before: {os.getloadavg()[0]:.2f} (1 min)")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for r in range(args.rounds):
                for name, extra in configs.items():
                    out = Path(tmp) / f"{r}-{len(times[name])}-{name.split()[-1]}"
                    times[name].append(run([corpus, *extra], out))
                    secs, wall, papers, cpu = times[name][-1]
                    print(f"  {name}: {papers} papers in {secs:.2f}s (command {wall:.2f}s, "
                          f"{cpu:.1f} CPU s)", flush=True)
    finally:
        if cluster is not None:
            cluster.close()
    print(f"load average after: {os.getloadavg()[0]:.2f} (1 min)")
    base = None
    for name, runs in times.items():
        secs = statistics.median(r[0] for r in runs)
        wall = statistics.median(r[1] for r in runs)
        cpu = statistics.median(r[3] for r in runs)
        papers = runs[0][2]
        rate = papers / secs
        base = base or rate
        print(f"{name}: {rate:.2f} papers/s (median run {secs:.2f}s, {rate / base:.2f}x "
              f"--jobs 1); whole command {wall:.2f}s = {papers / wall:.2f} papers/s; "
              f"{cpu:.1f} CPU s in the command's processes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
