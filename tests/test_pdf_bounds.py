"""Reading one PDF is bounded in time and memory on every route (issue 53, item 2): the
layout stays quick on hostile pages, the TEI step is linear, and the whole reading
(glyphs, layout, structure) happens in a child process under the per-paper limit, also
in threads."""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
import threading
import time

import pytest
from helpers import need
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

need("reportlab", "the PDF tests import pdf_fixtures (reportlab, the test extra)")

import pdf_costly  # noqa: E402
import pdf_fixtures as fx  # noqa: E402
from lxml import etree  # noqa: E402

from coresc.errors import InputError  # noqa: E402
from coresc.limits import TIMEOUT_ENV, PaperTimeout, paper_time  # noqa: E402
from coresc.readers import read_data  # noqa: E402
from coresc.readers.pdf import tei as tei_mod  # noqa: E402
from coresc.readers.pdf.extract import SUP_CLOSE, SUP_OPEN  # noqa: E402

SLOW = pytest.mark.slow
BOUND = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="module")
def slow_pdf() -> bytes:
    """A PDF whose reading takes PDFium minutes: 15 pages of 60,000 one-glyph runs."""
    return pdf_costly.lone_runs(pages=15)


# -- the layout ---------------------------------------------------------------------

def _run(x0: float, y0: float, height: float, size: float, text: str) -> list:
    return [x0, y0, x0 + 0.6 * len(text), y0 + height, y0, size, text, 0.0, 0.0, "F",
            [[len(text), False, False, "F"]]]


def test_the_layout_of_many_lone_runs_and_a_huge_one_is_quick():
    """15,000 one-glyph runs alone in a column, two columns of words, a 20,000-pt glyph
    and a run of ordinary size 10^9 points tall: the layout once binned runs by height
    (27 s of CPU for its lone-run step, and a list per 4 points of that run's height: 6.8
    GB); laid out now (the XY-cut layout of issue 50) in well under a second."""
    from coresc.readers.pdf import layout_parts

    runs = [_run(40 + (i % 130) * 2, 840 - (i // 130) * 0.9, 1.0, 1.0, "a")
            for i in range(15_000)]
    runs += [_run(x, 400 - j * 1.5, 1.0, 1.0, "word " * 12) for j in range(100)
             for x in (40, 320)]
    runs += [_run(100, 10, 2e4, 2e4, "W"), _run(320, 292, 1e9, 9.0, "a line, a huge W")]
    t0 = time.process_time()
    layout_parts([{"w": 595.0, "h": 842.0, "runs": runs}])
    assert time.process_time() - t0 < 5.0


# -- the TEI: superscripts -------------------------------------------------------------

MARKED = st.lists(st.tuples(st.text("am 1,-Hxµ(", max_size=6),
                            st.none() | st.text("12,-m x", max_size=4)), max_size=10)


def _cited(text: str) -> list[str]:
    """The numbers the rule makes citations: each superscript that is a citation number
    (``_CITES``) unless the plain text before it, looked at in full, ends in a unit."""
    out = []
    for m in tei_mod._SUP.finditer(text):
        before = text[:m.start()].replace(SUP_OPEN, "").replace(SUP_CLOSE, "")
        if tei_mod._CITES.match(m.group(1)) and not tei_mod._UNIT.search(before):
            out += re.findall(r"\d+", m.group(1))
    return out


@pytest.mark.fuzz
@BOUND
@given(pieces=MARKED)
def test_marked_text_cites_as_defined(pieces):
    """A superscript becomes ``ref`` elements exactly when the rule says, and the text
    reads the same with the marks dropped."""
    text = "".join(p + ("" if s is None else SUP_OPEN + s + SUP_CLOSE) for p, s in pieces)
    el = etree.Element("p")
    tei_mod._marked_text(el, text)
    assert "".join(el.itertext()) == text.replace(SUP_OPEN, "").replace(SUP_CLOSE, "")
    assert [r.text for r in el] == _cited(text)


def test_marked_text_is_linear():
    """8,000 superscripts in one paragraph: 17 s of CPU before (the whole text searched
    again before each), 0.1 s now."""
    text = "".join(f"cells {SUP_OPEN}{i % 9 + 1}{SUP_CLOSE} " for i in range(8_000))
    el = etree.Element("p")
    t0 = time.process_time()
    tei_mod._marked_text(el, text)
    assert time.process_time() - t0 < 5.0
    assert len(el) == 8_000


# -- hostile PDFs, read whole --------------------------------------------------------------

def test_a_pdf_with_a_superscript_on_every_word_is_read_quickly():
    """21 KB before, now 5 KB (the same paragraph on 20 pages): 306 s once."""
    t0 = time.monotonic()
    papers = read_data(pdf_costly.superscript_every_word(), "sup.pdf")
    assert time.monotonic() - t0 < 30
    assert len(papers[0].sentences()) > 100


def test_a_glyph_a_billion_points_tall_takes_little_memory(tmp_path):
    """One glyph 1e9 points tall in a line of text: 6.8 GB and 132 s before, in the
    reading process; now read in a process held to 1 GB of address space."""
    pdf = tmp_path / "huge.pdf"
    pdf.write_bytes(pdf_costly.huge_glyph())
    code = ("import sys; from coresc.readers import read_data; "
            "p = read_data(open(sys.argv[1], 'rb').read(), 'huge.pdf'); print(len(p))")

    def one_gigabyte():
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, resource.RLIM_INFINITY))

    done = subprocess.run([sys.executable, "-c", code, str(pdf)], capture_output=True,
                          text=True, timeout=120, preexec_fn=one_gigabyte, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "1"


@SLOW
def test_the_paper_time_limit_holds_in_a_thread(slow_pdf):
    """A Dask worker reads in a thread (no SIGALRM, not the command's environment): the
    limit a task is given still bounds the reading, with one line naming the option."""
    caught: list[BaseException] = []

    def read() -> None:
        try:
            with paper_time(1.0):
                read_data(slow_pdf, "slow.pdf")
        except BaseException as exc:  # noqa: BLE001 (handed to the test's thread)
            caught.append(exc)

    t0 = time.monotonic()
    thread = threading.Thread(target=read)
    thread.start()
    thread.join(60)
    assert time.monotonic() - t0 < 15
    assert len(caught) == 1 and isinstance(caught[0], PaperTimeout), caught
    assert str(caught[0]) == ("slow.pdf: took longer than 1 s to read as a PDF (the limit: "
                              f"--paper-timeout or {TIMEOUT_ENV})")


@SLOW
def test_a_batch_job_carries_its_time_limit(slow_pdf, tmp_path, monkeypatch):
    """``run_source`` (what a Dask task runs) takes the limit from its job, not the
    environment, which a Dask worker does not share."""
    from coresc.batch.work import Job, run_source
    from coresc.pipeline import Source

    monkeypatch.delenv(TIMEOUT_ENV, raising=False)
    path = tmp_path / "slow.pdf"
    path.write_bytes(slow_pdf)
    t0 = time.monotonic()
    out = run_source(Source.file(path), Job(to="jsonl", paper_timeout=1.0), model=None)
    assert time.monotonic() - t0 < 15
    assert out.status == "failed" and "took longer than 1 s" in out.error


def test_the_layout_runs_in_the_child(monkeypatch):
    """The parent never lays out a page (a slow or huge layout stays in the bounded
    child)."""
    import coresc.readers.pdf as pdf

    def no_layout(pages):
        raise AssertionError("laid out in the parent")

    monkeypatch.setattr(pdf, "layout_parts", no_layout)
    papers = read_data(fx.two_columns(), "two.pdf")
    assert any("Left column" in s.text for s in papers[0].sentences())


def test_without_a_paper_limit_the_message_names_the_readers_own(monkeypatch):
    from coresc.readers.pdf import _time_limit

    monkeypatch.delenv(TIMEOUT_ENV, raising=False)
    assert _time_limit(None) == (120.0, "took longer than 120 s to read as a PDF (the "
                                        "embedded reader's limit; --paper-timeout sets "
                                        "another)")


@SLOW
@pytest.mark.skipif(not hasattr(resource, "RLIMIT_CPU"), reason="needs RLIMIT_CPU")
def test_the_child_stops_at_its_own_cpu_limit(slow_pdf):
    """Without its parent's timeout (a parent stopped with SIGSTOP, say), the child ends
    at its CPU-time limit: SIGXCPU a little after the seconds it was given."""
    from coresc.readers.pdf import CHILD_MODULE

    t0 = time.monotonic()
    done = subprocess.run([sys.executable, "-m", CHILD_MODULE, "parts", "768", "0.5",
                           str(os.getpid())], input=slow_pdf, capture_output=True,
                          timeout=60, check=False)
    assert done.returncode in (-24, -9), done.stderr[-500:]  # SIGXCPU (SIGKILL: the hard one)
    assert time.monotonic() - t0 < 30


def test_a_timeout_in_the_child_is_one_line(monkeypatch, slow_pdf):
    monkeypatch.setenv(TIMEOUT_ENV, "0.5")
    with pytest.raises(InputError) as info:
        read_data(slow_pdf, "slow.pdf")
    assert "\n" not in str(info.value) and "--paper-timeout" in str(info.value)
