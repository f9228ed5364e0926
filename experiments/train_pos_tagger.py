"""Train the bundled POS tagger on the OA-STM treebank and write coresc/models/pos/tagger.npz.

    python experiments/train_pos_tagger.py [--treebank DIR] [-o PATH] [--n-iter N]

The treebank (``oa-stm/treebank`` under the shared data folder) holds Penn-Treebank parses
of 10 Elsevier papers, one ``*.pretty`` file per paper; every file is used for training.
Held-out accuracy is measured separately by ``benchmarks/pos_tagger.py``.
"""

from __future__ import annotations

import argparse
import datetime
import sys
import time
from pathlib import Path

from coresc.config import data_dir
from coresc.pos import DEFAULT_MODEL, PosTagger, join_hyphens, read_treebank


def load_treebank(folder: Path) -> dict[str, list[list[tuple[str, str]]]]:
    """Per paper id: its sentences as ``(word, tag)`` pairs, hyphenated words rejoined."""
    files = sorted(folder.glob("*.pretty"))
    if not files:
        raise SystemExit(f"{folder}: no *.pretty treebank files found")
    return {f.name.split("-")[0]: [join_hyphens(s) for s in read_treebank(f)] for f in files}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--treebank", type=Path, default=data_dir() / "oa-stm" / "treebank")
    parser.add_argument("-o", "--output", type=Path, default=DEFAULT_MODEL)
    parser.add_argument("--n-iter", type=int, default=PosTagger().n_iter)
    args = parser.parse_args(argv)

    papers = load_treebank(args.treebank)
    sentences = [s for sents in papers.values() for s in sents]
    n_tokens = sum(len(s) for s in sentences)
    print(f"[coresc] training on {len(papers)} papers, {len(sentences)} sentences, "
          f"{n_tokens} tokens", file=sys.stderr)
    start = time.perf_counter()
    tagger = PosTagger(n_iter=args.n_iter).train(sentences)
    tagger.meta = {
        "trained_on": "oa-stm/treebank",
        "papers": sorted(papers),
        "sentences": len(sentences),
        "tokens": n_tokens,
        "date": datetime.date.today().isoformat(),
    }
    tagger.save(args.output)
    print(f"[coresc] trained in {time.perf_counter() - start:.1f}s: {len(tagger.features)} "
          f"features, {len(tagger.tagdict)} dictionary words -> {args.output} "
          f"({args.output.stat().st_size / 1e6:.2f} MB)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
