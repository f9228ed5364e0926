"""PDFs through GROBID, against a stand-in server on 127.0.0.1 (tests/fake_grobid.py)."""

from __future__ import annotations

import shutil
import time

import pytest
from fake_grobid import FakeGrobid

from coresc.errors import InputError, UsageError
from coresc.readers import grobid as grobid_module
from coresc.readers import read_data, read_file
from coresc.readers.grobid import ENV_VAR, GrobidClient, grobid_client


@pytest.fixture
def tei_dir(shared_data):
    return shared_data / "tei"


@pytest.fixture
def no_env(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)


@pytest.fixture
def sleeps(monkeypatch):
    """Record the client's waits instead of sleeping through them."""
    waited: list[float] = []
    monkeypatch.setattr(grobid_module, "_sleep", waited.append)
    return waited


def test_pdf_read_through_grobid(tei_dir, no_env):
    with FakeGrobid(tei_dir) as server:
        [paper] = read_file(tei_dir / "N18-3011.pdf", grobid=server.url)
    [direct] = read_file(tei_dir / "N18-3011.tei.xml")
    assert paper.id == "N18-3011" and paper.source_format == "tei"
    assert paper.source_path == str(tei_dir / "N18-3011.pdf")
    assert paper.meta["grobid"] == server.url
    assert [s.text for s in paper.sentences()] == [s.text for s in direct.sentences()]
    # No consolidation (slow external lookups); coresc splits the sentences itself.
    assert server.requests == [{"consolidateHeader": "0", "consolidateCitations": "0",
                                "segmentSentences": "0"}]


def test_pdf_known_by_content_not_name(tei_dir, tmp_path, no_env):
    renamed = tmp_path / "download.bin"
    shutil.copy(tei_dir / "2020.acl-main.207.pdf", renamed)
    with FakeGrobid(tei_dir) as server:
        [paper] = read_file(renamed, grobid=server.url)
    assert paper.title.startswith("SPECTER")


def test_busy_then_success_backs_off(tei_dir, sleeps, no_env):
    with FakeGrobid(tei_dir, "busy:2") as server:
        [paper] = read_file(tei_dir / "N18-3011.pdf", grobid=server.url)
    assert len(paper) > 100 and len(server.requests) == 3
    assert sleeps == [5.0, 10.0]


def test_busy_forever_gives_up_after_bounded_attempts(tei_dir, sleeps, no_env):
    pdf = tei_dir / "N18-3011.pdf"
    with FakeGrobid(tei_dir, "busy") as server, pytest.raises(InputError) as err:
        read_file(pdf, grobid=server.url)
    assert len(server.requests) == 6 and sleeps == [5.0, 10.0, 20.0, 30.0, 30.0]
    assert str(err.value).startswith(f"{pdf}: GROBID at {server.url} stayed busy (HTTP 503)")


def test_timeout(tei_dir, no_env):
    client_kw = {"timeout": 0.3}
    start = time.monotonic()
    with FakeGrobid(tei_dir, "slow:5") as server, pytest.raises(InputError) as err:
        read_file(tei_dir / "N18-3011.pdf", grobid=GrobidClient(server.url, **client_kw))
    assert time.monotonic() - start < 3
    assert f"GROBID at {server.url} did not answer within 0.3s" in str(err.value)


@pytest.mark.parametrize(("mode", "problem"), [
    ("not-tei", "answered with something other than TEI (an HTML page)"),
    ("no-content", "extracted no content from the PDF (HTTP 204"),
    ("error", "failed on this PDF (HTTP 500: [BAD_INPUT_DATA] PDF to XML conversion failed)"),
])
def test_failures_name_file_and_server(mode, problem, tei_dir, no_env):
    pdf = tei_dir / "N18-3011.pdf"
    with FakeGrobid(tei_dir, mode) as server, pytest.raises(InputError) as err:
        read_file(pdf, grobid=server.url)
    assert str(err.value).startswith(f"{pdf}: GROBID at {server.url} {problem}")


def test_connection_refused(tei_dir, no_env):
    with FakeGrobid(tei_dir) as server:
        url = server.url  # a port that was just closed
    with pytest.raises(InputError, match=r"cannot reach GROBID at .* \(connection refused"):
        read_file(tei_dir / "N18-3011.pdf", grobid=url)


def test_without_grobid_the_embedded_reader_reads_a_pdf(tei_dir, no_env):
    [paper] = read_file(tei_dir / "N18-3011.pdf")
    assert paper.meta["pdf_reader"].startswith("coresc-pdf") and "grobid" not in paper.meta
    assert len(paper) > 100


def test_text_only_pdf_is_never_read_as_text(tmp_path, no_env):
    """A PDF whose bytes are all text (no NUL) used to be read as a plain-text paper."""
    f = tmp_path / "paper.txt"
    f.write_bytes(b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << >>\n%%EOF\n")
    with pytest.raises(InputError, match="paper.txt: is damaged or not a PDF"):
        read_file(f)


def test_named_pdf_but_not_a_pdf(tmp_path, no_env):
    f = tmp_path / "paper.pdf"
    f.write_text("<html><body>Access denied</body></html>")
    with pytest.raises(InputError, match=r"paper.pdf: named \.pdf but is not a PDF"):
        read_file(f)


def test_environment_variable(tei_dir, monkeypatch):
    with FakeGrobid(tei_dir) as server:
        monkeypatch.setenv(ENV_VAR, server.url)
        [paper] = read_file(tei_dir / "N18-3011.pdf")
    assert paper.meta["grobid"] == server.url
    monkeypatch.setenv(ENV_VAR, "ftp://example.org")
    with pytest.raises(UsageError, match=f"{ENV_VAR}: 'ftp://example.org' is not a GROBID"):
        grobid_client()


def test_urls(no_env):
    assert GrobidClient("localhost:8070").endpoint == \
        "http://localhost:8070/api/processFulltextDocument"
    full = "https://grobid.example.org/grobid/api/processFulltextDocument"
    assert GrobidClient(full).endpoint == full
    assert GrobidClient("http://h:1/base/").endpoint == "http://h:1/base/api/processFulltextDocument"
    with pytest.raises(UsageError, match="--grobid: 'ftp://h' is not a GROBID server URL"):
        GrobidClient("ftp://h")
    assert grobid_client() is None
    assert grobid_client("h:1", timeout=9).timeout == 9


def test_stdin_pdf_through_grobid(tei_dir, monkeypatch, no_env):
    with FakeGrobid(tei_dir) as server:
        [paper] = read_data((tei_dir / "N18-3011.pdf").read_bytes(), "stdin", grobid=server.url)
    assert paper.id == "stdin" and paper.source_path is None and len(paper) > 100


@pytest.mark.slow
def test_readme_both_papers_from_tei_and_from_pdf(tei_dir, tmp_path, no_env):
    """docs/formats.md's example: the PDFs through GROBID annotate exactly as GROBID's TEI does."""
    from coresc.cli import main

    teis = sorted(tei_dir.glob("*.tei.xml"))
    pdfs = sorted(tei_dir.glob("*.pdf"))
    assert main(["annotate", *map(str, teis), "-o", str(tmp_path / "from-tei")]) == 0
    with FakeGrobid(tei_dir) as server:
        assert main(["annotate", *map(str, pdfs), "--grobid", server.url,
                     "-o", str(tmp_path / "from-pdf")]) == 0
    for name in ("N18-3011.xml", "2020.acl-main.207.xml"):
        [a] = read_file(tmp_path / "from-tei" / name)
        [b] = read_file(tmp_path / "from-pdf" / name)
        assert a.source_format == b.source_format == "tei" and len(a) > 200
        assert [(s.text, s.pred_codes) for s in a.sentences()] == \
            [(s.text, s.pred_codes) for s in b.sentences()]
        assert all(s.pred for s in a.sentences())


def test_retry_after_header():
    from coresc.readers.grobid import _retry_after

    assert _retry_after({"retry-after": "7"}) == 7.0
    assert _retry_after({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0
    assert _retry_after({}) == 0.0
