"""Label shares (%) per ART release folder ann1..ann9 (gold), the folds of art-9fold.

    python experiments/art_folders.py [--data DIR]

The last row gives the same min-max over nine random 25-paper folds (seed 0) for
comparison: the release folders differ more than random folds do, so each test fold
of art-9fold brings label habits its training folds share less.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from pathlib import Path

from coresc.config import data_dir
from coresc.features import paper_labels
from coresc.labels import LABELS
from coresc.readers import read_corpus


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=None, help="shared data folder")
    args = ap.parse_args(argv)
    papers = read_corpus([(args.data or data_dir()) / "art-corpus"])
    codes = list(LABELS)
    counts = _counts(papers, lambda i, p: Path(p.source_path).parent.name)
    order = list(range(len(papers)))
    random.Random(0).shuffle(order)
    rank = {i: r for r, i in enumerate(order)}
    shuffled = _counts(papers, lambda i, p: str(rank[i] % len(counts)))
    print("| folder | sentences | " + " | ".join(codes) + " |")
    print("| --- " * (len(codes) + 2) + "|")
    for folder in sorted(counts):
        c = counts[folder]
        print(f"| {folder} | {c.total()} | "
              + " | ".join(f"{v:.1f}" for v in _shares(c, codes)) + " |")
    for name, groups in (("min-max", counts), ("random folds min-max", shuffled)):
        per_label = zip(*(_shares(c, codes) for c in groups.values()), strict=True)
        print(f"| {name} | | " + " | ".join(f"{min(v):.1f}-{max(v):.1f}" for v in per_label)
              + " |")
    return 0


def _counts(papers, group_of) -> dict[str, Counter]:
    """Primary gold labels counted per group (``group_of(index, paper)``)."""
    counts: dict[str, Counter] = {}
    for i, p in enumerate(papers):
        counts.setdefault(group_of(i, p), Counter()).update(
            lab for lab in paper_labels(p) if lab)
    return counts


def _shares(counts: Counter, codes: list[str]) -> list[float]:
    n = counts.total()
    return [100 * counts[k] / n for k in codes]


if __name__ == "__main__":
    sys.exit(main())
