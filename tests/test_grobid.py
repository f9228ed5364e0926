"""PDFs through GROBID, against a stand-in server on 127.0.0.1 (tests/fake_grobid.py)
that serves the TEI of tests/fixtures for two tiny PDFs; only the docs' example reads the
real papers of ../shared/data/tei."""

from __future__ import annotations

import shutil
import socket

import pytest
from fake_grobid import FakeGrobid
from helpers import pdf_pairs, refused_port

from coresc.errors import InputError, UsageError
from coresc.readers import grobid as grobid_module
from coresc.readers import read_data, read_file
from coresc.readers.grobid import ENV_VAR, GrobidClient, grobid_client


@pytest.fixture
def tei_dir(tmp_path):
    return pdf_pairs(tmp_path / "grobid")


def _texts(paper) -> list[str]:
    return [s.text for s in paper.sentences()]


def _direct(tei_dir, stem: str = "small"):
    """The paper read from the TEI the fake GROBID serves for ``stem``.pdf."""
    [paper] = read_file(tei_dir / f"{stem}.tei.xml")
    assert len(paper) > 0
    return paper


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
        [paper] = read_file(tei_dir / "small.pdf", grobid=server.url)
    assert paper.id == "small" and paper.source_format == "tei"
    assert paper.source_path == str(tei_dir / "small.pdf")
    assert paper.meta["grobid"] == server.url
    assert _texts(paper) == _texts(_direct(tei_dir))
    # No consolidation (slow external lookups); coresc splits the sentences itself.
    assert server.requests == [{"consolidateHeader": "0", "consolidateCitations": "0",
                                "segmentSentences": "0"}]


def test_pdf_known_by_content_not_name(tei_dir, tmp_path, no_env):
    renamed = tmp_path / "download.bin"
    shutil.copy(tei_dir / "other.pdf", renamed)
    with FakeGrobid(tei_dir) as server:
        [paper] = read_file(renamed, grobid=server.url)
    assert paper.title == _direct(tei_dir, "other").title == "Segmented by GROBID"


def test_busy_then_success_backs_off(tei_dir, sleeps, no_env):
    with FakeGrobid(tei_dir, "busy:2") as server:
        [paper] = read_file(tei_dir / "small.pdf", grobid=server.url)
    assert _texts(paper) == _texts(_direct(tei_dir)) and len(server.requests) == 3
    assert sleeps == [5.0, 10.0]


def test_busy_forever_gives_up_after_bounded_attempts(tei_dir, sleeps, no_env):
    pdf = tei_dir / "small.pdf"
    with FakeGrobid(tei_dir, "busy") as server, pytest.raises(InputError) as err:
        read_file(pdf, grobid=server.url)
    assert len(server.requests) == 6 and sleeps == [5.0, 10.0, 20.0, 30.0, 30.0]
    assert str(err.value).startswith(f"{pdf}: GROBID at {server.url} stayed busy (HTTP 503)")


def test_timeout(tei_dir, no_env):
    """The client gives up after its timeout, not when the server answers (how soon:
    benchmarks/failure_latency.py)."""
    with FakeGrobid(tei_dir, "slow:600") as server, pytest.raises(InputError) as err:
        read_file(tei_dir / "small.pdf", grobid=GrobidClient(server.url, timeout=0.3))
    assert f"GROBID at {server.url} did not answer within 0.3s" in str(err.value)
    assert len(server.requests) == 1


@pytest.mark.parametrize(("mode", "problem"), [
    ("not-tei", "answered with something other than TEI (an HTML page)"),
    ("no-content", "extracted no content from the PDF (HTTP 204"),
    ("error", "failed on this PDF (HTTP 500: [BAD_INPUT_DATA] PDF to XML conversion failed)"),
])
def test_failures_name_file_and_server(mode, problem, tei_dir, no_env):
    pdf = tei_dir / "small.pdf"
    with FakeGrobid(tei_dir, mode) as server, pytest.raises(InputError) as err:
        read_file(pdf, grobid=server.url)
    assert str(err.value).startswith(f"{pdf}: GROBID at {server.url} {problem}")


def test_connection_refused(tei_dir, no_env):
    with refused_port() as port, pytest.raises(InputError) as err:
        read_file(tei_dir / "small.pdf", grobid=f"http://127.0.0.1:{port}")
    assert str(err.value) == (f"{tei_dir / 'small.pdf'}: cannot reach GROBID at "
                              f"http://127.0.0.1:{port} (connection refused: is the server "
                              f"running?)")


def test_unknown_host(tei_dir, no_env, monkeypatch):
    """A mistyped host name: the resolver's own words, no network needed."""
    def resolve(host, *args, **kw):
        assert host == "grobid.invalid"
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    with pytest.raises(InputError) as err:
        read_file(tei_dir / "small.pdf", grobid="http://grobid.invalid:8070")
    assert str(err.value) == (f"{tei_dir / 'small.pdf'}: cannot reach GROBID at "
                              f"http://grobid.invalid:8070 ([Errno {socket.EAI_NONAME}] Name "
                              f"or service not known)")


def test_connection_reset(tei_dir, no_env):
    with FakeGrobid(tei_dir, "reset") as server, pytest.raises(InputError) as err:
        read_file(tei_dir / "small.pdf", grobid=server.url)
    assert str(err.value) == (f"{tei_dir / 'small.pdf'}: GROBID at {server.url}: connection "
                              f"failed (ConnectionResetError: [Errno 104] Connection reset by "
                              f"peer)")
    assert len(server.requests) == 1  # no retry: only a busy GROBID (503) is asked again


def test_without_grobid_the_embedded_reader_reads_a_pdf(tmp_path, no_env):
    from pdf_fixtures import one_column

    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(one_column())
    [paper] = read_file(pdf)
    assert paper.meta["pdf_reader"].startswith("coresc-pdf") and "grobid" not in paper.meta
    assert paper.title == "Copper Stress Changes Biofilm Matrix Genes"


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
        [paper] = read_file(tei_dir / "small.pdf")
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
        [paper] = read_data((tei_dir / "small.pdf").read_bytes(), "stdin", grobid=server.url)
    assert paper.id == "stdin" and paper.source_path is None
    assert _texts(paper) == _texts(_direct(tei_dir))


@pytest.mark.slow
def test_readme_both_papers_from_tei_and_from_pdf(shared_data, tmp_path, no_env):
    """docs/formats.md's example: the PDFs through GROBID annotate exactly as GROBID's TEI does."""
    from coresc.cli import main

    tei_dir = shared_data / "tei"

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
