"""coresc report's per-label table and chart list the labels a run scored, read from the
metric names the experiment runner logs (with each label's F1 interval beside its F1)."""

from __future__ import annotations

from coresc.experiments.scoring import flat_metrics, score_predictions
from coresc.report import RunInfo
from coresc.report.tables import side_by_side

GOLD = {"P1": [["Bac"], ["Met"], ["Res"], ["Res"]],
        "P2": [["Bac"], ["Met"], ["Met"], ["Res"]],
        "P3": [["Bac"], ["Bac"], ["Met"], ["Res"]],
        "P4": [["Met"], ["Res"], ["Res"], ["Bac"]]}
PRED = {"P1": [["Bac"], ["Res"], ["Res"], ["Met"]],
        "P2": [["Bac"], ["Met"], ["Bac"], ["Res"]],
        "P3": [["Met"], ["Bac"], ["Met"], ["Res"]],
        "P4": [["Met"], ["Res"], ["Bac"], ["Bac"]]}


def logged_run(silver: bool = False) -> RunInfo:
    """A run with the metrics the runner logs for these predictions, intervals included."""
    scores = score_predictions(GOLD, PRED, intervals=True)
    return RunInfo(run_id="a" * 32, config="x", silver=silver, test="cra", train="cra",
                   metrics=flat_metrics(scores, silver), params={})


def test_interval_metrics_are_not_read_as_labels() -> None:
    for silver in (False, True):
        run = logged_run(silver)
        assert any(k.endswith("_ci_low") and "f1_" in k for k in run.metrics)  # logged
        per_label = run.per_label()
        assert set(per_label) == {"Bac", "Met", "Res"}, sorted(per_label)
        prefix = run.prefix
        for lab, s in per_label.items():
            assert s["f1"] == run.metrics[f"{prefix}f1_{lab}"]
            assert (s["f1_ci_low"], s["f1_ci_high"]) == (
                run.metrics[f"{prefix}f1_{lab}_ci_low"], run.metrics[f"{prefix}f1_{lab}_ci_high"])


def test_side_by_side_has_one_row_per_label() -> None:
    rows = side_by_side("cra", [logged_run()])[2:]
    assert [r.split(" | ")[0] for r in rows] == ["| Res", "| Met", "| Bac"]
