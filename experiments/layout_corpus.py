"""The command line shared by the makers of the layout corpus
(``render_layouts.py``, TeX Live; ``render_word_layouts.py``, LibreOffice): gold papers
through layouts into PDFs, each with its ``NAME.truth.json``, resumable."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from coresc.config import data_dir
from coresc.document import Paper
from coresc.readers import read_file

#: Gold corpora by name: the folder under the data directory.
CORPORA = {"cra": "cra-corpus", "art": "art-corpus"}


@dataclass(frozen=True)
class Renderer:
    """One maker of the layout corpus: its name, its layouts, the program it needs and
    what to install for it, how a paper becomes a document in a layout (and its truth),
    and how a document becomes a PDF (None, or why not)."""

    name: str
    layouts: dict
    program: str
    install: str
    document: Callable[[Paper, object], tuple[str, dict]]
    render: Callable[[str, Path], str | None]
    held_out: dict = field(default_factory=dict)  # layouts kept apart to judge on


def render_corpus(maker: Renderer, argv: list[str] | None, description: str) -> int:
    """The command line of a maker of the layout corpus (this script's, and
    ``render_word_layouts.py``'s): papers through layouts into PDFs and their truth,
    a PDF already made kept."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("files", nargs="*", type=Path,
                    help="papers to render instead of a corpus (any XML coresc reads)")
    ap.add_argument("--corpus", choices=sorted(CORPORA), default="cra")
    ap.add_argument("--data", type=Path, default=None)
    ap.add_argument("--layouts", default="all", help="comma-separated names, or all: "
                    + ", ".join(maker.layouts) + (", or held-out: " + ", ".join(
                        maker.held_out) if maker.held_out else ""))
    ap.add_argument("--papers", type=int, default=None, help="the first N papers only")
    ap.add_argument("-o", "--out", type=Path, default=Path("out/layouts"))
    args = ap.parse_args(argv)
    if shutil.which(maker.program) is None:
        print(f"{maker.name}: {maker.program} not found: install {maker.install} (see the "
              "docstring)", file=sys.stderr)
        return 2
    layouts = {**maker.layouts, **maker.held_out}
    names = ({"all": list(maker.layouts), "held-out": list(maker.held_out)}.get(args.layouts)
             or args.layouts.split(","))
    unknown = [n for n in names if n not in layouts]
    if unknown:
        print(f"{maker.name}: unknown layouts: {', '.join(unknown)}", file=sys.stderr)
        return 2
    files = args.files or sorted((args.data or data_dir()).joinpath(
        CORPORA[args.corpus]).rglob("*.xml"))
    files = files[:args.papers] if args.papers else files
    group = "files" if args.files else args.corpus
    done = failed = 0
    t0 = time.monotonic()
    for k, path in enumerate(files, 1):
        paper = read_file(path)[0]
        for name in names:
            folder = args.out / group / name
            folder.mkdir(parents=True, exist_ok=True)
            pdf = folder / f"{paper.id}.pdf"
            if pdf.exists():
                continue
            doc, truth = maker.document(paper, layouts[name])
            problem = maker.render(doc, pdf)
            if problem:
                failed += 1
                print(f"  {paper.id} {name}: not rendered: {problem}", file=sys.stderr)
                continue
            truth.update(layout=name, corpus=group)
            (folder / f"{paper.id}.truth.json").write_text(json.dumps(truth, indent=1))
            done += 1
        print(f"[{k}/{len(files)}] {paper.id}: {done} PDFs made, {failed} failed, "
              f"{time.monotonic() - t0:.0f} s", flush=True)
    return 1 if failed and not done else 0
