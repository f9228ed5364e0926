"""Convert papers between formats (XML, JSONL, TSV, HTML), keeping the labels they carry.

INPUT may be files, directories (read recursively: .xml .nxml .txt .jsonl .pdf; files of
other types are listed as skipped) or - for standard input. The format of each file is
detected unless --format is given. PDFs are read by the embedded reader, or by a GROBID
server (--grobid URL or $CORESC_GROBID_URL). Output goes to stdout without -o; several
papers as xml need -o DIRECTORY (one <id>.xml each), jsonl and tsv go into one file.
--to xml writes each paper in its own dialect: TEI for TEI (and PDF) input, SAPIENTA
mode2 for the rest; --to mode2 writes mode2 for all. Files that cannot be read are
listed at the end; the good ones are still converted, and the exit code is then 1 (2
when nothing could be read). --strip-labels drops every label the papers carry (gold,
predicted, withheld): labelled papers become an unlabelled pool for `coresc select` and
`coresc review`, or a test set a person labels afresh.

examples:
  coresc convert paper.nxml                        # mode2 XML on stdout
  coresc convert corpus/ -o out/ --to xml          # one out/<id>.xml per paper
  coresc convert corpus/ -o sentences.tsv --to tsv
  coresc convert paper.pdf --grobid http://localhost:8070 --to tsv
  curl -s https://example.org/paper.nxml | coresc convert - --to tsv
  coresc convert ../shared/data/cra-corpus -o pool/ --strip-labels
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..batch.work import TREELESS_FORMATS, release_sources
from ..document import Paper
from ..errors import InputError, UsageError
from ..readers import INPUT_SUFFIXES, find_inputs, read_file
from ..writers import available_formats, write_papers
from .options import (
    OUTPUT_ANY,
    add_format_argument,
    add_grobid_arguments,
    add_limit_arguments,
    grobid_of,
    limits_of,
    skipped_line,
)

if TYPE_CHECKING:  # the HTTP client is imported only when a PDF is read
    from ..readers.grobid import GrobidClient

PROGRESS_EVERY_S = 5.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("inputs", nargs="+", metavar="INPUT", help="paper files or directories")
    parser.add_argument("-o", "--output", type=OUTPUT_ANY, metavar="OUT",
                        help="output file, or directory for several papers as xml "
                             "(default: stdout)")
    parser.add_argument("--to", default="xml", choices=available_formats(),
                        help="output format (default: xml: TEI for TEI input, else mode2)")
    add_format_argument(parser, "input format (default: auto, detected per file)",
                        checked=True)
    parser.add_argument("--strip-labels", action="store_true",
                        help="write the papers without any label (gold, predicted or "
                             "withheld): an unlabelled pool made of labelled papers")
    add_grobid_arguments(parser)
    add_limit_arguments(parser)


def run(args: argparse.Namespace) -> int:
    with limits_of(args):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    grobid = grobid_of(args)
    papers, errors, files = read_for_command("convert", args.inputs, args.format, grobid)
    if args.strip_labels:
        strip_labels(papers)
    if args.to in TREELESS_FORMATS:
        release_sources(papers)
    # the papers are not used again: mode2 may label their own trees, not copies
    written = write_papers(papers, args.to, args.output, inputs=files,
                           as_directory=wants_directory(args.inputs), consume=True)
    if written:
        where = written[0] if written[0] == Path(args.output) else \
            f"{str(args.output).rstrip('/')}/"
        print(f"[coresc] wrote {len(papers)} paper(s) as {args.to} to {where}", file=sys.stderr)
    return report_errors("convert", errors, len(files), find_inputs(args.inputs).skipped)


def strip_labels(papers: Sequence[Paper]) -> None:
    """Drop every label of ``papers``: gold, predictions and withheld ones (the XML
    writers then remove the source's label elements too)."""
    for paper in papers:
        paper.meta.pop("min_score", None)
        for s in paper.sentences():
            s.gold, s.pred, s.withheld = [], [], None


def wants_directory(inputs: Sequence[str | Path]) -> bool:
    """A directory (or several files) in means a directory out, however many papers."""
    return len(inputs) > 1 or any(Path(p).is_dir() for p in inputs)


def read_for_command(command: str, inputs: Sequence[str | Path], fmt: str = "auto",
                     grobid: GrobidClient | str | None = None,
                     ) -> tuple[list[Paper], list[InputError], list[Path]]:
    """:func:`read_papers` with the command line's policy on failure.

    No input file at all, or no file readable, is an error (the unreadable files are
    listed first); otherwise the errors are returned to be reported after the output.
    """
    papers, errors, files = read_papers(inputs, fmt, grobid)
    if not files:
        skipped = find_inputs(inputs).skipped
        raise UsageError(f"{', '.join(map(str, inputs))}: no readable files found "
                         f"(looked for {' '.join(INPUT_SUFFIXES)}"
                         f"{'; ' + skipped_line(skipped) if skipped else ''})")
    if not papers:
        if len(errors) == 1:
            raise errors[0]
        report_errors(command, errors, len(files))
        raise UsageError(f"none of the {len(files)} input file(s) could be read")
    return papers, errors, files


def read_papers(inputs: Sequence[str | Path], fmt: str = "auto",
                grobid: GrobidClient | str | None = None,
                ) -> tuple[list[Paper], list[InputError], list[Path]]:
    """Read every input file; return ``(papers, errors, files)`` without stopping at errors.

    A file that reads to no sentence at all is an error too: there is nothing to label.
    ``grobid``: the server PDFs are read through (see :func:`coresc.readers.read_file`).
    """
    found = find_inputs(inputs)
    files = found.files
    papers: list[Paper] = []
    errors: list[InputError] = list(found.problems)
    start = last = time.monotonic()
    for i, path in enumerate(files, start=1):
        try:
            got = read_file(path, fmt, grobid)
            if any(len(p) == 0 for p in got):
                fmt_read = got[0].source_format or fmt
                raise InputError(path, f"no sentences found (read as {fmt_read})")
            papers.extend(got)
        except InputError as exc:
            errors.append(exc)
        except (ValueError, TypeError, KeyError, IndexError, AttributeError,
                RecursionError) as exc:
            # A reader bug on an odd file must not hide the other files' results.
            errors.append(InputError(path, f"reader failed ({type(exc).__name__}: {exc}); "
                                           f"please report this"))
        now = time.monotonic()
        if now - last >= PROGRESS_EVERY_S and i < len(files):
            last = now
            left = (now - start) / i * (len(files) - i)
            print(f"[coresc] read {i}/{len(files)} files, {left:.0f}s left", file=sys.stderr)
    # what a directory walk could not read counts among the inputs, as a failed one
    return papers, errors, files + [Path(e.path) for e in found.problems]


def report_errors(command: str, errors: list[InputError], n_files: int,
                  skipped: Sequence[Path] = ()) -> int:
    """List skipped files and the files that could not be read on stderr.

    Returns the exit code: 1 when a file could not be read, else 0 (skipping files of
    other types in a directory is not a failure).
    """
    if skipped:
        print(f"coresc {command}: {skipped_line(skipped)}", file=sys.stderr)
    for exc in errors:
        print(f"coresc {command}: error: {exc}", file=sys.stderr)
    if errors:
        print(f"coresc {command}: {len(errors)} of {n_files} file(s) could not be read",
              file=sys.stderr)
    return 1 if errors else 0
