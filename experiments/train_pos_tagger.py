"""Train the bundled POS tagger on the OA-STM treebank and write coresc/models/pos/tagger.npz.

    python experiments/train_pos_tagger.py [--treebank DIR] [-o PATH] [--n-iter N]

The treebank (``oa-stm/treebank`` under the shared data folder) holds Penn-Treebank parses
of 10 Elsevier papers, one ``*.pretty`` file per paper; every file is used for training.
Word clusters for the tagger's features are learnt first from unlabelled text: every
sentence of the ART and CRA corpora and of the OA-STM papers except the 10 treebank papers
(left out so that the held-out evaluation in ``benchmarks/pos_tagger.py``, which reuses
the bundled clusters, never sees a test paper's text).
"""

from __future__ import annotations

import argparse
import datetime
import sys
import time
from pathlib import Path

from coresc.config import data_dir
from coresc.pos import DEFAULT_MODEL, PosTagger, join_hyphens, learn_word_clusters, read_treebank
from coresc.readers import read_corpus
from coresc.tokenize import tokenize


def load_treebank(folder: Path) -> dict[str, list[list[tuple[str, str]]]]:
    """Per paper id: its sentences as ``(word, tag)`` pairs, hyphenated words rejoined."""
    files = sorted(folder.glob("*.pretty"))
    if not files:
        raise SystemExit(f"{folder}: no *.pretty treebank files found")
    return {f.name.split("-")[0]: [join_hyphens(s) for s in read_treebank(f)] for f in files}


def unlabelled_sentences(data: Path, exclude: set[str]) -> list[list[str]]:
    """Tokenised sentences of ART, CRA and OA-STM (minus the papers in ``exclude``)."""
    files: list[Path] = [data / "art-corpus", data / "cra-corpus"]
    files += [f for f in sorted((data / "oa-stm" / "coresc-auto").glob("*.xml"))
              if f.name.split("_")[0] not in exclude]
    return [tokenize(s.text) for p in read_corpus(files) for s in p.sentences()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--treebank", type=Path, default=data_dir() / "oa-stm" / "treebank")
    parser.add_argument("-o", "--output", type=Path, default=DEFAULT_MODEL)
    parser.add_argument("--n-iter", type=int, default=PosTagger().n_iter)
    parser.add_argument("--data", type=Path, default=data_dir(),
                        help="shared data folder (unlabelled text for the word clusters)")
    parser.add_argument("--clusters", type=int, default=256, help="number of word clusters")
    args = parser.parse_args(argv)

    papers = load_treebank(args.treebank)
    sentences = [s for sents in papers.values() for s in sents]
    n_tokens = sum(len(s) for s in sentences)
    print(f"[coresc] training on {len(papers)} papers, {len(sentences)} sentences, "
          f"{n_tokens} tokens", file=sys.stderr)
    start = time.perf_counter()
    text = unlabelled_sentences(args.data, exclude=set(papers))
    print(f"[coresc] learning {args.clusters} word clusters from {len(text)} unlabelled "
          f"sentences", file=sys.stderr)
    clusters = learn_word_clusters(text, n_clusters=args.clusters)
    print(f"[coresc] {len(clusters)} words clustered in {time.perf_counter() - start:.0f}s; "
          f"training the tagger", file=sys.stderr)
    tagger = PosTagger(n_iter=args.n_iter, clusters=clusters).train(sentences)
    tagger.meta = {
        "trained_on": "oa-stm/treebank",
        "papers": sorted(papers),
        "sentences": len(sentences),
        "tokens": n_tokens,
        "clusters_from": "art-corpus, cra-corpus, oa-stm/coresc-auto minus treebank papers",
        "cluster_sentences": len(text),
        "date": datetime.date.today().isoformat(),
    }
    tagger.save(args.output)
    print(f"[coresc] trained in {time.perf_counter() - start:.1f}s: {len(tagger.features)} "
          f"features, {len(tagger.tagdict)} dictionary words -> {args.output} "
          f"({args.output.stat().st_size / 1e6:.2f} MB)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
