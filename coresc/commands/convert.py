"""Convert papers between formats (mode2 XML, JSONL, TSV, HTML), keeping the labels they carry.

INPUT may be files or directories (read recursively: .xml .nxml .txt .jsonl). The
format of each file is detected unless --format is given. Output goes to stdout
without -o; several papers as xml need -o DIRECTORY (one <id>.xml each), jsonl and tsv
go into one file. Files that cannot be read are listed at the end; the good ones are
still converted, and the exit code is then 1 (2 when nothing could be read).

examples:
  coresc convert paper.nxml                        # mode2 XML on stdout
  coresc convert corpus/ -o out/ --to xml          # one out/<id>.xml per paper
  coresc convert corpus/ -o sentences.tsv --to tsv
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from ..document import Paper
from ..errors import InputError, UsageError
from ..readers import FORMATS, iter_input_files, read_file
from ..writers import available_formats, write_papers

PROGRESS_EVERY_S = 5.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("inputs", nargs="+", metavar="INPUT", help="paper files or directories")
    parser.add_argument("-o", "--output", metavar="OUT",
                        help="output file, or directory for several papers as xml "
                             "(default: stdout)")
    parser.add_argument("--to", default="xml", choices=available_formats(),
                        help="output format (default: xml, SAPIENTA mode2)")
    parser.add_argument("--format", default="auto", choices=("auto",) + FORMATS,
                        help="input format (default: auto, detected per file)")


def run(args: argparse.Namespace) -> int:
    papers, errors, files = read_for_command("convert", args.inputs, args.format)
    written = write_papers(papers, args.to, args.output, inputs=files,
                           as_directory=wants_directory(args.inputs))
    if written:
        where = written[0] if written[0] == Path(args.output) else f"{args.output}/"
        print(f"[coresc] wrote {len(papers)} paper(s) as {args.to} to {where}", file=sys.stderr)
    return report_errors("convert", errors, len(files))


def wants_directory(inputs: Sequence[str | Path]) -> bool:
    """A directory (or several files) in means a directory out, however many papers."""
    return len(inputs) > 1 or any(Path(p).is_dir() for p in inputs)


def read_for_command(command: str, inputs: Sequence[str | Path], fmt: str = "auto",
                     ) -> tuple[list[Paper], list[InputError], list[Path]]:
    """:func:`read_papers` with the command line's policy on failure.

    No input file at all, or no file readable, is an error (the unreadable files are
    listed first); otherwise the errors are returned to be reported after the output.
    """
    papers, errors, files = read_papers(inputs, fmt)
    if not files:
        raise UsageError(f"{', '.join(map(str, inputs))}: no readable files found "
                         f"(looked for .xml .nxml .txt .jsonl)")
    if not papers:
        if len(errors) == 1:
            raise errors[0]
        report_errors(command, errors, len(files))
        raise UsageError(f"none of the {len(files)} input file(s) could be read")
    return papers, errors, files


def read_papers(inputs: Sequence[str | Path], fmt: str = "auto",
                ) -> tuple[list[Paper], list[InputError], list[Path]]:
    """Read every input file; return ``(papers, errors, files)`` without stopping at errors.

    A file that reads to no sentence at all is an error too: there is nothing to label.
    """
    files = list(iter_input_files(inputs))
    papers: list[Paper] = []
    errors: list[InputError] = []
    start = last = time.monotonic()
    for i, path in enumerate(files, start=1):
        try:
            got = read_file(path, fmt)
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
    return papers, errors, files


def report_errors(command: str, errors: list[InputError], n_files: int) -> int:
    """List the files that could not be read on stderr; return the exit code (0 or 1)."""
    for exc in errors:
        print(f"coresc {command}: error: {exc}", file=sys.stderr)
    if errors:
        print(f"coresc {command}: {len(errors)} of {n_files} file(s) could not be read",
              file=sys.stderr)
    return 1 if errors else 0
