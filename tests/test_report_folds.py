"""coresc.report.per_fold_section: per-fold numbers of runs that share their folds."""

from __future__ import annotations

from types import SimpleNamespace

from coresc.report import RunInfo, per_fold_section


class FakeClient:
    """search_runs for child runs, from {parent id: {fold: metrics}}."""

    def __init__(self, children: dict[str, dict[str, dict[str, float]]]) -> None:
        self.children = children

    def search_runs(self, experiment_ids, query, max_results=1000):
        parent = query.split("'")[1]
        return [SimpleNamespace(data=SimpleNamespace(tags={"coresc.fold": fold},
                                                     metrics=metrics),
                                info=SimpleNamespace(run_name=f"x/{fold}"))
                for fold, metrics in self.children.get(parent, {}).items()]


def run(run_id: str, config: str, test: str = "cra") -> RunInfo:
    return RunInfo(run_id=run_id, config=config, silver=False, test=test, train="cra",
                   metrics={}, params={})


def test_per_fold_rows_and_changes():
    client = FakeClient({
        "a": {"fold1": {"accuracy": 0.70, "macro_f1": 0.50},
              "fold2": {"accuracy": 0.72, "macro_f1": 0.55}},
        "b": {"fold1": {"accuracy": 0.74, "macro_f1": 0.58},
              "fold2": {"accuracy": 0.715, "macro_f1": 0.56}},
    })
    md = per_fold_section(client, "0", [run("a", "cra-3fold"), run("b", "cra-3fold-encoder")])
    text = "\n".join(md)
    assert "cra-3fold vs cra-3fold-encoder" in text
    assert "| fold1 | 70.0 / 0.500 | 74.0 / 0.580 | +4.00 |" in text
    assert "| fold2 | 72.0 / 0.550 | 71.5 / 0.560 | -0.50 |" in text


def test_runs_with_other_folds_or_one_fold_are_not_compared():
    client = FakeClient({
        "a": {"fold1": {"accuracy": 0.7}, "fold2": {"accuracy": 0.7}},
        "b": {"ann1": {"accuracy": 0.5}, "ann2": {"accuracy": 0.5}},
        "c": {"art-to-cra": {"accuracy": 0.6}},
        "d": {"art-to-cra": {"accuracy": 0.65}},
    })
    runs = [run("a", "cra-3fold"), run("b", "art-9fold", "art"),
            run("c", "art-to-cra"), run("d", "art-to-cra-encoder")]
    assert per_fold_section(client, "0", runs) == []
