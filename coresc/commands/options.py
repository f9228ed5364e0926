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
import math
import os
import socket
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UsageError

if TYPE_CHECKING:  # the HTTP client is imported only when a PDF is read
    from ..readers.grobid import GrobidClient

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
        from ..readers import FORMATS

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
    from ..readers.grobid import grobid_client

    return grobid_client(getattr(args, "grobid", None), getattr(args, "grobid_timeout", None))


def add_limit_arguments(parser: argparse.ArgumentParser, annotating: bool = False) -> None:
    """The limits of :mod:`coresc.limits` a user can change (see docs/robustness.md)."""
    from ..limits import DEFAULT_MAX_INPUT_MB, DEFAULT_MAX_SENTENCE_WORDS

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
    from ..limits import limits

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

    from ..model.provenance import paper_fingerprint

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


# ---------------------------------------------------------------- paper lists

#: The largest paper list read (a list of a million papers is 100 MB at most).
MAX_LIST_BYTES = 100 * 2**20


def add_list_argument(parser: argparse.ArgumentParser, what: str) -> None:
    """``--from-list FILE`` (repeatable): the papers a list names, as ``select -o``
    writes it (see :func:`read_list`)."""
    parser.add_argument("--from-list", action="append", default=[], metavar="FILE",
                        help=f"{what} named in FILE, one a line: a path (or path#id for one "
                             "paper of a file of several), then anything after a tab; '#' "
                             "lines are comments: the list `coresc select -o` saves")


def read_list(path: str | Path) -> list[tuple[str, str | None]]:
    """The papers a list file names: per line, ``(path, None)`` for a whole file or
    folder, ``(path, id)`` for ``path#id`` (one paper of a file that holds several).

    A line's path is what comes before its first tab (``select --scores`` puts its
    numbers after); blank lines and lines starting with ``#`` are skipped; paths are as
    ``coresc select`` printed them, relative to the current folder. A path that names
    nothing, or a list that names no paper, is an :class:`~coresc.errors.InputError`
    naming the list and the line.
    """
    from ..errors import InputError

    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_LIST_BYTES + 1)
    except OSError as exc:
        raise InputError(path, exc.strerror or str(exc)) from None
    if len(data) > MAX_LIST_BYTES:
        raise InputError(path, f"a paper list of over {MAX_LIST_BYTES // 2**20} MB")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(path, f"not a UTF-8 text list of papers (byte {exc.start})") from None
    entries: list[tuple[str, str | None]] = []
    for n, line in enumerate(text.splitlines(), start=1):
        name = line.split("\t", 1)[0].rstrip()
        if not name.strip() or name.lstrip().startswith("#"):
            continue
        if "\0" in name:
            raise InputError(path, f"line {n}: holds a NUL character, not a path")
        head, _, paper_id = name.rpartition("#")
        if _exists(name):
            entries.append((name, None))
        elif head and paper_id and _exists(head):
            entries.append((head, paper_id))
        else:
            raise InputError(path, f"line {n}: {name}: no such file or folder")
    if not entries:
        raise InputError(path, "names no paper (one path a line; '#' lines are comments)")
    return entries


def listed_paths(entries: Sequence[tuple[str, str | None]]) -> list[str]:
    """The files and folders ``entries`` name, each once, in order."""
    return list(dict.fromkeys(p for p, _ in entries))


def keep_listed(papers: Sequence, entries: Sequence[tuple[str, str | None]],
                whole: Iterable[str | Path] = ()) -> list:
    """``papers`` (read from :func:`listed_paths` and ``whole``) less those of a file
    listed by paper id whose id is not listed; a listed id the file lacks is an
    :class:`~coresc.errors.InputError`."""
    from ..errors import InputError

    def key(p: str | Path) -> str:
        try:
            return str(Path(p).resolve())
        except (OSError, RuntimeError):
            return str(p)

    everything = {key(p) for p, i in entries if i is None} | {key(p) for p in whole}
    wanted: dict[str, set[str]] = {}
    for p, i in entries:
        if i is not None and key(p) not in everything:
            wanted.setdefault(key(p), set()).add(i)
    kept, found = [], set()
    for paper in papers:
        where = key(paper.source_path) if paper.source_path else None
        ids = wanted.get(where) if where is not None else None
        if ids is None or paper.id in ids:
            kept.append(paper)
        if ids is not None:
            found.add((where, paper.id))
    read = {where for where, _ in found}  # a file that could not be read is reported apart
    for p, i in entries:
        if i is not None and key(p) in read and (key(p), i) not in found:
            raise InputError(p, f"no paper {i!r} in it (listed as {p}#{i})")
    return kept


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


# ---------------------------------------------------------------- outputs and numbers

#: Folders no output belongs in: the kernel's views of processes and devices.
FORBIDDEN_ROOTS = (Path("/proc"), Path("/sys"))


class Output:
    """The ``type`` of an option naming what a verb writes: ``kind`` is "file",
    "folder" or "file or folder". Parsing keeps the text; :func:`check_arguments`
    checks it."""

    __name__ = "output"  # argparse names the type in its messages

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def __call__(self, value: str) -> str:
        return value

    def __repr__(self) -> str:
        return f"Output({self.kind!r})"


OUTPUT_FILE = Output("file")
OUTPUT_DIR = Output("folder")
OUTPUT_ANY = Output("file or folder")


class BoundedInt:
    """The ``type`` of an integer option with a range (``high`` None: no upper bound)."""

    __name__ = "int"

    def __init__(self, low: int, high: int | None = None) -> None:
        self.low, self.high = low, high

    def __call__(self, value: str) -> int:
        return int(value)

    def check(self, flag: str, value: int) -> None:
        if value < self.low or (self.high is not None and value > self.high):
            wanted = (f"at least {self.low}" if self.high is None
                      else f"from {self.low} to {self.high}")
            raise UsageError(f"{flag} {value}: must be {wanted}")

    def __repr__(self) -> str:
        return f"BoundedInt({self.low}, {self.high})"


#: ``--budget``: papers to choose.
BUDGET = BoundedInt(1)


class FiniteFloat:
    """The ``type`` of a number option: NaN and the infinities are no setting (issue 42:
    ``--c1 nan`` passed every ``< 0`` test and was taken)."""

    __name__ = "float"

    def __call__(self, value: str) -> float:
        return float(value)

    def check(self, flag: str, value: float) -> None:
        if not math.isfinite(value):
            raise UsageError(f"{flag} {value}: must be a finite number")

    def __repr__(self) -> str:
        return "FiniteFloat()"


#: ``type=`` of every option that takes a number with a fraction.
FLOAT = FiniteFloat()


def check_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Check a parsed verb's bounded numbers and output targets before any work.

    * an output may not be an empty or blank name, lie inside ``/proc`` or ``/sys``, sit
      under a file, be the wrong kind (a folder where a file is written, or the reverse),
      be in a folder that cannot be written, or be an input: by resolved path or as the
      same file (links count), a file inside an input folder counting as an input; every
      other argument naming an existing path is an input;
    * a number must lie in its range (``--budget`` >= 1, ...), and be finite.

    Raises :class:`UsageError` (one line, exit 2). ``tests/test_output_rule.py`` finds
    every verb's output options and runs each through the same hostile set.
    """
    outputs, inputs = [], []
    for action in parser._actions:
        value = getattr(args, action.dest, None)
        flag = action.option_strings[-1] if action.option_strings else action.dest
        if value is None:
            continue
        if isinstance(action.type, (BoundedInt, FiniteFloat)):
            for v in value if isinstance(value, list) else [value]:
                action.type.check(flag, v)
        elif isinstance(action.type, Output):
            outputs.append((flag, value, action.type.kind))
        else:
            inputs += [v for v in (value if isinstance(value, list) else [value])
                       if isinstance(v, str) and v not in ("", "-") and _exists(v)]
    for flag, value, kind in outputs:
        check_output(flag, value, kind, inputs)


def check_output(flag: str, out: str, kind: str, inputs: Iterable[str | Path]) -> None:
    """One output target against the rule; :class:`UsageError` naming it when it breaks."""
    from ..batch.outputs import is_url
    from ..writers import STDOUT_NAMES, refuse_overwriting_inputs

    if kind != "folder" and out in STDOUT_NAMES:
        return
    if not out.strip():
        raise UsageError(f"{flag} {out!r}: an empty or blank name names no {kind}")
    if kind == "file or folder" and is_url(out):
        return  # a cluster's shared store (annotate --scheduler): checked where it is opened
    try:
        if "\0" in out:
            raise ValueError("a NUL character")
        os.fsencode(out)
    except (ValueError, UnicodeError) as exc:
        raise UsageError(f"{flag} {out!r}: not a file name ({exc})") from None
    path = Path(out)
    try:
        resolved = path.resolve()
    except (OSError, RuntimeError):  # a loop of links
        raise UsageError(f"{out}: cannot write (a loop of symbolic links)") from None
    for root in FORBIDDEN_ROOTS:
        if any(p == root or root in p.parents
               for p in (resolved, Path(os.path.abspath(out)))):
            raise UsageError(f"{out}: cannot write inside {root} (the kernel's view of the "
                             "system, not a place for output)")
    _check_kind(out, path, kind)
    _check_writable(out, resolved if path.is_dir() else resolved.parent)
    if path.is_dir():  # a verb writing into a folder checks the names it plans there
        return
    refuse_overwriting_inputs(out, inputs)


def _check_kind(out: str, path: Path, kind: str) -> None:
    from ..writers import check_output_path

    check_output_path(out)  # a file where a folder should be, names too long
    if kind == "file" and path.is_dir():
        raise UsageError(f"{out}: is a folder; a file is written here")
    if kind == "folder" and path.exists() and not path.is_dir():
        raise UsageError(f"{out}: exists and is not a folder")


def _check_writable(out: str, folder: Path) -> None:
    """The nearest existing folder on the way to ``out`` can be written in."""
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"{out}: cannot write ({folder} is not writable)")


def _exists(value: str) -> bool:
    try:
        return os.path.lexists(value)
    except (OSError, ValueError):  # a NUL byte, a name too long
        return False
