"""Sentence-splitter boundary precision / recall / F1 on the gold ART and CRA paragraphs.

Each gold paragraph's sentences are joined with one space, the text is re-split, and the
positions between sentences are compared: a boundary is the offset where a sentence
other than the paragraph's first starts. Boundaries are gold (the corpora's own human
sentence markup). Also prints the splitter's speed in ms per gold sentence.

    python benchmarks/splitter.py                 # coresc.split only
    python benchmarks/splitter.py --compare       # also pysbd and syntok, if installed
    python benchmarks/splitter.py --errors 30     # show sample errors of coresc.split
    python benchmarks/splitter.py --readers       # JATS counts; Elsevier vs SAPIENTA silver
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable

from coresc.config import data_dir
from coresc.readers import read_corpus
from coresc.split import split_offsets

Splitter = Callable[[str], list[int]]  # text -> start offsets of the sentences


def gold_paragraphs(corpora: list[str]) -> list[list[str]]:
    """Sentence texts per gold paragraph (paragraphs of one sentence included)."""
    out = []
    for corpus in corpora:
        for paper in read_corpus([data_dir() / corpus]):
            for _, para in paper.paragraphs():
                sents = [s.text for s in para.sentences if s.text]
                if sents:
                    out.append(sents)
    return out


def _coresc(text: str) -> list[int]:
    return [s for s, _ in split_offsets(text)]


def _pysbd() -> Splitter | None:
    try:
        import pysbd
    except ImportError:
        return None
    seg = pysbd.Segmenter(language="en", clean=False, char_span=True)

    def run(text: str) -> list[int]:
        # pysbd's spans may include the whitespace before a sentence: skip it.
        starts = []
        for span in seg.segment(text):
            i = span.start
            while i < len(text) and text[i].isspace():
                i += 1
            starts.append(i)
        return starts
    return run


def _syntok() -> Splitter | None:
    try:
        from syntok import segmenter
    except ImportError:
        return None

    def run(text: str) -> list[int]:
        return [sent[0].offset for para in segmenter.analyze(text) for sent in para]
    return run


def evaluate(paragraphs: list[list[str]], splitter: Splitter, n_errors: int = 0) -> dict:
    tp = fp = fn = n_sent = 0
    errors = []
    t0 = time.process_time()  # CPU time: the machine is shared
    for sents in paragraphs:
        text = " ".join(sents)
        gold, pos = set(), 0
        for s in sents[:-1]:
            pos += len(s) + 1
            gold.add(pos)
        pred = set(splitter(text)[1:])
        tp += len(gold & pred)
        fp += len(pred - gold)
        fn += len(gold - pred)
        n_sent += len(sents)
        if n_errors and pred != gold:
            errors += [("miss", text, b) for b in gold - pred]
            errors += [("extra", text, b) for b in pred - gold]
    elapsed = time.process_time() - t0
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    for kind, text, b in random.Random(0).sample(errors, min(n_errors, len(errors))):
        print(f"{kind:5} | {text[max(0, b - 60):b]} || {text[b:b + 30]}")
    return {"precision": p, "recall": r, "f1": f, "boundaries": tp + fn, "tp": tp, "fp": fp,
            "fn": fn, "sentences": n_sent, "ms_per_sentence": 1000 * elapsed / n_sent}


def reader_counts() -> None:
    """Per-file counts of the JATS reader, and Elsevier sentence counts against silver.

    The OA-STM silver files are SAPIENTA's own splitting of the same papers (silver, not
    truth); SAPIENTA did not split captions, so the ratio is given with and without them.
    """
    import statistics

    from coresc.readers import read_file

    print("| JATS file | sentences | title | abstract | body | caption | sections |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for f in sorted((data_dir() / "jats").glob("*xml")):
        [paper] = read_file(f)
        zones = {z: 0 for z in ("title", "abstract", "body", "caption")}
        for s in paper.sentences():
            zones[s.zone] += 1
        print(f"| {f.name} | {len(paper)} | {' | '.join(map(str, zones.values()))} | "
              f"{len(paper.sections)} |")
    silver = {p.id: len(p) for p in read_corpus([data_dir() / "oa-stm" / "coresc-auto"])}
    ours_all, ours_nocap, ref, ratios, ratios_nocap = 0, 0, 0, [], []
    t0 = time.perf_counter()
    files = sorted((data_dir() / "oa-stm" / "source-xml").glob("*.xml"))
    for f in files:
        [paper] = read_file(f)
        if paper.id not in silver:
            continue
        n_all = len(paper)
        n_nocap = sum(1 for s in paper.sentences() if s.zone != "caption")
        ours_all += n_all
        ours_nocap += n_nocap
        ref += silver[paper.id]
        ratios.append(n_all / silver[paper.id])
        ratios_nocap.append(n_nocap / silver[paper.id])
    elapsed = time.perf_counter() - t0
    print(f"\nElsevier: {len(files)} files read in {elapsed:.1f} s; {len(ratios)} have silver")
    print("| count | ours | SAPIENTA silver | total ratio | median ratio | min | max |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, ours, rs in (("all sentences", ours_all, ratios),
                           ("without captions", ours_nocap, ratios_nocap)):
        print(f"| {name} | {ours} | {ref} | {ours / ref:.3f} | {statistics.median(rs):.3f} | "
              f"{min(rs):.3f} | {max(rs):.3f} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", action="append", choices=["art-corpus", "cra-corpus"],
                    help="corpora to use (default both)")
    ap.add_argument("--compare", action="store_true", help="also measure pysbd and syntok")
    ap.add_argument("--errors", type=int, default=0, help="print N sample errors")
    ap.add_argument("--readers", action="store_true",
                    help="instead: JATS per-file counts and Elsevier counts against silver")
    args = ap.parse_args(argv)
    if args.readers:
        reader_counts()
        return 0
    corpora = args.corpus or ["art-corpus", "cra-corpus"]
    paragraphs = gold_paragraphs(corpora)
    print(f"data: {', '.join(corpora)}: {len(paragraphs)} gold paragraphs, "
          f"{sum(map(len, paragraphs))} sentences", file=sys.stderr)
    splitters: dict[str, Splitter | None] = {"coresc.split": _coresc}
    if args.compare:
        splitters.update({"pysbd 0.3.4": _pysbd(), "syntok 1.4.4": _syntok()})
    print("| splitter | corpus | boundaries | precision | recall | F1 | ms/sentence |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for name, fn in splitters.items():
        if fn is None:
            print(f"| {name} | not installed | | | | | |")
            continue
        res = evaluate(paragraphs, fn, args.errors if name == "coresc.split" else 0)
        print(f"| {name} | {'+'.join(c.split('-')[0].upper() for c in corpora)} | "
              f"{res['boundaries']} | {res['precision']:.4f} | {res['recall']:.4f} | "
              f"{res['f1']:.4f} | {res['ms_per_sentence']:.4f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
