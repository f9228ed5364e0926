"""`coresc select` lists each paper once (issue 37): the same file given twice, a JSONL
file whose papers share an id, and a pool read from standard input (it printed None)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

from helpers import run_cli

TEXT = "Introduction\n\nWe measured the weight of the rats. It rose sharply.\n"


def _select(argv: list[str], capsys) -> tuple[int, list[str], str]:
    rc, out, err = run_cli(["select", *argv, "--model", "fast"], capsys)
    return rc, out.splitlines(), err


def test_the_same_file_twice_is_one_paper(tmp_path: Path, capsys) -> None:
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text(TEXT)
    b.write_text(TEXT.replace("rats", "mice"))
    link = tmp_path / "link.txt"
    link.symlink_to(a)
    rc, lines, err = _select([str(a), str(a), str(link), str(b), "--budget", "3"], capsys)
    assert rc == 0, err
    assert sorted(lines) == sorted([str(a), str(b)]), lines
    assert "given more than once" in err


def test_duplicate_ids_in_jsonl_are_listed_once(tmp_path: Path, capsys) -> None:
    pool = tmp_path / "pool.jsonl"
    rows = [{"id": "p1", "sentences": ["We saw it.", "It grew."]},
            {"id": "p1", "sentences": ["We saw it.", "It grew."]},
            {"id": "p2", "sentences": ["Rats ate.", "Mice slept."]}]
    pool.write_text("".join(json.dumps(r) + "\n" for r in rows))
    rc, lines, err = _select([str(pool), "--budget", "5"], capsys)
    assert rc == 0, err
    assert sorted(lines) == [f"{pool}#p1", f"{pool}#p2"], lines
    assert "p1" in err and "more than once" in err


def test_a_pool_from_stdin_is_named(monkeypatch, capsys) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(TEXT.encode())))
    rc, lines, err = _select(["-", "--budget", "1"], capsys)
    assert rc == 0, err
    assert lines == ["-"], lines
