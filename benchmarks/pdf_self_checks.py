"""The figures issue 50 asks of PDFs of many kinds, taken on the PDFs this repository can
reach: whether each is read, the share of its body sentences with no closing
punctuation (mean and worst), whether an abstract is found, the PDF's own bookmarks
found among the headings, and the sections set after the references (appendices) found.

The PDFs: the 15 real pairs and the 2 GROBID papers of ``../shared/data`` (real), and the
first ``--per-layout`` PDFs of each layout rendered by ``experiments/render_layouts.py``
(under ``--root``; their truth files name the sections after the references). These are
PDFs the reader was built or checked on: the issue's held-out PDFs are not here, so
these figures are no measure of them, only the same measures taken where we can.

    python benchmarks/pdf_self_checks.py [--root out/layouts/cra] [--per-layout 10]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pdf_fidelity  # noqa: E402

from coresc.config import data_dir  # noqa: E402
from coresc.errors import InputError  # noqa: E402
from coresc.readers import read_pdf  # noqa: E402
from coresc.readers.pdf import extract_pages  # noqa: E402
from coresc.readers.pdf.structure.patterns import ABSTRACT, BACK, CONTENTS, ENDS  # noqa: E402


def _outline_found(pdf: bytes, name: str, headings: list[str]) -> tuple[int, int]:
    """(bookmarks that name a heading found, bookmarks) for the PDF's own outline: its
    entries whose words stand on the pages, those that name the abstract, back matter
    the reader leaves out by design (acknowledgements, competing interests ...), the
    references or a list of contents, figures or tables aside."""
    found = extract_pages(pdf, name)
    text = pdf_fidelity.norm(" ".join(r[6] for page in found["pages"] for r in page["runs"]))
    marks = [title for _level, title, *_ in found.get("outline") or []
             if not (ABSTRACT.match(title) or BACK.match(title) or ENDS.match(title)
                     or CONTENTS.match(title))]
    # (a bookmark whose words are not on the pages names no heading: "Section_1")
    marks = [m for m in map(pdf_fidelity.norm, marks) if m and m in text]
    found = sum(1 for m in marks if any(m == h or m.endswith(h) and len(h) > 4
                                        for h in headings))
    return found, len(marks)


def _after_references(truth: Path, headings: list[str]) -> tuple[int, int]:
    """(sections set after the references found, such sections) from a render's truth,
    those the reader leaves out wherever they stand (acknowledgements) aside."""
    elements = json.loads(truth.read_text())["elements"]
    backs = [pdf_fidelity.norm(e["text"]) for e in elements
             if e["role"] == "heading" and e.get("back") == "appendix"
             and not BACK.match(e["text"])]  # (acknowledgements: left out by design)
    return sum(1 for b in backs if b in headings), len(backs)


def check(pdf: Path) -> dict:
    data = pdf.read_bytes()
    try:
        paper = read_pdf(data, pdf)
    except InputError as exc:
        return {"name": pdf.name, "read": False, "why": str(exc)}
    quality = paper.meta["pdf_quality"]
    headings = [pdf_fidelity.norm(s.heading) for s in paper.sections if s.heading]
    row = {"name": str(pdf), "read": True, "unended": quality["unended"],
           "abstract": quality["abstract"]}
    row["marks"] = _outline_found(data, str(pdf), headings)
    truth = pdf.with_suffix(".truth.json")
    if truth.exists():
        row["after_refs"] = _after_references(truth, headings)
    return row


def _pdfs(root: Path, per_layout: int) -> list[Path]:
    real = sorted((data_dir() / "pdf-pairs").glob("*/paper.pdf"))
    real += sorted((data_dir() / "tei").glob("*.pdf"))
    rendered = [p for layout in sorted(root.iterdir()) if layout.is_dir()
                for p in sorted(layout.glob("*.pdf"))[:per_layout]] if root.exists() else []
    return real + rendered


def _summary(label: str, rows: list[dict]) -> None:
    read = [r for r in rows if r["read"]]
    if not rows:
        return
    unended = [r["unended"] for r in read]
    marks = [sum(r["marks"][i] for r in read) for i in (0, 1)]
    backs = [sum(r.get("after_refs", (0, 0))[i] for r in read) for i in (0, 1)]
    print(f"{label}: {len(rows)} PDFs, read {len(read)}; "
          f"no closing punctuation mean {statistics.mean(unended):.3f} "
          f"(worst {max(unended):.3f}); no abstract found {sum(not r['abstract'] for r in read)}"
          f"; bookmarks found as headings {marks[0]}/{marks[1]}"
          f"{f' ({marks[0] / marks[1]:.3f})' if marks[1] else ''}"
          f"; sections after the references found {backs[0]}/{backs[1]}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, default=Path("out/layouts/cra"))
    ap.add_argument("--per-layout", type=int, default=10)
    ap.add_argument("--show", action="store_true", help="a line per PDF")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    rows = [check(p) for p in _pdfs(args.root, args.per_layout)]
    if args.show:
        for r in rows:
            print(r)
    real = [r for r in rows if "/layouts/" not in r["name"] and args.root.name not in
            Path(r["name"]).parts]
    _summary("real PDFs (15 pairs, 2 GROBID papers)", real)
    _summary("rendered layouts", [r for r in rows if r not in real])
    return 0


if __name__ == "__main__":
    sys.exit(main())
