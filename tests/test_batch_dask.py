"""`coresc annotate --scheduler`: a LocalCluster of 2 workers on 127.0.0.1."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest
from helpers import text_papers, tree_bytes

distributed = pytest.importorskip("distributed")

from coresc.batch import annotate_files  # noqa: E402
from coresc.batch.outputs import MANIFEST_NAME  # noqa: E402
from coresc.cli import main  # noqa: E402


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cl:
        yield cl


@pytest.fixture(scope="module")
def papers(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("dask") / "in"
    text_papers(d, 20, n_paragraphs=8)
    return d


@pytest.fixture(scope="module")
def local_xml(papers, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("local") / "xml"
    annotate_files([papers], out, progress="off")
    return out


def records(manifest: Path) -> list[dict]:
    return [json.loads(line) for line in manifest.read_text().splitlines()[1:]]


def test_cluster_output_equals_local_run(cluster, papers, local_xml, tmp_path):
    out = tmp_path / "xml"
    assert main(["annotate", str(papers), "-o", str(out), "--scheduler",
                 cluster.scheduler_address, "-q"]) == 0
    assert tree_bytes(out) == tree_bytes(local_xml)
    recs = records(out / MANIFEST_NAME)
    assert sorted(Path(r["input"]).name for r in recs) == sorted(p.name for p in
                                                                 papers.iterdir())
    local_jsonl = tmp_path / "local.jsonl"
    annotate_files([papers], local_jsonl, to="jsonl", progress="off")
    url = f"file://{tmp_path}/remote.jsonl"  # written through fsspec, as to s3:// or gs://
    with distributed.Client(cluster) as client:
        summary = annotate_files([papers], url, to="jsonl", scheduler=client,
                                 progress="off", batch_size=3)
    assert summary.done == 20 and not summary.failures
    assert (tmp_path / "remote.jsonl").read_bytes() == local_jsonl.read_bytes()


def test_failed_paper_is_recorded_not_fatal(cluster, tmp_path, capsys):
    d = tmp_path / "in"
    text_papers(d, 3)
    (d / "p001.txt").write_bytes(b"\x00binary")
    out = tmp_path / "out"
    rc = main(["annotate", str(d), "-o", str(out), "--scheduler",
               cluster.scheduler_address, "-q"])
    assert rc == 1 and "p001.txt: binary file" in capsys.readouterr().err
    status = {Path(r["input"]).name: r["status"] for r in records(out / MANIFEST_NAME)}
    assert status == {"p000.txt": "done", "p001.txt": "failed", "p002.txt": "done"}


@pytest.mark.slow
def test_worker_killed_mid_run_still_completes_exactly_once(cluster, papers, local_xml,
                                                            tmp_path):
    out = tmp_path / "xml"
    manifest = out / MANIFEST_NAME
    killed: list[int] = []
    with distributed.Client(cluster) as client:
        pids = list(client.run(os.getpid).values())

        def kill_one_worker_mid_run() -> None:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                lines = len(manifest.read_text().splitlines()) if manifest.exists() else 0
                if lines >= 4:
                    os.kill(pids[0], signal.SIGKILL)
                    killed.append(lines - 1)  # inputs recorded when the worker died
                    return
                time.sleep(0.02)

        killer = threading.Thread(target=kill_one_worker_mid_run)
        killer.start()
        summary = annotate_files([papers], out, scheduler=client, progress="off",
                                 batch_size=1)
        killer.join()
        client.wait_for_workers(2, timeout=60)  # the nanny restarted it
    assert killed and killed[0] < 20  # it died in the middle of the run
    assert summary.done == 20 and not summary.failures
    recs = records(manifest)
    assert len(recs) == 20 and len({r["input"] for r in recs}) == 20
    assert all(r["status"] == "done" for r in recs)
    assert tree_bytes(out) == tree_bytes(local_xml)
    assert not list(out.glob(".*.part"))


@pytest.mark.parametrize("keep", [0, None])  # members streamed in a second pass, or kept
def test_archive_members_on_the_cluster_equal_the_folder(cluster, papers, local_xml,
                                                          tmp_path, monkeypatch, keep):
    """Issue 51: a .tar.gz's members go to the workers as the files of a folder do."""
    import tarfile

    if keep is not None:
        monkeypatch.setattr("coresc.batch.sources.KEEP_LISTED_BYTES", keep)
    archive = tmp_path / "papers.tar.gz"
    with tarfile.open(archive, "w:gz") as tf:
        for p in sorted(papers.iterdir()):
            tf.add(p, f"pkg/{p.name}")
    out = tmp_path / "xml"
    with distributed.Client(cluster) as client:
        summary = annotate_files([archive], out, scheduler=client, progress="off",
                                 batch_size=3)
    assert summary.done == 20 and not summary.failures
    assert tree_bytes(out) == tree_bytes(local_xml)  # the same papers, the same bytes
    two = annotate_files([archive], tmp_path / "jobs2", jobs=2, progress="off")
    assert two.done == 20 and tree_bytes(tmp_path / "jobs2").keys() == tree_bytes(out).keys()
