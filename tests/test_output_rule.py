"""One output rule for every verb that writes (issue 37).

Every option of every verb in ``cli.COMMANDS`` that names something written is found from
the parsers themselves (by its ``Output`` type, and by its name or help, so an option
declared without the type fails here), then run through one hostile set: each target must
be refused in one line with exit 2 *before the verb runs* (its ``run`` is replaced by one
that fails the test), and no input may change.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
from pathlib import Path

import pytest
from hostile import HOSTILE_OUTPUTS

from coresc import cli
from coresc.commands.options import BoundedInt, Output


def _verb_parsers() -> dict[str, argparse.ArgumentParser]:
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _looks_like_output(action: argparse.Action) -> bool:
    names = action.option_strings
    return ("-o" in names or any(n.startswith("--out") or n in ("--json", "--pages")
                                 for n in names)
            or bool(re.search(r"\bwrit", action.help or "", re.I)
                    and re.search(r"FILE|DIR|OUT|PATH", action.metavar or "")))


def _output_options() -> list[tuple[str, str, str]]:
    found = []
    for verb, parser in _verb_parsers().items():
        for action in parser._actions:
            if isinstance(action.type, Output):
                found.append((verb, action.option_strings[-1], action.type.kind))
    return found


OUTPUTS = _output_options()


def test_every_output_option_is_declared_as_one() -> None:
    """An option that looks like an output (``-o``, ``--out*``, ``--json``, help saying
    it writes) must carry an ``Output`` type, or the rule would skip it."""
    for verb, parser in _verb_parsers().items():
        for action in parser._actions:
            if action.option_strings and _looks_like_output(action) and not isinstance(
                    action.type, Output) and action.nargs != 0:
                pytest.fail(f"coresc {verb} {action.option_strings[0]}: names an output but "
                            "is not declared with an Output type (coresc.commands.options)")
    verbs = {v for v, _, _ in OUTPUTS}
    # the verbs that write files; a new one joins by declaring its option
    assert {"select", "compare", "train", "review", "evaluate", "annotate", "convert",
            "view", "consensus", "report"} <= verbs


def _argv(verb: str, parser: argparse.ArgumentParser, option: str, value: str,
          paper: str) -> list[str]:
    """A call of ``verb`` that parses: ``paper`` for every positional, a plausible value
    for each required option, and ``option value``."""
    argv = [verb]
    for action in parser._actions:
        if action.option_strings:
            if action.required and option not in action.option_strings:
                argv += [action.option_strings[0], _value(action, paper)]
        elif action.nargs != "?" and action.dest != "help":
            argv.append(paper)
    return [*argv, f"{option}={value}"]  # "--output=" is an empty value, "--seed=-1" a number


def _value(action: argparse.Action, paper: str) -> str:
    if isinstance(action.type, BoundedInt):
        return str(action.type.low)
    if action.choices:
        return str(next(iter(action.choices)))
    if isinstance(action.type, Output):
        return paper + ".out"
    return "a"


@pytest.fixture()
def place(tmp_path: Path) -> dict[str, Path]:
    inputs = tmp_path / "in"
    inputs.mkdir()
    paper = inputs / "p.txt"
    paper.write_text("Introduction\n\nWe measured the weight of the rats. It rose.\n")
    (inputs / "q.txt").write_text("We saw it. It was so.\n")
    (tmp_path / "afile").write_text("not a folder\n")
    (tmp_path / "adir").mkdir()
    (tmp_path / "link").symlink_to(paper)
    os.link(paper, tmp_path / "hard")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    return {"root": tmp_path, "in": inputs, "paper": paper}


def _hostile(kind: str, place: dict[str, Path]) -> list[tuple[str, str]]:
    """(output value, what the verb reads) pairs that must be refused."""
    root, paper, inputs = place["root"], str(place["paper"]), str(place["in"])
    names = {"in": paper, "dir": inputs, "file": str(root / "afile"), "tmp": str(root)}
    cases = [(value.format(**names), inputs if "{dir}" in value else paper)
             for value, _ in HOSTILE_OUTPUTS]
    if kind == "file":
        cases.append((str(root / "adir"), paper))
    if kind == "folder":
        cases.append((str(root / "afile"), paper))
    return cases


def _fail_if_run(verb: str, monkeypatch) -> None:
    module = importlib.import_module(f"coresc.commands.{verb.replace('-', '_')}")

    def ran(args):
        raise AssertionError(f"coresc {verb} ran although its output is bad")

    monkeypatch.setattr(module, "run", ran)


@pytest.mark.parametrize(("verb", "option", "kind"), OUTPUTS,
                         ids=[f"{v}{o}" for v, o, _ in OUTPUTS])
def test_every_output_refuses_the_hostile_set(verb, option, kind, place, monkeypatch,
                                              coresc_cli) -> None:
    _fail_if_run(verb, monkeypatch)
    parser = _verb_parsers()[verb]
    before = {p: p.read_bytes() for p in place["in"].iterdir()}
    for value, reads in _hostile(kind, place):
        argv = _argv(verb, parser, option, value, reads)
        rc, err = coresc_cli(argv)
        assert rc == 2, (argv, rc, err)
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"coresc {verb}: error: "), (argv, err)
        assert "Traceback" not in err
    assert {p: p.read_bytes() for p in place["in"].iterdir()} == before


@pytest.mark.parametrize(("verb", "option", "kind"), OUTPUTS,
                         ids=[f"{v}{o}" for v, o, _ in OUTPUTS])
def test_a_good_output_passes_the_rule(verb, option, kind, place, monkeypatch,
                                       coresc_cli) -> None:
    module = importlib.import_module(f"coresc.commands.{verb.replace('-', '_')}")
    monkeypatch.setattr(module, "run", lambda args: 0)
    target = place["root"] / "new" / ("out" if kind == "folder" else "out.txt")
    argv = _argv(verb, _verb_parsers()[verb], option, str(target), str(place["paper"]))
    rc, err = coresc_cli(argv)
    assert rc == 0, (argv, err)


def test_an_unwritable_folder_is_refused(place, monkeypatch, coresc_cli) -> None:
    # root may write anywhere, so the test tells the check the folder is read-only
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if Path(p) == place["root"]
                        / "adir" else real(p, mode))
    _fail_if_run("select", monkeypatch)
    rc, err = coresc_cli(["select", str(place["paper"]), "--budget", "1", "-o",
                     str(place["root"] / "adir" / "next.txt")])
    assert rc == 2 and "not writable" in err, err


NUMBERS = [(verb, action.option_strings[-1], action.type)
           for verb, parser in _verb_parsers().items() for action in parser._actions
           if isinstance(action.type, BoundedInt)]


def test_seed_resamples_and_budget_are_bounded_everywhere() -> None:
    """Every ``--seed``, ``--resamples`` and ``--budget`` of every verb has its range."""
    for verb, parser in _verb_parsers().items():
        for action in parser._actions:
            if set(action.option_strings) & {"--seed", "--resamples", "--budget"}:
                assert isinstance(action.type, BoundedInt), (verb, action.option_strings)


@pytest.mark.parametrize(("verb", "option", "bounds"), NUMBERS,
                         ids=[f"{v}{o}" for v, o, _ in NUMBERS])
def test_numbers_out_of_range_are_one_line(verb, option, bounds, place, monkeypatch,
                                           coresc_cli) -> None:
    _fail_if_run(verb, monkeypatch)
    parser = _verb_parsers()[verb]
    bad = [bounds.low - 1, -1] + ([bounds.high + 1, 10**12] if bounds.high else [])
    for value in bad:
        argv = _argv(verb, parser, option, str(value), str(place["paper"]))
        rc, err = coresc_cli(argv)
        assert rc == 2, (argv, err)
        assert len(err.strip().splitlines()) == 1 and option in err, (argv, err)
