"""How faithfully a PDF is read without a server, against the publisher's XML of the same
paper (``../shared/data/pdf-pairs/``: 15 papers; 3 of them have GROBID's TEI as the
weaker reference).

Each pair is read twice by coresc: its XML (the reference) and its PDF (the candidate,
with the embedded reader, or ``--route text`` for the PDF's plain text read as a .txt,
the floor). Both are labelled with the ``fast`` model. Sentences are compared after
lower-casing and keeping letters and digits only; sentences of at least 12 such
characters count, the title left out. Per paper:

* recall: reference sentences with a candidate sentence of similarity >= 0.9 (difflib);
* precision: candidate sentences that match a reference sentence or are part of one;
* headings: reference section headings (the Title and Abstract sections aside) found
  among the candidate's headings at similarity >= 0.9;
* labels: matched sentences with the same primary label on both routes.

    python benchmarks/pdf_fidelity.py [--data ../shared/data] [--route embedded|text]
        [--only NAME] [--show]
"""

from __future__ import annotations

import argparse
import difflib
import statistics
import sys
import time
import warnings
from pathlib import Path

import coresc
from coresc.config import data_dir
from coresc.errors import InputError
from coresc.readers import read_data, read_file, read_pdf

MIN_CHARS = 12
SIMILAR = 0.9


def norm(text: str) -> str:
    return "".join(c for c in text.lower() if c.isalnum())


def _sentences(paper) -> list[tuple[str, object]]:
    out = []
    for sec in paper.sections:
        if sec.type == "title":
            continue
        for s in sec.sentences():
            key = norm(s.text)
            if len(key) >= MIN_CHARS:
                out.append((key, s))
    return out


def _headings(paper) -> list[str]:
    return [norm(sec.heading) for sec in paper.sections
            if not (sec.depth == 0 and sec.type in ("title", "abstract")) and norm(sec.heading)]


def _ratio(a: str, b: str) -> float:
    m = difflib.SequenceMatcher(None, a, b, autojunk=False)
    if m.real_quick_ratio() < SIMILAR or m.quick_ratio() < SIMILAR:
        return 0.0
    return m.ratio()


def best_match(key: str, keys: list[str], exact: dict[str, int]) -> tuple[int, float]:
    if key in exact:
        return exact[key], 1.0
    best, score = -1, 0.0
    for j, other in enumerate(keys):
        n, m = len(key), len(other)
        if 2 * min(n, m) / (n + m) < SIMILAR:
            continue
        r = _ratio(key, other)
        if r > score:
            best, score = j, r
    return best, score


def _part_of(key: str, refs: list[str]) -> bool:
    for ref in refs:
        if len(ref) < len(key) * 0.9:
            continue
        if key in ref:
            return True
        m = difflib.SequenceMatcher(None, key, ref, autojunk=False)
        if sum(b.size for b in m.get_matching_blocks()) >= SIMILAR * len(key):
            return True
    return False


def score(ref, cand) -> dict:
    r_sents, c_sents = _sentences(ref), _sentences(cand)
    r_keys, c_keys = [k for k, _ in r_sents], [k for k, _ in c_sents]
    c_exact = {k: j for j, k in enumerate(c_keys)}
    r_exact = {k: j for j, k in enumerate(r_keys)}
    found = agree = 0
    for key, sent in r_sents:
        j, sim = best_match(key, c_keys, c_exact)
        if sim >= SIMILAR:
            found += 1
            other = c_sents[j][1]
            if sent.pred and other.pred and sent.pred[0].label == other.pred[0].label:
                agree += 1
    good = 0
    for key in c_keys:
        j, sim = best_match(key, r_keys, r_exact)
        if sim >= SIMILAR or _part_of(key, r_keys):
            good += 1
    r_heads, c_heads = _headings(ref), _headings(cand)
    heads = sum(1 for h in r_heads if any(difflib.SequenceMatcher(None, h, c).ratio()
                                          >= SIMILAR for c in c_heads))
    return {
        "recall": found / len(r_keys) if r_keys else 0.0,
        "precision": good / len(c_keys) if c_keys else 0.0,
        "headings": heads / len(r_heads) if r_heads else 1.0,
        "labels": agree / found if found else 0.0,
        "ref": len(r_keys), "cand": len(c_keys), "ref_heads": len(r_heads),
    }


def _reference(folder: Path) -> Path:
    return next(p for p in sorted(folder.iterdir()) if p.suffix in (".xml", ".jats", ".nxml"))


def _text_route(pdf: Path):
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(pdf))
    text = "\n\n".join(page.get_textpage().get_text_range() for page in doc)
    return read_data(text.encode(), pdf.stem + ".txt", "text")[0]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=None)
    ap.add_argument("--route", choices=("embedded", "text"), default="embedded")
    ap.add_argument("--only", default=None, help="pairs whose name holds this")
    ap.add_argument("--show", action="store_true", help="print unmatched sentences")
    args = ap.parse_args(argv)
    root = (args.data or data_dir()) / "pdf-pairs"
    warnings.simplefilter("ignore")  # Portuguese and Spanish pairs: NotEnglish
    tagger = coresc.load("fast")
    rows = []
    print(f"{'pair':38} {'recall':>6} {'prec':>6} {'heads':>6} {'labels':>6} "
          f"{'ref':>4} {'cand':>4} {'read s':>6}")
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        if args.only and args.only not in folder.name:
            continue
        ref = read_file(_reference(folder))[0]
        pdf = folder / "paper.pdf"
        t0 = time.perf_counter()
        try:
            cand = read_pdf(pdf.read_bytes(), pdf) if args.route == "embedded" \
                else _text_route(pdf)
        except InputError as exc:
            print(f"{folder.name:38} not read: {exc}")
            rows.append({"recall": 0, "precision": 0, "headings": 0, "labels": 0,
                         "grobid_ref": _reference(folder).name.endswith(".tei.xml")})
            continue
        secs = time.perf_counter() - t0
        tagger(ref)
        tagger(cand)
        row = score(ref, cand)
        row["grobid_ref"] = _reference(folder).name.endswith(".tei.xml")
        rows.append(row)
        print(f"{folder.name:38} {row['recall']:6.3f} {row['precision']:6.3f} "
              f"{row['headings']:6.3f} {row['labels']:6.3f} {row['ref']:4} {row['cand']:4} "
              f"{secs:6.2f}")
        if args.show:
            _show(ref, cand)
    groups = (("mean of " + str(len(rows)) + " pairs", rows),
              ("  publisher XML reference", [r for r in rows if not r["grobid_ref"]]),
              ("  GROBID TEI reference", [r for r in rows if r["grobid_ref"]]))
    for name, group in groups:
        if not group:
            continue
        means = {k: statistics.mean(r[k] for r in group)
                 for k in ("recall", "precision", "headings", "labels")}
        print(f"{name + f' ({len(group)})':38} {means['recall']:6.3f} {means['precision']:6.3f} "
              f"{means['headings']:6.3f} {means['labels']:6.3f}")
    return 0


def _show(ref, cand) -> None:
    r_keys = [k for k, _ in _sentences(ref)]
    c_sents = _sentences(cand)
    c_keys = [k for k, _ in c_sents]
    c_exact = {k: j for j, k in enumerate(c_keys)}
    r_exact = {k: j for j, k in enumerate(r_keys)}
    for key, sent in _sentences(ref):
        if best_match(key, c_keys, c_exact)[1] < SIMILAR:
            print("   MISSED:", sent.text[:150])
    for key, sent in c_sents:
        if best_match(key, r_keys, r_exact)[1] < SIMILAR and not _part_of(key, r_keys):
            print("   EXTRA: ", sent.text[:150])
    print("   REF HEADS:", [s.heading for s in ref.sections][:40])
    print("   PDF HEADS:", [(s.heading, s.depth, s.type) for s in cand.sections][:40])


if __name__ == "__main__":
    sys.exit(main())
