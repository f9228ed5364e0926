"""MLflow settings, the fail-fast server check, and the pyfunc model wrapper."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pandas as pd
import pytest
from helpers import refused_port

from coresc import tracking
from coresc.cli import main
from coresc.document import Prediction
from coresc.errors import CorescError, UsageError


def test_default_settings_are_a_local_store_beside_the_yaml(tmp_path: Path) -> None:
    cfg = tmp_path / "mlflow.yaml"
    cfg.write_text("tracking_uri: sqlite:///mlflow.db\nexperiment_name: exp\n"
                   "artifact_location: ./mlartifacts\n")
    s = tracking.load_settings(cfg, env={})
    assert s.tracking_uri == f"sqlite:///{tmp_path.resolve()}/mlflow.db"
    assert s.artifact_location == (tmp_path / "mlartifacts").resolve().as_uri()
    assert s.experiment_name == "exp"
    env = tracking.load_settings(cfg, env={"MLFLOW_TRACKING_URI": "http://example:5000"})
    assert env.tracking_uri == "http://example:5000" and env.source == "MLFLOW_TRACKING_URI"


def test_project_mlflow_yaml_needs_no_server() -> None:
    s = tracking.load_settings(Path(tracking.PROJECT_ROOT) / "mlflow.yaml", env={})
    assert s.tracking_uri.startswith("sqlite:///")


def test_bad_settings_file(tmp_path: Path) -> None:
    cfg = tmp_path / "mlflow.yaml"
    cfg.write_text("tracking_url: x\n")
    with pytest.raises(UsageError, match="unknown MLflow setting"):
        tracking.load_settings(cfg, env={})


# How soon each of these gives up is benchmarks/failure_latency.py's to print.


def test_refused_server_fails_naming_the_uri() -> None:
    with refused_port() as port, pytest.raises(CorescError) as err:
        tracking.check_reachable(f"http://127.0.0.1:{port}")
    assert f"http://127.0.0.1:{port}" in str(err.value) and "--local-fallback" in str(err.value)


def test_silent_server_times_out() -> None:
    # Accepts the connection but never answers: the probe gives up after its timeout.
    with socket.socket() as srv:
        srv.bind(("127.0.0.1", 0))
        srv.listen(5)
        uri = f"http://127.0.0.1:{srv.getsockname()[1]}"
        with pytest.raises(CorescError, match="unreachable"):
            tracking.check_reachable(uri, timeout=0.5)


def test_cli_unreachable_server_is_one_line(monkeypatch, capsys, shared_data) -> None:
    with refused_port() as port:
        uri = f"http://127.0.0.1:{port}"
        monkeypatch.setenv("MLFLOW_TRACKING_URI", uri)
        assert main(["experiment", "cra-3fold", "--max-papers", "3"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("coresc experiment: error: MLflow tracking server " + uri)


def test_local_fallback_uses_the_local_store(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mlflow.yaml").write_text("tracking_uri: sqlite:///local.db\n")
    with refused_port() as port:
        down = tracking.TrackingSettings(f"http://127.0.0.1:{port}", "fb")
        client, exp_id, used = tracking.connect(down, local_fallback=True)
    assert used.tracking_uri == f"sqlite:///{tmp_path.resolve()}/mlflow.db"
    assert client.get_experiment(exp_id).name == "fb"
    assert (tmp_path / "mlflow.db").exists()


# --------------------------------------------------------------------------- pyfunc

class _FakeModel:
    """Stands in for CoreSCClassifier: labels by a keyword, records what it was given."""

    def predict(self, papers):
        self.seen = papers
        return [[[Prediction("Res" if "result" in s.text else "Bac", 0.9),
                  Prediction("Con", 0.1)] for s in p.sentences()] for p in papers]


def test_records_group_into_papers_and_sections() -> None:
    recs = [{"paper": "a", "sid": "1", "text": "Title", "zone": "title", "section": ""},
            {"paper": "a", "sid": "2", "text": "x", "section": "Methods"},
            {"paper": "a", "sid": "3", "text": "y", "section": "Methods"},
            {"paper": "b", "text": "z"}]
    papers = tracking.records_to_papers(recs)
    assert [p.id for p in papers] == ["a", "b"]
    assert [(s.type, len(list(s.sentences()))) for s in papers[0].sections] == [
        ("title", 1), ("methods", 2)]
    assert papers[1].sentences()[0].sid == "4"


def test_pyfunc_predict_on_jsonl_records(tmp_path: Path) -> None:
    jsonl = tmp_path / "in.jsonl"
    jsonl.write_text('{"paper": "p", "sid": "1", "text": "Background text.", "gold": ["Bac"]}\n'
                     '{"paper": "p", "sid": "2", "text": "The result is clear."}\n')
    request = json.loads(tracking.jsonl_to_request(jsonl))
    assert request == {"dataframe_records": [
        {"paper": "p", "sid": "1", "text": "Background text."},
        {"paper": "p", "sid": "2", "text": "The result is clear."}]}
    model = tracking.CorescPyfunc(_FakeModel())
    out = model.predict(pd.DataFrame(request["dataframe_records"]))
    assert out["label"].tolist() == ["Bac", "Res"]
    assert out["pred"][1] == [{"label": "Res", "score": 0.9}, {"label": "Con", "score": 0.1}]
    assert model.predict(["a result"])["label"].tolist() == ["Res"]
    with pytest.raises(CorescError, match="'text' column"):
        model.predict(pd.DataFrame({"sentence": ["x"]}))
