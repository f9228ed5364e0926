"""Speed of `coresc annotate` with the bundled model.

1. Throughput: the 10 JATS papers (../shared/data/jats) from raw XML to mode2 output
   files, timed after start-up (model loaded, tagger loaded): sentences per second.
2. Start-up included: `coresc annotate ONE_PAPER` as a subprocess, wall time (best of 3).

    nice -n 10 python benchmarks/annotate_speed.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from coresc.config import data_dir


def throughput(files: list[Path], out: Path, fmt: str = "xml") -> tuple[int, float]:
    from coresc.commands.convert import read_papers
    from coresc.model import _pos_tagger, clear_cache, load_default
    from coresc.writers import write_papers

    model = load_default()
    _pos_tagger()  # start-up: tagger loaded once per process
    clear_cache()
    t0 = time.perf_counter()
    papers, errors, _ = read_papers(files)
    if errors:
        raise SystemExit(f"cannot read: {errors[0]}")
    model.annotate(papers)
    write_papers(papers, fmt, out, inputs=files)
    secs = time.perf_counter() - t0
    return sum(len(p) for p in papers), secs


def startup(paper: Path, out: Path) -> float:
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "coresc", "annotate", str(paper), "-o",
                        str(out)], check=True, stderr=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> int:
    jats = sorted((data_dir() / "jats").glob("*.xml")) + sorted((data_dir() / "jats").glob(
        "*.nxml"))
    if not jats:
        raise SystemExit(f"no JATS papers in {data_dir() / 'jats'}")
    with tempfile.TemporaryDirectory() as tmp:
        n, secs = throughput(jats, Path(tmp) / "out")
        print(f"annotate {len(jats)} JATS papers: {n} sentences in {secs:.2f}s = "
              f"{n / secs:,.0f} sentences/s (start-up excluded)")
        one = startup(jats[0], Path(tmp) / "one.xml")
        print(f"coresc annotate {jats[0].name} (start-up included): {one:.2f}s (best of 3)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
