"""Memory (RSS) of a program that annotates the 108 Elsevier papers three times over.

Each pass reads and annotates every paper through the Python API and drops it; the
resident memory after each pass should stay where it was after the first (before the
fix, a module-level cache kept every paper ever annotated). Run against an older
checkout (`PYTHONPATH=... python benchmarks/api_memory.py`) it uses that version's
`read_file` + `CoreSCClassifier.annotate`, as a program had to then.

    python benchmarks/api_memory.py
"""

from __future__ import annotations

import gc
import os
import sys

from coresc.config import data_dir


def rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def annotator():
    import coresc

    if hasattr(coresc, "load"):
        tagger = coresc.load()
        return tagger.pipe
    from coresc.model import load_default
    from coresc.readers import read_file

    model = load_default()

    def annotate(paths):
        for path in paths:
            papers = read_file(path)
            model.annotate(papers)
            yield from papers

    return annotate


def main() -> int:
    files = sorted((data_dir() / "oa-stm" / "source-xml").glob("*.xml"))
    annotate = annotator()
    print(f"model loaded: {rss_mb():,.0f} MB")
    for n in range(1, 4):
        sentences = sum(len(paper) for paper in annotate(files))
        gc.collect()
        print(f"after pass {n} ({len(files)} papers, {sentences} sentences): "
              f"{rss_mb():,.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
