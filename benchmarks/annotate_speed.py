"""Speed of `coresc annotate` with the bundled model.

1. Throughput: the 10 JATS papers (../shared/data/jats) from raw XML to mode2 output
   files, timed after start-up: sentences per second. Start-up is loading the model and
   the tagger and one warm-up annotation of the bundled example paper (data/, not one of
   the 10), which pays for the modules imported on first use. Each measurement runs in a
   fresh process; the median of RUNS (5) is reported: timings on this machine vary by
   up to a factor 1.7 from one process to the next.
2. Start-up included: `coresc annotate ONE_PAPER` as a subprocess, wall time (best of 3).

    python benchmarks/annotate_speed.py      (BLAS pinned to one thread; taskset -c 0 for one core)
"""

from __future__ import annotations

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


def throughput(files: list[Path], out: Path, fmt: str = "xml") -> tuple[int, float]:
    from coresc.commands.convert import read_papers
    from coresc.model import clear_cache, load_default
    from coresc.writers import write_papers

    model = load_default()
    warm, _, _ = read_papers([EXAMPLE])
    model.annotate(warm)
    write_papers(warm, fmt, out / "warm-up", inputs=[EXAMPLE], as_directory=True)
    clear_cache()
    t0 = time.perf_counter()
    papers, errors, _ = read_papers(files)
    if errors:
        raise SystemExit(f"cannot read: {errors[0]}")
    model.annotate(papers)
    write_papers(papers, fmt, out / "jats", inputs=files, as_directory=True)
    secs = time.perf_counter() - t0
    return sum(len(p) for p in papers), secs


def throughput_in_fresh_process() -> tuple[int, float]:
    res = subprocess.run([sys.executable, __file__, "--once"], check=True,
                         capture_output=True, text=True)
    n, secs = res.stdout.split()
    return int(n), float(secs)


def startup(paper: Path, out: Path) -> float:
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "coresc", "annotate", str(paper), "-o",
                        str(out)], check=True, stderr=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - t0)
    return best


def jats_files() -> list[Path]:
    folder = data_dir() / "jats"
    files = sorted(folder.glob("*.xml")) + sorted(folder.glob("*.nxml"))
    if not files:
        raise SystemExit(f"no JATS papers in {folder}")
    return files


def main() -> int:
    jats = jats_files()
    if sys.argv[1:] == ["--once"]:
        with tempfile.TemporaryDirectory() as tmp:
            n, secs = throughput(jats, Path(tmp))
        print(n, secs)
        return 0
    runs = [throughput_in_fresh_process() for _ in range(RUNS)]
    for n, secs in runs:
        print(f"  run: {n} sentences in {secs:.2f}s = {n / secs:,.0f} sentences/s")
    n, secs = sorted(runs, key=lambda r: r[1])[RUNS // 2]
    print(f"annotate {len(jats)} JATS papers: {n} sentences in {secs:.2f}s = "
          f"{n / secs:,.0f} sentences/s (start-up excluded, median of {RUNS} processes)")
    with tempfile.TemporaryDirectory() as tmp:
        one = startup(jats[0], Path(tmp) / "one.xml")
    print(f"coresc annotate {jats[0].name} (start-up included): {one:.2f}s (best of 3)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
