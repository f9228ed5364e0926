"""Reports a reader can trust: partial runs marked, calibration shown, no store created."""

from __future__ import annotations

from pathlib import Path

import pytest

from coresc import experiments as ex
from coresc.cli import main
from coresc.errors import UsageError
from coresc.report import write_report
from coresc.tracking import TrackingSettings


def test_report_on_a_missing_store_creates_nothing(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    (tmp_path / "mlflow.yaml").write_text("tracking_uri: sqlite:///mlflow.db\n")
    assert main(["report", "cra-3fold", "-o", "out/r.md"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no MLflow store at" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mlflow.yaml"]
    for uri in (f"file://{tmp_path}/mlruns", str(tmp_path / "mlruns"),
                f"sqlite:///{tmp_path}/x.db"):
        with pytest.raises(UsageError, match="no MLflow store"):
            write_report(["cra-3fold"], tmp_path / "r.md", tracking_uri=uri)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mlflow.yaml"]


@pytest.mark.slow
def test_partial_run_is_marked_and_calibration_reported(shared_data, tmp_path) -> None:
    store = TrackingSettings(f"sqlite:///{tmp_path}/mlflow.db", "trust",
                             (tmp_path / "artifacts").as_uri())
    cfg = {"name": "trial", "corpora": {"cra": "cra-corpus"},
           "folds": {"kind": "kfold", "corpus": "cra", "k": 2},
           "features": ["location", "section", "ngrams", "zone"],
           "model": {"c1": 0.05, "c2": 0.01, "max_iterations": 5, "secondary": False,
                     "verbose": False}}
    result = ex.run_experiment(cfg, jobs=1, settings=store, max_papers=4, log_models=False)
    assert result.partial == "first 4 papers of each corpus"
    assert "PARTIAL RUN (first 4 papers of each corpus)" in ex.summary_line(result)
    assert 0 <= result.metrics["ece_primary"] <= 1 and "coverage_at_0.5" in result.metrics
    from mlflow.tracking import MlflowClient

    client = MlflowClient(store.tracking_uri)
    top = {a.path for a in client.list_artifacts(result.run_id)}
    assert {"calibration.json", "reliability.png", "coverage.png"} <= top
    assert client.get_run(result.run_id).data.tags["coresc.partial"]
    files = write_report(["trial"], tmp_path / "r.md", tracking_uri=store.tracking_uri,
                         experiment_name="trust")
    text = (tmp_path / "r.md").read_text()
    assert "**Partial runs**" in text and "| trial (PARTIAL: first 4 papers" in text
    assert "## Scores: calibration and the accuracy / coverage curve" in text
    assert {Path(f).name for f in files} >= {"r-reliability.png", "r-coverage.png"}
