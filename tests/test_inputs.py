"""Input from anywhere: standard input, directories with other files, PDFs, and the battery
of bad inputs (one line each naming the file, and the server where GROBID is involved;
non-zero exit; the other papers still done)."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import sys

import pytest
from fake_grobid import FakeGrobid
from helpers import pdf_pairs, refused_port

from coresc.cli import main
from coresc.document import is_file_stub
from coresc.readers import find_inputs, read_data, read_file
from coresc.readers import grobid as grobid_module
from coresc.readers.grobid import ENV_VAR
from coresc.tei import TEI_NS


@pytest.fixture(autouse=True)
def no_env(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)


def set_stdin(monkeypatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def folder(path, files: dict):
    """Make ``path`` holding a copy of each source file under its new name."""
    path.mkdir()
    for name, src in files.items():
        shutil.copy(src, path / name)
    return path


def jsonl_papers(path) -> dict[str, int]:
    counts: dict[str, int] = {}
    for line in path.read_text().splitlines():
        rec = json.loads(line)
        counts[rec["paper"]] = counts.get(rec["paper"], 0) + 1
    return counts


# ---------------------------------------------------------------- standard input


def test_stdin_detected_like_a_file(fixtures, monkeypatch, capsys):
    set_stdin(monkeypatch, (fixtures / "jats_small.xml").read_bytes())
    assert main(["convert", "-", "--to", "tsv"]) == 0
    rows = capsys.readouterr().out.splitlines()[1:]
    [direct] = read_file(fixtures / "jats_small.xml")
    assert [r.split("\t")[5] for r in rows] == [s.text for s in direct.sentences()]
    assert {r.split("\t")[0] for r in rows} == {"stdin"}


def test_stdin_text_and_xml_out(monkeypatch, capsys):
    set_stdin(monkeypatch, b"A title\n\nWe measured it. It was large.\n")
    assert main(["convert", "-"]) == 0
    out = capsys.readouterr().out
    assert '<mode2 name="stdin"' in out and "We measured it." in out


def test_stdin_empty_is_one_line(monkeypatch, capsys):
    set_stdin(monkeypatch, b"  \n")
    assert main(["convert", "-"]) == 2
    assert capsys.readouterr().err.strip() == \
        "coresc convert: error: stdin: nothing on standard input"


def test_read_data_needs_no_file_name(fixtures):
    [paper] = read_data((fixtures / "tei_nobody.xml").read_bytes())
    assert paper.id == "data" and paper.source_path is None and len(paper) == 3
    [named] = read_data(b"Title line\n\nOne sentence here.", "notes.txt")
    assert named.id == "notes" and named.source_format == "text"


# ---------------------------------------------------------------- directories


def test_directory_lists_files_of_other_types(fixtures, tmp_path, capsys):
    d = tmp_path / "papers"
    (d / "sub").mkdir(parents=True)
    shutil.copy(fixtures / "jats_small.xml", d / "a.nxml")
    shutil.copy(fixtures / "text_small.txt", d / "sub" / "b.txt")
    for name in ("figure.png", "notes.docx", "sub/data.csv"):
        (d / name).write_bytes(b"\x89PNG\x00")
    (d / ".hidden").mkdir()
    (d / ".hidden" / "x.xml").write_text("<junk")  # hidden: neither read nor listed
    (d / ".DS_Store").write_bytes(b"\x00")
    found = find_inputs([d])
    assert [p.name for p in found.files] == ["a.nxml", "b.txt"]
    assert [p.name for p in found.skipped] == ["figure.png", "notes.docx", "data.csv"]
    assert main(["convert", str(d), "--to", "jsonl", "-o", str(tmp_path / "o.jsonl")]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == (f"coresc convert: skipped 3 file(s) of other types: {d / 'figure.png'}, "
                       f"{d / 'notes.docx'}, {d / 'sub' / 'data.csv'}")


def test_directory_of_only_other_types(tmp_path, capsys):
    (tmp_path / "a.png").write_bytes(b"\x89PNG")
    assert main(["convert", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "no readable files found (looked for .xml .nxml .txt .jsonl .pdf; skipped 1 " \
           "file(s) of other types:" in err


def test_directory_mixes_pdfs_and_xml(fixtures, tmp_path, capsys):
    pairs = pdf_pairs(tmp_path / "grobid")
    d = folder(tmp_path / "mixed", {
        "small.pdf": pairs / "small.pdf",
        "other.tei.xml": pairs / "other.tei.xml",
        "jats.nxml": fixtures / "jats_small.xml"})
    out = tmp_path / "out"
    with FakeGrobid(pairs) as server:
        assert main(["convert", str(d), "--grobid", server.url, "-o", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["jats.xml", "other.xml", "small.xml"]
    assert (out / "small.xml").read_bytes().count(f'xmlns="{TEI_NS}"'.encode()) >= 1
    assert b"<PAPER>" in (out / "jats.xml").read_bytes()


# ---------------------------------------------------------------- supporting-information stubs


@pytest.mark.parametrize(("text", "stub"), [
    ("(DOC)", True), ("(TIF)", True), ("(PDF)", True), ("(XLSX)", True), ("(MP4)", True),
    (" (DOCX) ", True), ("(PDF, ZIP)", True), ("(ZIP).", True),
    ("(XLSX) S2 Table.", False), ("(A)", False), ("(doc)", False), ("DOC", False),
    ("The probability density function (PDF) of c.", False), ("(TOOLONG)", False),
])
def test_file_stub(text, stub):
    assert is_file_stub(text) is stub


def test_every_reader_drops_stubs(fixtures, tmp_path):
    jats = (fixtures / "jats_small.xml").read_text().replace(
        "</caption>", "<p>(TIF)</p></caption>", 1)
    [paper] = read_data(jats.encode(), "j.xml")
    assert "(TIF)" not in [s.text for s in paper.sentences()]
    assert "(TIF)" in jats
    [text] = read_data(b"Title\n\nWe did it.\n\n(DOC)\n\nIt worked.", "t.txt")
    assert [s.text for s in text.sentences()] == ["Title", "We did it.", "It worked."]
    [lines] = read_data(b'{"sentences": ["We did it.", "(XLSX)"], "labels": ["x", "y"]}',
                        "l.jsonl")
    assert [s.text for s in lines.sentences()] == ["We did it."]
    mode2 = (b"<PAPER><ABSTRACT><s sid='1'>We did it.</s><s sid='2'>(PDF)</s></ABSTRACT>"
             b"<BODY><DIV><HEADER>Supporting information</HEADER><P><s sid='3'>(DOC)</s>"
             b"</P></DIV></BODY></PAPER>")
    [pre] = read_data(mode2, "m.xml")
    assert [s.text for s in pre.sentences()] == ["We did it."]
    assert [sec.heading for sec in pre.sections] == ["Abstract"]  # the emptied section goes


@pytest.mark.slow
def test_real_plos_supporting_information(shared_data):
    [paper] = read_file(shared_data / "jats" / "pone.0046493.nxml")
    texts = [s.text for s in paper.sentences()]
    assert not any(is_file_stub(t) for t in texts)
    assert "Genes and physical properties of recombinant lipolytic enzymes." in texts


# ---------------------------------------------------------------- the battery

GOOD = "tei_nobody.xml"


def _pdf(tmp_path, pairs, fixtures):
    return shutil.copy(pairs / "small.pdf", tmp_path / "paper.pdf")


def _scanned_pdf(tmp_path, pairs, fixtures):
    from pdf_fixtures import image_only

    f = tmp_path / "scan.pdf"
    f.write_bytes(image_only())
    return f


def _fake_pdf(tmp_path, pairs, fixtures):
    f = tmp_path / "paper.pdf"
    f.write_text("<html><body>Access denied</body></html>")
    return f


def _fake_xml(tmp_path, pairs, fixtures):
    f = tmp_path / "paper.nxml"
    f.write_text("not xml <")
    return f


def _tei_corpus(tmp_path, pairs, fixtures):
    f = tmp_path / "corpus.xml"
    f.write_text(f'<teiCorpus xmlns="{TEI_NS}"><TEI/></teiCorpus>')
    return f


def _copy(name):
    def make(tmp_path, pairs, fixtures):
        return shutil.copy(fixtures / name, tmp_path / name)
    return make


def _truncated_tei(tmp_path, pairs, fixtures):
    f = tmp_path / "cut.tei.xml"
    f.write_bytes((fixtures / "tei_grobid_small.xml").read_bytes()[:900])
    return f


#: input, GROBID server mode (None: no --grobid), what the one line says.
BATTERY = {
    "scanned PDF, no GROBID server": (_scanned_pdf, None, "has no text layer (a scanned "
                                                          "PDF?): run OCR on it first"),
    "GROBID busy (503) on every try": (_pdf, "busy", "stayed busy (HTTP 503) through 6 "
                                                     "attempts"),
    "GROBID too slow": (_pdf, "slow:5", "did not answer within 0.3s"),
    "GROBID not running": (_pdf, "refused", "(connection refused: is the server running?)"),
    "GROBID answers an HTML page": (_pdf, "not-tei", "answered with something other than "
                                                     "TEI (an HTML page)"),
    "GROBID finds no text (204)": (_pdf, "no-content", "extracted no content from the PDF"),
    "GROBID fails (500)": (_pdf, "error", "failed on this PDF (HTTP 500: [BAD_INPUT_DATA]"),
    ".pdf that is not a PDF": (_fake_pdf, None, "named .pdf but is not a PDF"),
    ".nxml that is not XML": (_fake_xml, None, "named .nxml but is not XML"),
    "teiCorpus": (_tei_corpus, None, "a teiCorpus (several TEI documents in one file)"),
    "TEI without text": (_copy("tei_empty.xml"), None, "no sentences found (read as tei)"),
    "truncated TEI": (_truncated_tei, None, "malformed XML"),
}


@pytest.mark.parametrize("case", sorted(BATTERY))
def test_bad_input_battery(case, fixtures, tmp_path, monkeypatch, capsys):
    make, mode, problem = BATTERY[case]
    monkeypatch.setattr(grobid_module, "_sleep", lambda s: None)  # 503 back-off
    pairs = pdf_pairs(tmp_path / "grobid")
    src = tmp_path / "in"
    src.mkdir()
    bad = make(src, pairs, fixtures)
    good = shutil.copy(fixtures / GOOD, src / GOOD)
    before = {p: p.read_bytes() for p in src.iterdir()}
    out = tmp_path / "out.jsonl"
    args = ["convert", str(bad), str(good), "--to", "jsonl", "-o", str(out)]
    url = None
    with contextlib.ExitStack() as stack:
        if mode == "refused":
            url = f"http://127.0.0.1:{stack.enter_context(refused_port())}"
        elif mode is not None:
            url = stack.enter_context(FakeGrobid(pairs, mode)).url
        if url is not None:
            args += ["--grobid", url, "--grobid-timeout", "0.3"]
        code = main(args)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1
    errors = [line for line in err if ": error: " in line]
    assert len(errors) == 1, err
    assert str(bad) in errors[0] and problem in errors[0], errors[0]
    if url is not None:
        assert url in errors[0]
    assert err[-1] == "coresc convert: 1 of 2 file(s) could not be read"
    assert jsonl_papers(out) == {"tei_nobody": 3}  # the good paper is still done
    assert {p: p.read_bytes() for p in src.iterdir()} == before  # inputs untouched


@pytest.mark.slow
def test_annotate_goes_on_after_a_failed_pdf(fixtures, tmp_path, capsys):
    pairs = pdf_pairs(tmp_path / "grobid")
    d = folder(tmp_path / "in", {"a.pdf": pairs / "small.pdf", "b.pdf": pairs / "other.pdf",
                                 "c.nxml": fixtures / "jats_small.xml"})
    (d / "d.docx").write_bytes(b"PK\x03\x04")
    with FakeGrobid(pairs, "error") as server:
        code = main(["annotate", str(d), "--grobid", server.url, "--to", "jsonl",
                     "-o", str(tmp_path / "o.jsonl")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1
    assert sum(": error: " in line and server.url in line for line in err) == 2
    assert f"coresc annotate: skipped 1 file(s) of other types: {d / 'd.docx'}" in err
    assert list(jsonl_papers(tmp_path / "o.jsonl")) == ["c"]


def test_docs_bad_input_table_matches_the_battery():
    """docs/formats.md's bad-input table: one row per case of the battery above (plus
    standard input), each saying what the battery finds in the real one-line error."""
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "docs" / "formats.md").read_text()
    table = page.split("| input | the line says |", 1)[1].split("\n\n", 1)[0]
    said = re.findall(r"^\| .* \| `(.*)` \|$", table, re.M)

    def norm(s: str) -> str:
        return re.sub(r"\d+(\.\d+)?s\b", "Ns", s)

    assert len(said) == len(BATTERY) + 1
    for case, (_, _, problem) in BATTERY.items():
        assert any(norm(problem) in norm(line) for line in said), case
    assert "stdin: nothing on standard input" in said
