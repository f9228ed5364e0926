"""A run stopped while it reads PDFs (issue 53, items 3 and 4): the PDF reader's child
processes die with their parent on every route, and the manifest lists exactly the
outputs on disk, with no traceback."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import coresc_process, need, text_papers, wait_for

need("reportlab", "the PDF tests import pdf_fixtures (reportlab, the test extra)")

import pdf_costly  # noqa: E402

from coresc.batch.outputs import MANIFEST_NAME  # noqa: E402
from coresc.readers.pdf import CHILD_MODULE  # noqa: E402

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")]


@pytest.fixture(scope="module")
def slow_pdf() -> bytes:
    """A PDF whose reading takes PDFium minutes: 15 pages of 60,000 one-glyph runs."""
    return pdf_costly.lone_runs(pages=15)


def _parents() -> dict[int, int]:
    out = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        out[int(stat.parent.name)] = int(fields[1])
    return out


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def readers_under(root: int) -> set[int]:
    """The PDF reader's child processes that descend from ``root``."""
    parents = _parents()
    found = set()
    for pid in parents:
        up = pid
        while up > 1 and up != root:
            up = parents.get(up, 0)
        if up == root and CHILD_MODULE in _cmdline(pid):
            found.add(pid)
    return found


def busy(pids: set[int]) -> bool:
    """Each has had a second of CPU time: past reading its input, into the PDF."""
    def cpu_s(pid: int) -> float:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    return bool(pids) and all(cpu_s(p) >= 1.0 for p in pids)


def alive(pids: set[int]) -> set[int]:
    # a zombie has done its work: only its parent's wait is missing
    return {p for p in pids if CHILD_MODULE in _cmdline(p)
            and not Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"}


def _slow_folder(folder: Path, slow_pdf: bytes, n_slow: int, n_good: int = 0) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n_slow):
        (folder / f"a_slow{i}.pdf").write_bytes(slow_pdf)
    text_papers(folder, n_good)
    return folder


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
def test_annotate_jobs_2_leaves_no_pdf_reader_running(tmp_path, slow_pdf, sig):
    """SIGTERM, Ctrl-C or SIGKILL to ``annotate --jobs 2`` while both workers read a slow
    PDF: their readers end with them (they ran on for minutes, 18 of 18 tries)."""
    d = _slow_folder(tmp_path / "in", slow_pdf, 2)
    proc = coresc_process(["annotate", str(d), "--jobs", "2", "-o", str(tmp_path / "out")])
    try:
        readers = wait_for(lambda: len(readers_under(proc.pid)) == 2
                           and readers_under(proc.pid), timeout=120,
                           what="two PDF readers to start")
        wait_for(lambda: busy(readers), what="the PDF readers to be at work")
        proc.send_signal(sig)
        proc.communicate(timeout=60)
        wait_for(lambda: not alive(readers), timeout=15, what="the PDF readers to end")
    finally:
        proc.kill()
        proc.communicate()


def test_a_reader_whose_parent_is_killed_ends(tmp_path, slow_pdf):
    """Any parent (here a plain ``read_data``, as ``serve``'s worker or a Dask worker
    calls it) killed with SIGKILL: its reader ends too."""
    pdf = tmp_path / "slow.pdf"
    pdf.write_bytes(slow_pdf)
    code = ("import sys; from coresc.readers import read_data; "
            "read_data(open(sys.argv[1], 'rb').read(), 'slow.pdf')")
    parent = subprocess.Popen([sys.executable, "-c", code, str(pdf)])
    try:
        readers = wait_for(lambda: readers_under(parent.pid), timeout=60,
                           what="the PDF reader to start")
        wait_for(lambda: busy(readers), what="the PDF reader to be at work")
        parent.kill()
        parent.wait()
        wait_for(lambda: not alive(readers), timeout=15, what="the PDF reader to end")
    finally:
        parent.kill()
        parent.wait()


def test_a_reader_started_after_its_parent_died_ends_at_once():
    """The race ``PR_SET_PDEATHSIG`` leaves: a parent gone before it took effect."""
    done = subprocess.run([sys.executable, "-c", "from coresc.readers.pdf.child import "
                           "die_with_parent; die_with_parent(1); print('lived')"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1 and "lived" not in done.stdout


def test_a_stopped_batch_lists_exactly_its_outputs(tmp_path, slow_pdf):
    """``annotate DIR --jobs 2`` with a slow PDF first among good papers, stopped once the
    other worker has written them: the manifest lists every output on disk (it said
    "0 of 9 done" beside 6 outputs), the message counts them, and no traceback."""
    d = _slow_folder(tmp_path / "in", slow_pdf, 1, n_good=6)
    out = tmp_path / "out"
    proc = coresc_process(["annotate", str(d), "--jobs", "2", "--paper-timeout", "300",
                           "-o", str(out)])
    try:
        wait_for(lambda: len(list(out.glob("p*.xml"))) == 6, timeout=180,
                 what="the six good papers")
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
        proc.communicate()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted: 6 of 7 file(s) done" in err, err
    lines = [json.loads(x) for x in (out / MANIFEST_NAME).read_text().splitlines()[1:]]
    done = sorted(o for r in lines if r["status"] == "done" for o in r["outputs"])
    assert done == sorted(p.name for p in out.glob("*.xml"))
    assert len(done) == 6 and not list(out.glob(".*.part"))
    assert os.path.isfile(out / MANIFEST_NAME)


def test_a_pool_stopped_early_leaves_no_manager_thread():
    """The executor's manager thread is joined when a run stops: left running, it closes
    its wake-up pipe while the interpreter's exit writes to it (one SIGTERM in 18 ended
    in a ``Bad file descriptor`` traceback after the exit-130 line)."""
    import threading

    from coresc.batch.pool import ordered_map

    results = ordered_map(time.sleep, [0.01, 30, 30, 30], jobs=2)
    assert next(results) is None
    results.close()
    managers = [t for t in threading.enumerate() if "ExecutorManager" in type(t).__name__]
    assert not managers


@pytest.mark.serve
def test_serve_timeout_leaves_no_pdf_reader_running(slow_pdf):
    """``serve --timeout`` kills the worker reading a slow PDF: its reader ends with it
    (it ran on in 6 of 25 tries)."""
    import threading

    pytest.importorskip("fastapi")
    pytest.importorskip("uvicorn")
    from helpers import call

    from coresc.serve.launch import Server

    with Server(["--model", "fast", "--workers", "1", "--timeout", "3"],
                env={"CORESC_GROBID_URL": ""}) as srv:
        answer: dict = {}
        request = threading.Thread(target=lambda: answer.update(got=call(
            srv, "annotate?to=jsonl", slow_pdf, {"Content-Type": "application/pdf"},
            auth=False)))
        request.start()
        readers = wait_for(lambda: readers_under(srv.process.pid), timeout=60,
                           what="the PDF reader to start")
        request.join(60)
        assert answer["got"][0] == 504, answer
        wait_for(lambda: not alive(readers), timeout=15, what="the PDF reader to end")


def test_late_records_are_this_runs_lines_the_parent_has_not_taken(tmp_path):
    """What a stopped run counts beyond what it took: its workers' lines, never an earlier
    run's (a resumed manifest) nor its own."""
    from coresc.batch.manifest import Manifest
    from coresc.batch.outputs import Store
    from coresc.batch.work import Outcome, record_outcome

    store, settings = Store(tmp_path), {"to": "xml"}
    first = Manifest.open(store, MANIFEST_NAME, settings, resume=False)
    path = first.writable_path()
    record_outcome(path, Outcome(name="a.txt", outputs=["a.xml"]))  # a worker's line
    first.add(Outcome(name="b.txt", outputs=["b.xml"]), "b.txt", written=False)
    record_outcome(path, Outcome(name="c.txt", status="failed", error="c.txt: bad"))
    first.add(Outcome(name="c.txt", status="failed"), "c.txt", written=True)
    assert [Path(r["input"]).name for r in first.late_records()] == ["a.txt"]
    assert first.done_names(["a.txt", "b.txt", "c.txt"]) == ["a.txt", "b.txt"]
    first.close()
    again = Manifest.open(store, MANIFEST_NAME, settings, resume=True)
    again.writable_path()
    assert again.late_records() == []
    again.close()
    lines = (tmp_path / MANIFEST_NAME).read_text().splitlines()
    assert len(lines) == 4 and all(json.loads(line) for line in lines)
