"""The ``coresc`` command: one verb per module in :mod:`coresc.commands`.

Each command module has a docstring (its help), ``add_arguments(parser)`` and
``run(args) -> int``, so everything the command line does can also be imported.
"""

from __future__ import annotations

import argparse
import codecs
import importlib
import io
import signal
import sys
from typing import NoReturn

from ._version import __version__
from .document import name_text
from .errors import CorescError
from .extras import missing_module_error

COMMANDS = (
    "convert", "train", "annotate", "evaluate", "compare", "experiment", "report",
    "agreement", "consensus", "view", "model-info", "serve", "review", "select",
)


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage error said in one line (and where the help is), not after
    the whole usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see: {self.prog} --help)\n")


def _name_escape(exc: UnicodeError) -> tuple[str, int]:
    """The codec error handler of standard error: a file name's bytes that are not UTF-8
    (lone surrogates) as ``\\xNN`` (:func:`~coresc.document.name_text`); anything else
    the stream cannot hold as ``\\u`` escapes."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    bad = exc.object[exc.start:exc.end]
    return "".join(name_text(c) if "\ud800" <= c <= "\udfff" else
                   c.encode("ascii", "backslashreplace").decode("ascii") for c in bad), exc.end


def _streams_take_any_name() -> None:
    """Let a file name that is not UTF-8 be printed (issue 53: a traceback, before): on
    standard error as ``ls -b`` shows it (``paper-\\xff.txt``), on standard output as its
    own bytes, so a list of paths (``coresc select``) names the files it lists."""
    codecs.register_error("coresc-names", _name_escape)
    for stream, errors in ((sys.stderr, "coresc-names"), (sys.stdout, "surrogateescape")):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors=errors)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="coresc",
        description="Label the sentences of scientific papers with CoreSC discourse roles.",
    )
    parser.add_argument("--version", action="version", version=f"coresc {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        module = importlib.import_module(f"coresc.commands.{name.replace('-', '_')}")
        doc = (module.__doc__ or "").strip()
        cmd = sub.add_parser(name, help=doc.splitlines()[0] if doc else None,
                             description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
        module.add_arguments(cmd)
        cmd.set_defaults(_run=module.run, _parser=cmd)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point: run a verb, report user errors as one line, exit non-zero on failure."""
    argv = list(sys.argv[1:] if argv is None else argv)
    _streams_take_any_name()
    parser = build_parser()
    if not argv:  # a bare `coresc`: what it can do, not just an error
        parser.print_help(sys.stderr)
        return 2
    args, extra = parser.parse_known_args(argv)
    if extra:  # said by the verb's parser, so that the line names the verb and its help
        args._parser.error(f"unrecognized arguments: {' '.join(extra)}")
    args._argv = argv  # to say how to run it again
    try:
        from .commands.options import check_arguments

        check_arguments(args._parser, args)  # outputs and numbers, before any work
        return int(args._run(args) or 0)
    except CorescError as exc:
        print(f"coresc {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as exc:  # an optional dependency, or a broken install
        print(f"coresc {args.command}: error: {missing_module_error(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"coresc {args.command}: interrupted", file=sys.stderr)
        return 128 + signal.SIGINT
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
