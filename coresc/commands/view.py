"""Write an HTML view of papers that already carry labels (gold or predicted).

One paper (an annotated XML file, or a JSONL file holding one document) gives a page
of the paper: every sentence coloured by its label, a legend whose buttons filter the
sentences, label counts and a stacked bar per section. Several papers (a directory,
several files, a JSONL file of many documents) give the corpus view: label distribution
per paper and for the corpus and, when sentences carry both predicted and gold labels,
the confusion matrix as a heat map. Pages open offline (no external resources).

examples:
  coresc view annotated/b303919f.xml -o b303919f.html
  coresc view ../shared/data/art-corpus/ann1 -o summary.html --pages pages/
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..errors import UsageError
from ..readers import iter_input_files, read_corpus
from ..writers.html import render_paper, write_corpus_html, write_html, write_pages
from .options import add_format_argument, output_path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("inputs", nargs="+", metavar="INPUT",
                        help="annotated file(s) or directories (XML, JSONL, ...)")
    parser.add_argument("-o", "--output", type=output_path, required=True, metavar="OUT",
                        help="HTML file to write ('-' for stdout)")
    add_format_argument(parser, "input format (default: detect)", checked=True)
    parser.add_argument("--corpus", action="store_true",
                        help="write the corpus view even for a single paper")
    parser.add_argument("--pages", metavar="DIR",
                        help="corpus view: also write one page per paper into DIR and "
                             "link them from the summary")


def run(args: argparse.Namespace) -> int:
    files = list(iter_input_files(args.inputs))
    papers = read_corpus(args.inputs, args.format)
    corpus = args.corpus or len(papers) > 1
    if args.pages and not corpus:
        raise UsageError("--pages goes with the corpus view (several papers or --corpus)")
    if not corpus:
        if args.output == "-":
            sys.stdout.write(render_paper(papers[0]))
        else:
            write_html(papers, args.output, inputs=files)
            _done(f"wrote {args.output} ({len(papers[0])} sentences)")
        return 0
    if args.output == "-":
        raise UsageError("the corpus view needs an output file (-o summary.html)")
    links = None
    if args.pages:
        written = write_pages(papers, args.pages, inputs=[*files, args.output], index=False)
        base = Path(args.output).resolve().parent
        links = {p.id: Path(os.path.relpath(path.resolve(), base)).as_posix()
                 for p, path in zip(papers, written, strict=True)}
    write_corpus_html(papers, args.output, inputs=files, links=links)
    n = sum(len(p) for p in papers)
    _done(f"wrote {args.output} ({len(papers)} papers, {n} sentences"
          + (f"; pages in {args.pages})" if args.pages else ")"))
    return 0


def _done(message: str) -> None:
    print(f"[coresc] {message}", file=sys.stderr)
