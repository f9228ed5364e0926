"""How long reading a PDF with the embedded reader takes, and its peak memory (model time
excluded): the 13-page two-column ACL paper of ``pdf-pairs`` by default.

Prints wall-clock seconds (median of ``--repeat``), CPU seconds of this process and of the
child that parses the PDF, and the peak resident memory of each.

    python benchmarks/pdf_read_speed.py [--pdf PATH] [--repeat 5]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from pathlib import Path

from coresc.config import data_dir
from coresc.readers import read_pdf


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pdf", type=Path, default=None)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    pdf = args.pdf or data_dir() / "pdf-pairs" / "acl_2020.acl-main.207" / "paper.pdf"
    data = pdf.read_bytes()
    walls = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        paper = read_pdf(data, pdf.name)
        walls.append(time.perf_counter() - t0)
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    n = args.repeat
    print(f"{pdf}: {len(paper)} sentences, {len(paper.sections)} sections")
    print(f"wall s: median {statistics.median(walls):.3f}, best {min(walls):.3f} "
          f"(of {n})")
    print(f"CPU s per read: this process {(me.ru_utime + me.ru_stime) / n:.3f}, "
          f"the PDFium child {(kids.ru_utime + kids.ru_stime) / n:.3f}")
    print(f"peak resident MB: this process {me.ru_maxrss / 1024:.0f}, "
          f"the child {kids.ru_maxrss / 1024:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
