"""`coresc annotate` as a streaming batch: outputs, checks first, manifest, resume, workers."""

from __future__ import annotations

import io
import json
import signal
import time
from pathlib import Path

import pytest
from helpers import DIES_ON, coresc_process, dying_source_task, text_papers, tree_bytes, wait_for

from coresc.batch import annotate_files
from coresc.batch.outputs import MANIFEST_NAME
from coresc.batch.progress import Progress
from coresc.cli import main
from coresc.commands.convert import read_papers
from coresc.model import load_default
from coresc.pipeline import model_provenance
from coresc.writers import write_papers
from coresc.writers.tsv import PROVENANCE_COLUMNS


@pytest.fixture(scope="module")
def papers_dir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("batch") / "papers"
    text_papers(d, 6)
    return d


def manifest_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_streamed_outputs_equal_whole_batch_writing(papers_dir, tmp_path):
    """Each format, streamed paper by paper, is byte for byte what the old writer made."""
    model = load_default()
    papers, _, files = read_papers([papers_dir])
    model.annotate(papers)
    for paper in papers:  # what annotate_files records of the model that labelled them
        paper.meta.update(model_provenance(model))
    for fmt, out in (("xml", "x"), ("html", "h"), ("jsonl", "all.jsonl"), ("tsv", "all.tsv")):
        write_papers(papers, fmt, tmp_path / "old" / out, inputs=files, as_directory=True)
        summary = annotate_files([papers_dir], tmp_path / "new" / out, to=fmt, progress="off")
        assert summary.done == 6 and not summary.failures
        old, new = tmp_path / "old" / out, tmp_path / "new" / out
        if old.is_dir():
            assert tree_bytes(old) == tree_bytes(new)
        else:
            assert old.read_bytes() == new.read_bytes()
            assert not (tmp_path / "new" / f".{out}.parts").exists()  # parts removed
            assert (tmp_path / "new" / f"{out}.manifest.ndjson").is_file()


def test_jobs_2_output_is_identical_and_in_order(papers_dir, tmp_path):
    for fmt, out in (("xml", "x"), ("jsonl", "a.jsonl")):
        one = annotate_files([papers_dir], tmp_path / "1" / out, to=fmt, progress="off")
        two = annotate_files([papers_dir], tmp_path / "2" / out, to=fmt, jobs=2,
                             progress="off")
        assert one.done == two.done == 6
        a, b = tmp_path / "1" / out, tmp_path / "2" / out
        assert (tree_bytes(a) == tree_bytes(b)) if a.is_dir() else a.read_bytes() == b.read_bytes()
    lines = manifest_lines(tmp_path / "2" / "x" / MANIFEST_NAME)
    # each line as its input finishes (issue 53: with its outputs, not in input order)
    assert sorted(Path(r["input"]).name for r in lines[1:]) == [f"p{i:03d}.txt"
                                                                 for i in range(6)]


def test_manifest_records_model_hash_and_counts(papers_dir, tmp_path):
    annotate_files([papers_dir], tmp_path / "x", progress="off")
    header, *records = manifest_lines(tmp_path / "x" / MANIFEST_NAME)
    assert header["manifest"] == 1 and len(header["model_sha256"]) == 64
    assert header["to"] == "xml" and header["model"] == "bundled"
    assert len(records) == 6
    for rec in records:
        assert rec["status"] == "done" and rec["papers"] == 1 and rec["sentences"] > 10
        assert len(rec["sha256"]) == 64 and rec["outputs"] == [Path(rec["input"]).stem + ".xml"]


def test_mistakes_are_reported_before_any_work(papers_dir, tmp_path, capsys, monkeypatch):
    import coresc.batch.work as work

    def no_reading(*a, **k):
        raise AssertionError("read before the options were checked")

    monkeypatch.setattr(work, "read_source", no_reading)
    cases = [
        (["-o", str(tmp_path / "all.html"), "--to", "html"], "not a .html file"),
        (["--to", "xml"], "cannot go to stdout"),
        (["-o", str(tmp_path), "--to", "jsonl"], "is a directory"),
        (["-o", str(tmp_path / "x"), "--model", str(tmp_path / "none")], "model directory"),
        (["-o", str(tmp_path / "x"), "--domain", "art"], "no such corpus domain"),
        (["--resume"], "--resume needs -o"),
        (["-o", str(tmp_path / "x"), "--jobs", "0"], "--jobs"),
    ]
    for extra, message in cases:
        assert main(["annotate", str(papers_dir), *extra]) == 2, extra
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and message in err[0], (extra, err)
    assert not (tmp_path / "x").exists()


def test_scheduler_without_dask_leaves_nothing(papers_dir, tmp_path, capsys, monkeypatch):
    """`pip install coresc` without the dask extra: one line naming the extra, and no
    output folder, manifest or parts left behind."""
    import sys

    monkeypatch.setitem(sys.modules, "distributed", None)  # not installed
    monkeypatch.delitem(sys.modules, "coresc.batch.cluster", raising=False)
    for out in ("annotated", "labels.jsonl"):
        assert main(["annotate", str(papers_dir), "-o", str(tmp_path / out), "--scheduler",
                     "tcp://127.0.0.1:1"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "pip install 'coresc[dask]'" in err[0], err
    assert list(tmp_path.iterdir()) == []


def test_unwritable_output_is_refused_first(papers_dir, tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    rc = main(["annotate", str(papers_dir), "-o", str(blocker / "out")])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "a-file is a file, not a folder" in err[0]


def test_failed_input_is_recorded_and_retried_by_resume(tmp_path, capsys):
    d = tmp_path / "in"
    text_papers(d, 3)
    bad = d / "p001.txt"
    good_text = bad.read_text()
    bad.write_bytes(b"\x00\x01binary")
    out = tmp_path / "out"
    assert main(["annotate", str(d), "-o", str(out), "-q"]) == 1
    err = capsys.readouterr().err
    assert "p001.txt: binary file" in err and "--resume retries" in err
    records = manifest_lines(out / MANIFEST_NAME)[1:]
    assert [r["status"] for r in records] == ["done", "failed", "done"]
    assert "binary" in records[1]["error"]
    kept = (out / "p000.xml").stat().st_mtime_ns
    bad.write_text(good_text)
    assert main(["annotate", str(d), "-o", str(out), "--resume"]) == 0
    err = capsys.readouterr().err
    assert "2 file(s) done before, skipped" in err
    assert (out / "p001.xml").is_file() and (out / "p000.xml").stat().st_mtime_ns == kept
    assert manifest_lines(out / MANIFEST_NAME)[-1]["status"] == "done"


def test_resume_redoes_a_changed_input_and_refuses_other_options(tmp_path, capsys):
    d = tmp_path / "in"
    paths = text_papers(d, 2)
    out = tmp_path / "out"
    assert main(["annotate", str(d), "-o", str(out), "-q"]) == 0
    paths[1].write_text(paths[1].read_text() + "\nWe added a sentence at the end.\n")
    assert main(["annotate", str(d), "-o", str(out), "--resume"]) == 0
    assert "1 file(s) done before" in capsys.readouterr().err
    assert b"We added a sentence at the end." in (out / "p001.xml").read_bytes()
    assert main(["annotate", str(d), "-o", str(out), "--to", "html", "--resume"]) == 2
    assert "another output format" in capsys.readouterr().err


def test_resume_of_a_finished_stream_output(tmp_path, capsys):
    """Its parts are gone: a resume with nothing new does nothing, else it starts over."""
    d = tmp_path / "in"
    paths = text_papers(d, 2)
    out = tmp_path / "out.jsonl"
    assert main(["annotate", str(d), "-o", str(out), "--to", "jsonl", "-q"]) == 0
    before = out.read_bytes()
    assert main(["annotate", str(d), "-o", str(out), "--to", "jsonl", "--resume"]) == 0
    assert "2 file(s) done before" in capsys.readouterr().err and out.read_bytes() == before
    paths[0].write_text(paths[0].read_text() + "\nWe added a sentence at the end.\n")
    assert main(["annotate", str(d), "-o", str(out), "--to", "jsonl", "--resume", "-q"]) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["paper"] for r in records].count("p001") == before.count(b'"paper": "p001"')
    assert records[len(records) - before.count(b'"paper": "p001"') - 1]["text"] == \
        "We added a sentence at the end."


def test_stdout_streams_jsonl_and_tsv(papers_dir, capsysbinary):
    assert main(["annotate", str(papers_dir), "--to", "tsv", "-q"]) == 0
    out = capsysbinary.readouterr().out.decode()
    lines = out.splitlines()
    assert lines[0].split("\t")[-1 - len(PROVENANCE_COLUMNS)] == "pred"
    assert sum(line.startswith("paper\t") for line in lines) == 1
    assert len({line.split("\t")[0] for line in lines[1:]}) == 6


def test_progress_lines_and_bar():
    lines = io.StringIO()
    p = Progress(3, "lines", stream=lines, every=0.0)
    for _ in range(3):
        p.update(10)
    p.close()
    assert lines.getvalue().count("[coresc] ") == 2 and "sentences/s" in lines.getvalue()

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    bar = Terminal()
    p = Progress(2, "auto", stream=bar)
    p.update(5)
    p.update(5)
    p.close()
    assert p.mode == "bar" and "2/2" in bar.getvalue() and "sentences/s" in bar.getvalue()


def test_quiet_prints_nothing(papers_dir, tmp_path, capsys):
    assert main(["annotate", str(papers_dir), "-o", str(tmp_path / "x"), "--quiet"]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupt_keeps_finished_papers_and_says_how_to_continue(tmp_path, sig):
    d = tmp_path / "in"
    # enough papers that the run cannot finish between the third manifest line and the
    # signal, even when this process is scheduled late on a busy machine
    text_papers(d, 120, n_paragraphs=12)
    out = tmp_path / "out"
    proc = coresc_process(["annotate", str(d), "-o", str(out)])
    manifest = out / MANIFEST_NAME
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (
            not manifest.exists() or len(manifest.read_text().splitlines()) < 3):
        time.sleep(0.05)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "annotated" not in err  # never a success line
    assert "interrupted:" in err and "of 120 file(s) done" in err and "--resume" in err
    done = [r for r in manifest_lines(manifest)[1:] if r["status"] == "done"]
    assert done and all((out / r["outputs"][0]).is_file() for r in done)
    assert not list(out.glob(".*.part"))  # no half-written file


def test_too_long_paper_is_tagged_in_blocks(monkeypatch):
    from coresc.batch import work
    from coresc.readers.text import read_text

    text = "\n\n".join(" ".join(f"Sentence {i} {j} shows a result." for j in range(7))
                       for i in range(10))
    paper = read_text("long.txt", "Introduction\n\n" + text)
    blocks = list(work.paper_blocks(paper, limit=15))
    assert [len(b) for b in blocks] == [15, 14, 14, 14, 14]  # title + 10 paragraphs of 7
    flat = [s for b in blocks for s in b.sentences()]
    assert [id(s) for s in flat] == [id(s) for s in paper.sentences()]
    assert list(work.paper_blocks(paper, limit=71)) == [paper]
    assert [len(b) for b in work.paper_blocks(paper, limit=4)][:3] == [1, 4, 3]  # cut paragraphs
    monkeypatch.setattr(work, "MAX_SEQUENCE", 15)
    work.annotate_paper(load_default(), paper)
    assert all(s.pred for s in paper.sentences())


def _live_processes_mentioning(text: str) -> list[int]:
    pids = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if text in (proc / "cmdline").read_bytes().decode(errors="replace"):
                pids.append(int(proc.name))
        except OSError:
            continue
    return pids


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize("to,out,jobs", [("jsonl", "all.jsonl", "2"), ("xml", "out", "1")])
def test_killed_at_random_moments_then_resumed_equals_one_uninterrupted_run(
        tmp_path, to, out, jobs):
    import random

    d = tmp_path / "in"
    text_papers(d, 24, n_paragraphs=6)
    reference = tmp_path / "reference" / out
    args = ["annotate", str(d), "--to", to, "--jobs", jobs, "-q"]
    proc = coresc_process([*args, "-o", str(reference)])
    proc.communicate()
    assert proc.returncode == 0
    target = tmp_path / "killed" / out
    manifest = Path(f"{target}.manifest.ndjson") if to == "jsonl" else target / MANIFEST_NAME

    def recorded() -> int:
        return max(len(manifest.read_text().splitlines()) - 1, 0) if manifest.exists() else 0

    rng = random.Random(15)
    kills = 0
    for attempt in range(6):
        # odd runs die at a random moment (often while starting), even ones a random
        # number of papers later (while writing, assembling, or between papers)
        deadline = time.monotonic() + (rng.uniform(0.05, 1.5) if attempt % 2 else 120)
        enough = recorded() + rng.randint(1, 4)
        proc = coresc_process([*args, "-o", str(target), "--resume"])
        while proc.poll() is None:
            if time.monotonic() > deadline or recorded() >= enough:
                proc.kill()
                kills += 1
                break
            time.sleep(0.005)
        proc.communicate()
    proc = coresc_process([*args, "-o", str(target), "--resume"])
    proc.communicate()
    assert proc.returncode == 0
    assert kills >= 4  # the runs really were cut short
    if reference.is_dir():
        assert tree_bytes(target) == tree_bytes(reference)
    else:
        assert target.read_bytes() == reference.read_bytes()
        assert not Path(f"{target.parent}/.{out}.parts").exists()
    leftovers = [p.name for p in target.parent.rglob(".*.part")]
    assert not leftovers
    # no orphaned worker processes: those of the killed runs end (the wait bounds a hang)
    wait_for(lambda: not _live_processes_mentioning(str(d)), what="the workers to end")


def test_a_worker_dying_is_one_line_and_resume_finishes(papers_dir, tmp_path, capsys,
                                                        monkeypatch):
    """--jobs 2 and the worker handed p003.txt dies (as one the kernel kills for its
    memory): one line saying so, the papers finished before it kept, and --resume
    finishes the run as one that never failed."""
    from coresc.batch import run

    argv = ["annotate", str(papers_dir), "--jobs", "2", "-q"]
    assert main([*argv, "-o", str(tmp_path / "reference")]) == 0
    monkeypatch.setattr(run, "source_task", dying_source_task)
    out = tmp_path / "out"
    assert main([*argv, "-o", str(out)]) == 2
    assert capsys.readouterr().err == ("coresc annotate: error: a worker process died "
                                       "(killed, or out of memory?); the papers finished so "
                                       "far are kept\n")
    done = [Path(r["input"]).name for r in manifest_lines(out / MANIFEST_NAME)[1:]
            if r["status"] == "done"]
    assert DIES_ON not in done  # the manifest lists exactly the outputs (issue 53)
    assert sorted(p.name for p in out.glob("*.xml")) == sorted(
        Path(name).with_suffix(".xml").name for name in done)
    monkeypatch.undo()
    assert main([*argv, "-o", str(out), "--resume"]) == 0
    assert tree_bytes(out) == tree_bytes(tmp_path / "reference")
    assert not list(out.glob(".*.part"))
