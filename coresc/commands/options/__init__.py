"""The options several verbs share, each declared once, and what their values name.

A verb calls ``add_..._argument(parser)`` where the option belongs in its help, and the
matching function here to turn the value into what the layers take (``grobid_of``,
``limits_of``, ``listen``). No verb imports another verb: what two of them share is here.

Every option naming something a verb writes has ``type=OUTPUT_FILE``, ``OUTPUT_DIR`` or
``OUTPUT_ANY``, and every bounded number ``type=BoundedInt(low, high)``;
:func:`check_arguments`, called by :func:`coresc.cli.main` between parsing and running,
applies one rule to them all before any work (see its docstring).
"""

from __future__ import annotations

import argparse
import contextlib
import socket
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ...errors import UsageError
from .checks import (
    BUDGET,
    FLOAT,
    FORBIDDEN_ROOTS,
    OUTPUT_ANY,
    OUTPUT_DIR,
    OUTPUT_FILE,
    BoundedInt,
    FiniteFloat,
    Output,
    check_arguments,
    check_output,
)
from .lists import MAX_LIST_BYTES, add_list_argument, keep_listed, listed_paths, read_list

if TYPE_CHECKING:  # the HTTP client is imported only when a PDF is read
    from ...readers.grobid import GrobidClient

__all__ = [
    "BUDGET", "FLOAT", "FORBIDDEN_ROOTS", "FORMAT_HELP", "MAX_LIST_BYTES",
    "MAX_SKIPPED_NAMES", "MODEL_HELP", "MODEL_HELP_SHORT", "OUTPUT_ANY", "OUTPUT_DIR",
    "OUTPUT_FILE", "TOKEN_ENV", "BoundedInt", "FiniteFloat", "Output", "add_domain_argument",
    "add_format_argument", "add_grobid_arguments", "add_limit_arguments", "add_list_argument",
    "add_listen_arguments", "add_model_argument", "check_arguments", "check_output",
    "corpus_groups", "each_paper_once", "grobid_of", "keep_listed", "limits_of",
    "listed_paths", "listen", "read_list", "skipped_line", "url_host",
]

#: ``--model``: the help of ``annotate`` and ``evaluate``.
MODEL_HELP = ("model directory, or a bundled model: 'accurate' (the default, with a "
              "sentence encoder) or 'fast' (hand-built features only, 20x faster)")
#: ``--model``: the shorter help of ``select`` and ``serve`` (``review`` says more: its own).
MODEL_HELP_SHORT = "model directory, or a bundled model ('accurate', the default, or 'fast')"
#: ``--format`` without a list of choices (the readers check the name).
FORMAT_HELP = "input format (default: auto)"
#: Where ``--token`` is read from when it is not given (``coresc serve`` and ``review``).
TOKEN_ENV = "CORESC_TOKEN"
#: How many skipped file names a report lists before counting the rest.
MAX_SKIPPED_NAMES = 10


def add_model_argument(parser: argparse.ArgumentParser, help: str = MODEL_HELP) -> None:
    """``--model MODEL``: a model directory or a bundled model's name (see
    :func:`coresc.pipeline.open_model`); ``help`` says what the verb uses it for."""
    parser.add_argument("--model", metavar="MODEL", help=help)


def add_format_argument(parser: argparse.ArgumentParser, help: str = FORMAT_HELP,
                        checked: bool = False) -> None:
    """``--format``: the input format, ``auto`` to detect it; ``checked``: the parser
    refuses a name that is not a reader's (and the help lists them)."""
    choices = None
    if checked:
        from ...readers import FORMATS

        choices = ("auto", *FORMATS)
    parser.add_argument("--format", default="auto", choices=choices, help=help)


def add_domain_argument(parser: argparse.ArgumentParser) -> None:
    """``--domain NAME`` (checked against the model by :func:`coresc.pipeline.check_domain`)."""
    parser.add_argument("--domain", metavar="NAME",
                        help="treat the papers as papers of this training corpus: its "
                             "calibration map, and its domain weights in models trained "
                             "with --domains corpus; default: the pooled ones")


# ---------------------------------------------------------------- reading PDFs, limits


def add_grobid_arguments(parser: argparse.ArgumentParser) -> None:
    """``--grobid URL`` and ``--grobid-timeout``: how PDFs are read (see :func:`grobid_of`)."""
    parser.add_argument("--grobid", metavar="URL",
                        help="GROBID server that turns PDFs into TEI, e.g. "
                             "http://localhost:8070 (default: $CORESC_GROBID_URL; without "
                             "one, PDFs are read by coresc's embedded reader)")
    parser.add_argument("--grobid-timeout", type=FLOAT, metavar="SECONDS",
                        help="longest wait for GROBID's answer to one PDF (default: 120)")


def grobid_of(args: argparse.Namespace) -> GrobidClient | None:
    """The GROBID client the options ask for (``None``: PDFs are read by the embedded
    reader)."""
    from ...readers.grobid import grobid_client

    return grobid_client(getattr(args, "grobid", None), getattr(args, "grobid_timeout", None))


def add_limit_arguments(parser: argparse.ArgumentParser, annotating: bool = False) -> None:
    """The limits of :mod:`coresc.limits` a user can change (see docs/robustness.md)."""
    from ...limits import DEFAULT_MAX_INPUT_MB, DEFAULT_MAX_SENTENCE_WORDS

    parser.add_argument("--max-input-mb", type=FLOAT, metavar="MB",
                        help=f"refuse inputs larger than this (default "
                             f"{DEFAULT_MAX_INPUT_MB:g}, or $CORESC_MAX_INPUT_MB)")
    if annotating:
        parser.add_argument("--max-sentence-words", type=int, metavar="N",
                            help=f"POS-tag longer sentences in windows of N tokens (default "
                                 f"{DEFAULT_MAX_SENTENCE_WORDS}, or "
                                 f"$CORESC_MAX_SENTENCE_WORDS)")
        parser.add_argument("--paper-timeout", type=FLOAT, metavar="SECONDS",
                            help="fail a paper that takes longer to annotate (default: no "
                                 "limit, or $CORESC_PAPER_TIMEOUT)")


def limits_of(args: argparse.Namespace) -> contextlib.AbstractContextManager:
    """The limits the options give, set while the command runs (for its workers too)."""
    from ...limits import limits

    return limits(getattr(args, "max_input_mb", None), getattr(args, "max_sentence_words", None),
                  getattr(args, "paper_timeout", None))


# ---------------------------------------------------------------- inputs


def skipped_line(skipped: Sequence[Path]) -> str:
    """The report of the files of other types that INPUT folders held."""
    names = ", ".join(map(str, skipped[:MAX_SKIPPED_NAMES]))
    more = len(skipped) - MAX_SKIPPED_NAMES
    return (f"skipped {len(skipped)} file(s) of other types: {names}"
            f"{f' and {more} more' if more > 0 else ''}")


def corpus_groups(papers, corpora) -> list[str | None]:
    """Which corpus each paper is from, to stratify the intervals by: the folder
    argument it was read from when two or more folders are given (``coresc evaluate
    art-corpus/ cra-corpus/``), else its ``meta["corpus"]``."""
    folders = [Path(c).resolve() for c in corpora if Path(c).is_dir()]
    if len(folders) < 2:
        return [paper.meta.get("corpus") for paper in papers]
    out: list[str | None] = []
    for paper in papers:
        source = Path(paper.source_path).resolve() if paper.source_path else None
        out.append(next((str(f) for f in folders if source and source.is_relative_to(f)),
                        None))
    return out


def each_paper_once(papers: list, verb: str) -> tuple[list, list[dict[str, str]]]:
    """The papers to score, each once: a second copy of a paper (the same text, whatever
    its id or file: a file or folder given twice, a copy under another name) is left out
    with a note on standard error, since scoring it again would count its sentences
    twice and narrow the intervals (issue 42). Returns the papers kept and, per copy
    left out, ``{"paper": where, "same_as": where}``."""
    import sys

    from ...model.provenance import paper_fingerprint

    first: dict[str, object] = {}
    kept, repeats = [], []
    for paper in papers:
        key = paper_fingerprint(paper)
        if key in first:
            repeats.append({"paper": _where(paper), "same_as": _where(first[key])})
            continue
        first[key] = paper
        kept.append(paper)
    if repeats:
        r = repeats[0]
        how = "given twice" if r["paper"] == r["same_as"] else \
            f"the same text as {r['same_as']}"
        print(f"coresc {verb}: note: {len(repeats)} paper(s) given more than once are "
              f"scored once (the first: {r['paper']}, {how})", file=sys.stderr)
    return kept, repeats


def _where(paper) -> str:
    """A paper as a note names it: its file, and its id when the file may hold more."""
    path = str(paper.source_path) if paper.source_path else "-"
    return path if Path(path).stem == paper.id else f"{path}#{paper.id}"


# ---------------------------------------------------------------- listening


def add_listen_arguments(parser: argparse.ArgumentParser, note: str) -> None:
    """``--host`` and ``--port`` (``coresc serve`` and ``coresc review``)."""
    parser.add_argument("--host", default="127.0.0.1",
                        help=f"address to listen on (default 127.0.0.1: this machine "
                             f"only{note})")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000; 0: any "
                                                              "free port, printed at start)")


def listen(host: str, port: int) -> socket.socket:
    """The listening socket, bound before anything else starts, so that a port in use or
    a wrong address is one line, not a traceback from inside the server."""
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        return socket.create_server((host, port), family=family, backlog=512)
    except OSError as exc:
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None


def url_host(host: str) -> str:
    """``host`` as it stands in a URL (an IPv6 address in brackets)."""
    return f"[{host}]" if ":" in host else host
