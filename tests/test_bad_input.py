"""Bad input: one line naming the file and the problem, non-zero exit, no output, no traceback."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from coresc.cli import main

# fixture file -> words the one-line message must contain
BAD_FILES = {
    "io_malformed.xml": "malformed XML",
    "io_empty.xml": "empty",
    "io_binary.xml": "binary",
    "io_unknown_root.xml": "unknown XML format (root element <foo>)",
    "io_latin1.xml": "not UTF-8",
    "io_entity_bomb.xml": "entit",
    "io_xxe.xml": "external entities",
}


@pytest.fixture
def workdir(tmp_path, fixtures):
    """A copy of every bad fixture in its own directory (inputs must stay untouched)."""
    d = tmp_path / "in"
    d.mkdir()
    for name in BAD_FILES:
        shutil.copy(fixtures / name, d / name)
    return d


def snapshot(directory):
    return {p.relative_to(directory): p.read_bytes() for p in directory.rglob("*")
            if p.is_file()}


@pytest.mark.parametrize("to", ["xml", "jsonl", "tsv"])
@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_bad_file_one_line_no_output(name, to, workdir, tmp_path, capsys):
    before = snapshot(tmp_path)
    src = workdir / name
    out = tmp_path / f"out.{to}"
    assert main(["convert", str(src), "--to", to, "-o", str(out)]) != 0
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert str(src) in lines[0] and BAD_FILES[name] in lines[0]
    assert snapshot(tmp_path) == before  # input untouched, no output, no .part file


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_bad_file_to_stdout_prints_nothing(name, workdir, capsys):
    assert main(["convert", str(workdir / name)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.strip().splitlines()) == 1


def test_unknown_format_forced_on_non_xml(tmp_path, capsys):
    f = tmp_path / "words.xml"
    f.write_text("just some words, not XML at all\n")
    assert main(["convert", str(f), "--format", "art"]) == 2
    assert f"{f}: not XML, cannot read as art" in capsys.readouterr().err


def test_text_named_xml_is_refused_unless_read_as_text(tmp_path, capsys):
    f = tmp_path / "words.xml"
    f.write_text("just some words, not XML at all <\n")
    assert main(["convert", str(f)]) == 2
    assert f"{f}: named .xml but is not XML" in capsys.readouterr().err
    assert main(["convert", str(f), "--format", "text", "--to", "jsonl"]) == 0
    assert "just some words" in capsys.readouterr().out


def test_missing_input(tmp_path, capsys):
    missing = tmp_path / "nope.xml"
    assert main(["convert", str(missing)]) == 2
    err = capsys.readouterr().err
    assert str(missing) in err and "cannot read" in err


def test_directory_good_files_done_bad_ones_listed(workdir, fixtures, tmp_path, capsys):
    shutil.copy(fixtures / "io_art_small.xml", workdir / "good.xml")
    before = snapshot(workdir)
    out = tmp_path / "out"
    assert main(["convert", str(workdir), "-o", str(out)]) == 1
    assert sorted(p.name for p in out.iterdir()) == ["good.xml"]  # nothing else, no .part
    err = capsys.readouterr().err.strip().splitlines()
    for name, problem in BAD_FILES.items():
        [line] = [e for e in err if name in e]
        assert problem in line
    assert err[-1].endswith(f"{len(BAD_FILES)} of {len(BAD_FILES) + 1} file(s) could not be read")
    assert snapshot(workdir) == before


def test_directory_of_only_bad_files(workdir, tmp_path, capsys):
    out = tmp_path / "all.jsonl"
    assert main(["convert", str(workdir), "--to", "jsonl", "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    # one line per bad file, the count, then the final error
    assert len(err) == len(BAD_FILES) + 2
    assert err[-1].endswith(f"none of the {len(BAD_FILES)} input file(s) could be read")
    assert not out.exists()


def test_failed_write_leaves_no_partial_file(fixtures, tmp_path, monkeypatch, capsys):
    """A writer failing half-way leaves neither the target nor a temporary file."""
    from coresc.writers import jsonl

    def broken(papers, fh):
        fh.write('{"half": ')
        raise OSError("disk full")

    monkeypatch.setattr(jsonl, "write_jsonl", broken)
    out = tmp_path / "o.jsonl"
    assert main(["convert", str(fixtures / "io_art_small.xml"), "--to", "jsonl",
                 "-o", str(out)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"coresc convert: error: {out}: cannot write (disk full)")  # one line, no traceback
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["io_malformed.xml", "io_entity_bomb.xml", "io_xxe.xml",
                                  "io_binary.xml"])
def test_subprocess_no_traceback(name, workdir, tmp_path):
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    proc = subprocess.run(
        [sys.executable, "-m", "coresc", "convert", str(workdir / name),
         "-o", str(tmp_path / "o.xml")],
        capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1 and str(workdir / name) in proc.stderr
    assert proc.stdout == ""
    assert not (tmp_path / "o.xml").exists()
