"""File names that are not UTF-8 (issue 53, item 7): each route reads, writes and names
them, never a ``UnicodeEncodeError``.

A name's bytes that are not UTF-8 reach Python as lone surrogates (``os.fsdecode``);
coresc writes them where text goes as ``\\xNN`` (the paper id ``paper-\\xff``), and where
a path goes as the name's own bytes (``coresc select``'s list), so the file is found again.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fake_grobid import FakeGrobid
from helpers import TINY_PDF, need, pdf_pairs, run_cli
from lxml import etree
from lxml import html as lhtml

from coresc.commands.options import read_list
from coresc.document import name_text

TEXT = ("Introduction\n\nWe measured the binding energy of the complex. The results show a "
        "strong effect of the solvent. We conclude that the model holds.\n")


def _named(folder: Path, name: bytes, data: bytes) -> str:
    """A file whose name holds bytes that are not UTF-8; its path as Python names it."""
    path = os.path.join(os.fsencode(folder), name)
    with open(path, "wb") as fh:
        fh.write(data)
    return os.fsdecode(path)


def test_name_text_escapes_the_bytes_that_are_not_utf8() -> None:
    assert name_text(os.fsdecode(b"paper-\xff\xfe")) == "paper-\\xff\\xfe"
    assert name_text("caf\u00e9 \u4e2d") == "caf\u00e9 \u4e2d"  # UTF-8 names stay
    assert name_text("a\ud800") == "a\\ud800"  # a surrogate not from a file name
    assert name_text(os.fsdecode(b"p-\xff")) != name_text(os.fsdecode(b"p-\xfe"))
    assert name_text("a\x0bb\x1b\ufffe") == "a\\x0bb\\x1b\\ufffe"  # what XML cannot hold
    assert name_text("tab\tand\nnewline") == "tab\tand\nnewline"


def test_a_control_character_in_a_name_is_escaped_in_mode2(tmp_path, capsys):
    src = tmp_path / "a\x0bb.txt"  # a name Linux allows, which XML cannot hold
    src.write_text(TEXT)
    rc, out, err = run_cli(["annotate", str(src), "--model", "fast", "--to", "xml", "-o",
                            "-"], capsys)
    assert rc == 0, err
    assert etree.fromstring(out.encode()).find("mode2").get("name") == "a\\x0bb"


@pytest.mark.parametrize("to", ["jsonl", "tsv", "html", "xml"])
def test_a_text_file_named_in_bytes_is_annotated_to_every_format(to, tmp_path, capsys):
    src = _named(tmp_path, b"paper-\xff.txt", TEXT.encode())
    out = tmp_path / f"out.{to}"
    rc, _, err = run_cli(["annotate", src, "--model", "fast", "--to", to, "-o", str(out)],
                         capsys)
    assert rc == 0, err
    data = out.read_bytes().decode("utf-8")  # the output is UTF-8 throughout
    if to == "jsonl":
        assert {json.loads(line)["paper"] for line in data.splitlines()} == {"paper-\\xff"}
    elif to == "xml":
        assert etree.fromstring(out.read_bytes()).find("mode2").get("name") == "paper-\\xff"
    elif to == "html":
        assert "paper-\\xff.txt" in lhtml.fromstring(data).text_content()
    else:
        assert data.splitlines()[1].startswith("paper-\\xff\t")
    if to not in ("jsonl", "tsv"):
        return  # one paper to one XML or HTML file: no manifest
    manifest = Path(f"{out}.manifest.ndjson").read_text(encoding="utf-8").splitlines()
    assert json.loads(manifest[-1])["input"] == os.path.abspath(src)  # the name, back
    rc, _, err = run_cli(["annotate", src, "--model", "fast", "--to", to, "-o", str(out),
                          "--resume"], capsys)
    assert rc == 0 and "1 file(s) done before" in err


def test_a_folder_of_such_names_into_an_output_folder(tmp_path, capsys):
    (tmp_path / "in").mkdir()
    _named(tmp_path / "in", b"a-\xff.txt", TEXT.encode())
    _named(tmp_path / "in", b"a-\xfe.txt", TEXT.encode())  # the same id, once escaped
    out = os.fsdecode(os.path.join(os.fsencode(tmp_path), b"out-\xfd"))  # the folder too
    rc, _, err = run_cli(["annotate", str(tmp_path / "in"), "--model", "fast", "-o",
                          out + "/"], capsys)
    assert rc == 0, err
    assert sorted(p.name for p in Path(out).glob("*.xml")) == ["a-_xfe.xml", "a-_xff.xml"]


def test_a_pdf_named_in_bytes_is_read_and_a_bad_one_named_in_one_line(tmp_path, capsys):
    need("reportlab", "the PDF is made with reportlab (the test extra)")
    need("pypdfium2", "the embedded PDF reader needs pypdfium2 (the pdf extra)")
    from pdf_fixtures import one_column

    good = _named(tmp_path, b"pdf-\xfe.pdf", one_column())
    bad = _named(tmp_path, b"bad-\xfd.pdf", b"%PDF-1.4 not really")
    out = tmp_path / "out.jsonl"
    rc, _, err = run_cli(["annotate", good, bad, "--model", "fast", "--to", "jsonl", "-o",
                          str(out)], capsys)
    assert rc == 1
    assert {json.loads(line)["paper"] for line in out.read_text().splitlines()} == \
        {"pdf-\\xfe"}
    failed = [line for line in err.splitlines() if "error:" in line]
    assert len(failed) == 1 and "bad-\\xfd.pdf:" in failed[0], err


def test_select_lists_such_a_path_as_its_bytes_and_the_list_reads_back(tmp_path,
                                                                       monkeypatch):
    """In a child process: standard output is the real one, with the locale's encoding."""
    (tmp_path / "pool").mkdir()
    src = _named(tmp_path / "pool", b"paper-\xff.txt", TEXT.encode())
    env = dict(os.environ, LC_ALL="C.UTF-8", PYTHONIOENCODING="")
    run = subprocess.run([sys.executable, "-m", "coresc", "select", "pool", "--model", "fast",
                          "--budget", "1", "-o", "next.txt"], cwd=tmp_path, env=env,
                         capture_output=True)
    assert run.returncode == 0, run.stderr
    assert b"Traceback" not in run.stderr
    assert run.stdout == b"pool/paper-\xff.txt\n"
    assert (tmp_path / "next.txt").read_bytes() == run.stdout
    monkeypatch.chdir(tmp_path)  # the list's paths are relative, as select printed them
    assert read_list("next.txt") == [(os.path.relpath(src, tmp_path), None)]


def test_a_pdf_named_in_bytes_goes_to_grobid(tmp_path, capsys):
    """The GROBID route sends the name in its form: escaped, where it could not be
    encoded before."""
    src = _named(tmp_path, b"pdf-\xfe.pdf", TINY_PDF + b"%small\n")  # as small.pdf
    out = tmp_path / "out.jsonl"
    with FakeGrobid(pdf_pairs(tmp_path / "grobid")) as grobid:
        rc, _, err = run_cli(["annotate", src, "--grobid", grobid.url, "--model", "fast",
                              "--to", "jsonl", "-o", str(out)], capsys)
    assert rc == 0, err
    assert {json.loads(line)["paper"] for line in out.read_text().splitlines()} == \
        {"pdf-\\xfe"}

