"""Review and correct a model's labels in the browser, saved as gold (needs coresc[serve]).

Opens a local web application over PAPERS (files or folders in any format coresc reads;
papers without predicted labels are annotated by --model first) and prints its address.
Keyboard first: Enter accepts the shown labels and moves on, one letter sets the primary
label, Shift+letter adds a secondary one, - says the sentence has no CoreSC label
(acknowledgements, funding), z undoes, n jumps to the next unreviewed uncertain
sentence; the page shows the key map. Every decision is saved at once into
DIR/ANNOTATOR/<paper id>.xml (mode2: reviewed sentences are gold, unreviewed ones keep
the model's label as 'withheld', i.e. no label), so `coresc evaluate`, `agreement`,
`consensus` and `train` read what a person reviewed, and nothing else. Stopping and
starting again resumes where it was. One `coresc review` per folder and annotator at a
time. The page can switch to a model adapted to the reviewed papers (`coresc train
--from`, written to DIR/ANNOTATOR-adapted-model). See docs/review.md.

--adjudicate A B: a third person settles where two annotators disagree. The page shows
only the sentences A and B labelled differently, with both choices (1 takes A's, 2 takes
B's, a letter sets another label); DIR/ANNOTATOR/ gets the agreed labels and the
settled ones as gold.

examples:
  coresc review paper1.nxml paper2.nxml paper3.nxml --annotator alice -o reviews/
  coresc select papers/ --budget 5 --scores -o next.txt
  coresc review --from-list next.txt --annotator alice -o reviews/
  coresc agreement reviews/alice reviews/bob
  coresc review --adjudicate reviews/alice reviews/bob --annotator carol -o reviews/
  coresc train reviews/alice --from accurate -o my-field-model/
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
from pathlib import Path

from ..errors import UsageError
from .options import (
    OUTPUT_DIR,
    TOKEN_ENV,
    add_format_argument,
    add_list_argument,
    add_listen_arguments,
    add_model_argument,
    keep_listed,
    listed_paths,
    listen,
    read_list,
    url_host,
)

_ANNOTATOR = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("papers", nargs="*", metavar="PAPER",
                        help="paper files or folders (any format coresc reads)")
    parser.add_argument("--adjudicate", nargs=2, metavar=("A", "B"),
                        help="settle the disagreements of two annotators' folders (instead "
                             "of PAPERs)")
    parser.add_argument("--annotator", required=True, metavar="NAME",
                        help="who reviews (letters, digits, '.', '_', '-'): the files go "
                             "to DIR/NAME/")
    parser.add_argument("-o", "--output", type=OUTPUT_DIR, required=True, metavar="DIR",
                        help="folder of the reviewed files (one subfolder per annotator)")
    add_model_argument(parser, "model for papers without labels, and the source of an "
                               "adapted model: a directory or a bundled model ('accurate', "
                               "the default, or 'fast')")
    add_list_argument(parser, "papers to review")
    add_format_argument(parser)
    add_listen_arguments(parser, "; any other needs --token")
    parser.add_argument("--token", metavar="TOKEN",
                        help=f"require this token (default: ${TOKEN_ENV}, else none); the "
                             "printed address carries it")


def run(args: argparse.Namespace) -> int:
    from ..extras import require

    require("serve")
    token = args.token or os.environ.get(TOKEN_ENV) or None
    loopback = _check(args, token)
    for listed in args.from_list:  # a bad list is refused before anything is written
        read_list(listed)
    folder = Path(args.output) / args.annotator
    _check_writable(Path(args.output))
    from ..review.lock import Lock

    lock = Lock(folder)
    lock.acquire()
    try:
        return _serve(args, folder, token, loopback)
    finally:
        lock.release()


def _serve(args: argparse.Namespace, folder: Path, token: str | None, loopback: bool) -> int:
    import uvicorn

    from ..review.adapt import Adapter
    from ..review.app import Settings, create_app
    from ..review.store import open_store

    spec = args.model or os.environ.get("CORESC_MODEL") or "accurate"
    if args.adjudicate:
        from ..review.adjudicate import open_adjudication

        store = open_adjudication(folder, args.annotator, args.adjudicate, _say)
        papers = store.papers
    else:
        papers = _papers(args)
        annotator = _Annotator(spec)
        store = open_store(folder, args.annotator, papers, spec, annotator, _say,
                           annotator.labels)
    adapter = Adapter(store, spec, Path(args.output) / f"{args.annotator}-adapted-model",
                      _Annotator)
    sock = listen(args.host, args.port)
    try:
        app = create_app(store, adapter, Settings(token, loopback))
        host, port = sock.getsockname()[:2]
        url = f"http://{url_host(host)}:{port}/"
        what = "adjudication" if args.adjudicate else "review"
        print(f"[coresc] {what} of {len(papers)} paper(s) by {args.annotator} on {url} "
              f"(saved in {folder}; Ctrl-C stops)", file=sys.stderr, flush=True)
        if token:
            print(f"[coresc] open {url}?token={token} (it sets a cookie for this browser)",
                  file=sys.stderr, flush=True)
        config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=5)
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
    return 0


def _check(args: argparse.Namespace, token: str | None) -> bool:
    """Whether the server listens on loopback only; refuses bad options."""
    from ..readers.grobid import _is_loopback as is_loopback

    if bool(args.adjudicate) == bool(args.papers or args.from_list):
        raise UsageError("give the PAPERs to review (or --from-list FILE), or --adjudicate "
                         "A B (two annotators' folders), not both")
    if not _ANNOTATOR.match(args.annotator):
        raise UsageError(f"--annotator {args.annotator!r}: use 1 to 64 letters, digits, '.', "
                         "'_' or '-', starting with a letter or digit")
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be 0 to 65535 (got {args.port})")
    loopback = is_loopback(args.host)
    if not loopback and token is None:
        raise UsageError(f"--host {args.host}: listening beyond this machine needs --token "
                         f"(or ${TOKEN_ENV})")
    return loopback


def _check_writable(out: Path) -> None:
    """The output folder exists or can be made, and a file can be written in it."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"{out}: exists and is not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".coresc-review-", dir=out)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise UsageError(f"{out}: cannot write in this folder ({exc.strerror or exc})") from None


def _papers(args: argparse.Namespace) -> list:
    """The papers to review: PAPERs, and those the --from-list files name."""
    entries = [e for f in args.from_list for e in read_list(f)]
    return keep_listed(_read([*args.papers, *listed_paths(entries)], args.format), entries,
                       args.papers)


def _read(paths: list[str], fmt: str) -> list:
    """The readable papers; one line for each that cannot be read (the others go on)."""
    from ..readers import read_inputs
    from ..writers import file_stem

    result = read_inputs(paths, fmt)
    for error in result.errors:
        _say(f"{error} (skipped)")
    papers, seen = [], {}
    for paper in result.papers:
        stem = file_stem(paper.id).lower()
        if stem in seen:
            _say(f"{paper.source_path}: paper id {paper.id!r} is also {seen[stem]}'s; "
                 "skipped (one file per paper id)")
            continue
        if not len(paper):
            _say(f"{paper.source_path}: no sentences (skipped)")
            continue
        seen[stem] = paper.source_path
        papers.append(paper)
    if not papers:
        raise UsageError(f"{', '.join(paths)}: no paper to review")
    return papers


class _Annotator:
    """Labels papers with the model ``spec`` (loaded at its first use)."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.model = None

    def __call__(self, papers: list) -> None:
        if self.model is None:
            from ..pipeline import open_model

            self.model = open_model(self.spec)
        self.model.annotate(papers)

    def labels(self) -> tuple[str, ...]:
        """The model's labels, once it is loaded (its scheme's keys on the page)."""
        return () if self.model is None else tuple(self.model.labels_)


def _say(line: str) -> None:
    print(f"coresc review: {line}", file=sys.stderr, flush=True)
