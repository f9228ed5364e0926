"""Against a real tracking server: ``mlflow server`` on 127.0.0.1 with a sqlite backend.

Starts the server on a free port, runs a small experiment over HTTP, reads the runs back,
serves a logged model with ``mlflow models predict`` on JSONL-derived input, and always
stops the server (bounded waits throughout).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from helpers import tiny_experiment

from coresc import tracking
from coresc.experiments import run_experiment

pytestmark = [pytest.mark.server, pytest.mark.slow]

START_TIMEOUT = 120  # seconds; the CI machine is shared and slow to import mlflow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(tmp_path: Path, log) -> tuple[subprocess.Popen, str]:
    """``mlflow server`` on a free port, up and answering. mlflow binds the port itself,
    after this process let go of it: should another process take it meanwhile, the server
    exits ("address already in use") and starts again on another port."""
    mlflow_bin = Path(sys.executable).parent / "mlflow"
    for _ in range(3):
        port = _free_port()
        start = (tmp_path / "server.log").stat().st_size
        proc = subprocess.Popen(
            [str(mlflow_bin), "server", "--host", "127.0.0.1", "--port", str(port),
             "--workers", "1",
             "--backend-store-uri", f"sqlite:///{tmp_path}/server.db",
             "--artifacts-destination", str(tmp_path / "server-artifacts")],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        uri = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + START_TIMEOUT
        while proc.poll() is None:
            try:
                with urllib.request.urlopen(uri + "/health", timeout=2) as resp:
                    if resp.status == 200:
                        return proc, uri
            except OSError:
                pass
            if time.monotonic() > deadline:
                _stop(proc)
                pytest.fail(f"mlflow server not up after {START_TIMEOUT}s")
            time.sleep(0.5)
        text = (tmp_path / "server.log").read_bytes()[start:].decode(errors="replace")
        if "address already in use" not in text.lower():
            pytest.fail(f"mlflow server exited: {text[-2000:]}")
    pytest.fail("mlflow server: three free ports taken before it could bind them")


def _stop(proc: subprocess.Popen) -> None:
    # The server runs workers in its own process group: stop them all.
    with _suppress():
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        with _suppress():
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


@pytest.fixture()
def server(tmp_path: Path):
    with open(tmp_path / "server.log", "ab") as log:
        proc, uri = _start(tmp_path, log)
        try:
            yield uri
        finally:
            _stop(proc)


class _suppress:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return exc[0] is not None and issubclass(exc[0], (ProcessLookupError, PermissionError))


def test_small_experiment_over_http(server: str, shared_data: Path, tmp_path: Path) -> None:
    from mlflow.tracking import MlflowClient

    settings = tracking.TrackingSettings(server, "server-test", None)
    result = run_experiment(tiny_experiment("server-small"), jobs=1, settings=settings,
                            max_papers=4)
    assert result.tracking_uri == server

    client = MlflowClient(server)  # read back over HTTP
    exp = client.get_experiment_by_name("server-test")
    runs = client.search_runs([exp.experiment_id])
    assert len(runs) == 3 and {r.info.status for r in runs} == {"FINISHED"}
    parent = client.get_run(result.run_id)
    assert parent.data.metrics["accuracy"] == pytest.approx(result.metrics["accuracy"])
    assert "folds.json" in {a.path for a in client.list_artifacts(result.run_id)}
    fold_id = result.fold_run_ids["fold1"]

    # `mlflow models predict` on sentence records (JSONL -> dataframe_records request).
    jsonl = tmp_path / "sentences.jsonl"
    jsonl.write_text("\n".join(json.dumps({"paper": "p", "sid": str(i), "text": t}) for i, t in
                               enumerate(["We aimed to test the hypothesis.",
                                          "Rats were exposed to 5 ppm for two weeks."], 1)))
    request = tmp_path / "request.json"
    request.write_text(tracking.jsonl_to_request(jsonl))
    env = {**os.environ, "MLFLOW_TRACKING_URI": server}
    out = subprocess.run(
        [str(Path(sys.executable).parent / "mlflow"), "models", "predict",
         "-m", f"runs:/{fold_id}/model", "-i", str(request), "--content-type", "json",
         "--env-manager", "local", "-o", str(tmp_path / "pred.json")],
        env=env, capture_output=True, text=True, timeout=180,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    preds = json.loads((tmp_path / "pred.json").read_text())["predictions"]
    assert [p["sid"] for p in preds] == ["1", "2"]
    assert all(p["label"] == p["pred"][0]["label"] for p in preds)
