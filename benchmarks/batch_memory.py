"""Peak memory (RSS) and time of `coresc annotate` on a whole corpus and on one huge text.

1. The 108 Elsevier papers (../shared/data/oa-stm/source-xml) into a directory of mode2
   XML files (and with --to jsonl into one file).
2. One plain-text document of 20 MB, made here (not kept) by joining the paragraphs of
   the JATS and Elsevier papers, read through coresc's own readers, with their section
   headings, over and over until it is 20 MB: real scientific text, one "paper" of about
   150,000 sentences.

Each command runs as a fresh process; its peak RSS is the largest of the process and
its worker processes (ru_maxrss of the waited-for children). Limit checked here:
LIMIT_MB for the text file.

    python benchmarks/batch_memory.py                     # this checkout
    PYTHONPATH=/path/to/old/checkout python benchmarks/batch_memory.py   # another version
    python benchmarks/batch_memory.py --only text         # just the 20 MB text
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

TEXT_MB = 20
LIMIT_MB = 1024  # the 20 MB text must be annotated in less than this

_MEASURE = """
import resource, subprocess, sys, time
t = time.perf_counter()
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE).returncode
secs = time.perf_counter() - t
print(rc, secs, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def peak(cmd: list[str]) -> tuple[float, float]:
    """(seconds, peak RSS in MB) of ``cmd`` run as a child of a fresh process."""
    res = subprocess.run([sys.executable, "-c", _MEASURE, *cmd], capture_output=True,
                         text=True, check=True)
    rc, secs, kb = res.stdout.split()
    if rc != "0":
        raise SystemExit(f"failed ({rc}): {' '.join(cmd)}\n{res.stderr}")
    return float(secs), int(kb) / 1024


def make_text(path: Path, megabytes: int = TEXT_MB) -> int:
    """Write a plain-text document of ``megabytes`` MB from the real papers; its paragraphs."""
    from coresc.readers import read_inputs

    d = data_dir()
    papers = read_inputs([d / "jats", d / "oa-stm" / "source-xml"]).papers
    blocks = []
    for paper in papers:
        for sec, para in paper.paragraphs():
            if sec.type in ("title", "abstract"):
                continue
            if para is sec.paragraphs[0] and sec.heading:
                blocks.append(sec.heading)
            blocks.append(" ".join(s.text for s in para.sentences))
    text = "\n\n".join(blocks)
    target = megabytes * 1024 * 1024
    n = 0
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("A long document made of real papers\n\n")
        written = 0
        while written < target:
            chunk = text[: target - written]
            fh.write(chunk + "\n\n")
            written += len(chunk.encode("utf-8")) + 2
            n += chunk.count("\n\n") + 1
    return n


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", choices=("corpus", "text"))
    args = ap.parse_args()
    coresc = [sys.executable, "-m", "coresc", "annotate"]
    elsevier = data_dir() / "oa-stm" / "source-xml"
    print(f"load average: {os.getloadavg()[0]:.2f} (1 min)")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        if args.only != "text":
            secs, mb = peak([*coresc, str(elsevier), "-o", str(tmp / "xml")])
            print(f"108 Elsevier papers -> mode2 XML directory: {secs:.1f}s, peak RSS {mb:,.0f} MB")
            secs, mb = peak([*coresc, str(elsevier), "-o", str(tmp / "all.jsonl"),
                             "--to", "jsonl"])
            print(f"108 Elsevier papers -> one JSONL file: {secs:.1f}s, peak RSS {mb:,.0f} MB")
        if args.only != "corpus":
            text = tmp / "long.txt"
            t0 = time.perf_counter()
            paras = make_text(text)
            size = text.stat().st_size / 2**20
            print(f"made {text.name}: {size:.1f} MB, {paras:,} paragraphs "
                  f"({time.perf_counter() - t0:.0f}s)")
            out = tmp / "long.jsonl"
            secs, mb = peak([*coresc, str(text), "-o", str(out), "--to", "jsonl"])
            lines = sum(1 for _ in open(out, encoding="utf-8"))
            verdict = "met" if mb < LIMIT_MB else "MISSED"
            print(f"{size:.0f} MB text -> JSONL ({lines:,} sentences): {secs:.1f}s, "
                  f"peak RSS {mb:,.0f} MB (limit {LIMIT_MB} MB: {verdict})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
