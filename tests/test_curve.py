"""Learning-curve experiments: the fold kind, the choice of papers, the summary, a tiny
run through the runner and MLflow."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coresc import experiments as ex
from coresc.document import Label, Paper, Paragraph, Prediction, Section, Sentence
from coresc.errors import UsageError
from coresc.experiments.curve import curve_folds, curve_summary, curve_table, spread
from coresc.tracking import TrackingSettings


def _paper(pid: str, corpus: str, n: int = 3) -> Paper:
    sents = [Sentence(sid=str(i + 1), text=f"Sentence {i} of {pid} about {pid}s.",
                      gold=[Label("Bac" if i % 2 else "Res")]) for i in range(n)]
    p = Paper(id=pid, sections=[Section("Intro", "introduction",
                                        paragraphs=[Paragraph(sents)])])
    p.meta["corpus"] = corpus
    return p


@pytest.fixture()
def data(tmp_path: Path) -> Path:
    for d in ("art-corpus", "cra-corpus"):
        (tmp_path / d).mkdir()
    return tmp_path


def _spec(**over) -> dict:
    folds = {"kind": "learning-curve", "source": ["art"], "target": "cra",
             "target_folds": 2, "sizes": [0, 1, 2], "repeats": 2,
             "choose": ["random", "select"]}
    folds.update(over)
    return {"name": "curve", "corpora": {"art": "art-corpus", "cra": "cra-corpus"},
            "folds": folds}


def _papers() -> dict[str, Paper]:
    out = {f"art/a{i}": _paper(f"a{i}", "art") for i in range(3)}
    out.update({f"cra/c{i}": _paper(f"c{i}", "cra", n=2 + i) for i in range(6)})
    return out


class Source:
    """A source model that is least sure on the papers with the highest number."""

    def rank(self, papers):
        return [[[Prediction("Res", 1.0 - int(p.id[1:]) / 10)] for _ in p.sentences()]
                for p in papers]


def test_curve_config_defaults_and_checks(data: Path) -> None:
    cfg = ex.load_config(_spec(), data=data)
    assert cfg.folds["test_folds"] == [1, 2] and cfg.folds["adapt"] == {}
    assert cfg.folds["diversity"] == 0.5
    for over, message in [({"target": "art"}, "cannot also be a source"),
                          ({"sizes": [-1]}, "'sizes'"), ({"test_folds": [3]}, "test_folds"),
                          ({"choose": ["psychic"]}, "'choose'"),
                          ({"target_folds": 1}, "bad fold count"),
                          ({"repeats": 0}, "'repeats'"), ({"source": []}, "'source'"),
                          ({"adapt": [1]}, "'adapt'"), ({"target": "oa"}, "'oa'"),
                          ({"adapt": {"c3": 1}}, "unknown argument")]:
        with pytest.raises(UsageError, match=message):
            ex.load_config(_spec(**over), data=data)


def test_curve_folds_keep_test_papers_out_of_the_pool(data: Path) -> None:
    cfg = ex.load_config(_spec(), data=data)
    papers = _papers()
    folds = curve_folds(cfg, papers, Source())
    # per test fold: k=0 once, 2 sizes x 2 random repetitions, 2 sizes x select
    assert len(folds) == 2 * (1 + 4 + 2)
    for f in folds:
        assert f.train == ["art/a0", "art/a1", "art/a2"]
        assert len(f.adapt) == f.info["k"] and not set(f.adapt) & set(f.test)
        assert all(k.startswith("cra/") for k in f.adapt + f.test)
    by = {f.name: f for f in folds}
    # a repetition's smaller set is part of its larger one; repetitions differ in order
    assert by["fold1-k01-random-r1"].adapt == by["fold1-k02-random-r1"].adapt[:1]
    # select takes the papers the source is least sure of (highest number) first
    assert by["fold1-k01-select"].adapt == by["fold1-k02-select"].adapt[:1]
    assert by["fold1-k00-source"].adapt == []
    assert [f.name for f in curve_folds(cfg, papers, Source())] == list(by)  # deterministic
    assert [f.adapt for f in curve_folds(cfg, papers, Source())] == [f.adapt for f in folds]


def test_select_order_prefers_uncertain_papers(data: Path) -> None:
    cfg = ex.load_config(_spec(sizes=[3], choose=["select-rate"], diversity=0.0), data=data)
    folds = curve_folds(cfg, _papers(), Source())
    for f in folds:
        pool = sorted(k for k in _papers() if k.startswith("cra/") and k not in f.test)
        assert f.adapt == sorted(pool, key=lambda k: -int(k[-1]))[:3]


def test_without_a_source_select_is_left_to_choose(data: Path) -> None:
    cfg = ex.load_config(_spec(), data=data)
    folds = curve_folds(cfg, _papers())
    assert all(f.adapt is None for f in folds if f.info["choose"] == "select")


def test_sizes_larger_than_the_pool_are_left_out(data: Path, capsys) -> None:
    cfg = ex.load_config(_spec(sizes=[0, 2, 4], choose=["random"], repeats=1), data=data)
    folds = curve_folds(cfg, _papers(), Source())
    assert {f.info["k"] for f in folds} == {0, 2}  # the pool holds 3 papers
    assert "sizes [4] left out" in capsys.readouterr().err


def test_summary_mean_spread_and_table(data: Path) -> None:
    cfg = ex.load_config(_spec(sizes=[0, 1], choose=["random", "select"]), data=data)
    folds = curve_folds(cfg, _papers(), Source())
    acc = {"fold1-k00-source": 0.5, "fold2-k00-source": 0.7,
           "fold1-k01-random-r1": 0.6, "fold1-k01-random-r2": 0.8,
           "fold2-k01-random-r1": 0.6, "fold2-k01-random-r2": 0.6,
           "fold1-k01-select": 0.9, "fold2-k01-select": 0.7}
    fold_metrics = {n: {"accuracy": a, "macro_f1": a / 2} for n, a in acc.items()}
    metrics, rows = curve_summary(folds, fold_metrics, silver=False)
    assert metrics["curve_source_k0_accuracy_mean"] == pytest.approx(0.6)
    assert metrics["curve_random_k1_accuracy_mean"] == pytest.approx(0.65)
    assert metrics["curve_random_k1_accuracy_min"] == 0.6
    assert metrics["curve_random_k1_accuracy_n"] == 4
    assert metrics["curve_select_k1_accuracy_sd"] == pytest.approx(0.1)
    table = "\n".join(curve_table(rows))
    assert "| 1 |  | 65.0 ± 8.7 (60.0-80.0) / 0.325 | 80.0 ± 10.0 (70.0-90.0) / 0.400 | " \
           "+15.0 |" in table
    assert spread([1.0]) == {"mean": 1.0, "sd": 0.0, "min": 1.0, "max": 1.0, "n": 1.0}


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> TrackingSettings:
    d = tmp_path_factory.mktemp("mlflow")
    return TrackingSettings(f"sqlite:///{d}/mlflow.db", "tests", (d / "artifacts").as_uri())


def _tiny(sizes) -> dict:
    return {"name": "tiny-curve", "corpora": {"art": "art-corpus", "cra": "cra-corpus"},
            "folds": {"kind": "learning-curve", "source": ["art"], "target": "cra",
                      "target_folds": 2, "sizes": sizes, "repeats": 1,
                      "choose": ["random", "select"],
                      "adapt": {"c1": 0.05, "c2": 0.01, "max_iterations": 5,
                                "secondary": False, "verbose": False}},
            "features": ["location", "section", "ngrams", "zone"],
            "model": {"c1": 0.05, "c2": 0.01, "max_iterations": 5, "secondary": False,
                      "inner_folds": 2, "verbose": False}}


@pytest.mark.slow
def test_tiny_curve_runs_and_logs_the_summary(shared_data, store, tmp_path) -> None:
    from mlflow.tracking import MlflowClient

    from coresc.report import write_report

    result = ex.run_experiment(_tiny([0, 2]), jobs=1, settings=store, max_papers=4,
                               log_models=False)
    client = MlflowClient(store.tracking_uri)
    parent = client.get_run(result.run_id)
    assert parent.info.status == "FINISHED" and parent.data.params["fold_kind"] == \
        "learning-curve"
    m = result.metrics
    assert m["curve_source_k0_accuracy_n"] == 2 and 0 <= m["curve_source_k0_accuracy_mean"] <= 1
    assert m["source_train_time_s"] > 0 and "accuracy" not in m  # nothing pooled
    curve = json.loads(Path(client.download_artifacts(result.run_id, "curve.json")).read_text())
    assert [(r["choose"], r["k"]) for r in curve["rows"]] == [
        ("source", 0), ("random", 2), ("select", 2)]
    assert m["curve_select_k2_accuracy_n"] == 2
    assert "learning curve, mean accuracy: k=0: source" in ex.summary_line(result)
    folds = json.loads(Path(client.download_artifacts(result.run_id, "folds.json")).read_text())
    for f in folds["folds"]:
        assert not set(f["test"]) & set(f["adapt"]) and len(f["adapt"]) == f["k"]
    write_report([result.run_id], tmp_path / "r.md", tracking_uri=store.tracking_uri,
                 experiment_name=store.experiment_name)
    text = (tmp_path / "r.md").read_text()
    assert "## Learning curve: tiny-curve" in text
    mean = 100 * m["curve_source_k0_accuracy_mean"]
    assert f"| 0 | {mean:.1f} ± " in text and "| 0 | source | fold1 " in text


def test_a_curve_fold_adapts_the_source_to_its_papers(data: Path, monkeypatch) -> None:
    import sys
    import types

    from coresc.experiments.curve import run_curve_fold

    seen = []
    fake = types.ModuleType("coresc.model.adapt")
    fake.adapt = lambda source, papers, **kw: seen.append((source, [p.id for p in papers],
                                                           kw)) or "adapted"
    monkeypatch.setitem(sys.modules, "coresc.model.adapt", fake)
    cfg = ex.load_config(_spec(adapt={"c2": 1.0}), data=data)
    papers, source = _papers(), Source()
    by = {f.name: f for f in curve_folds(cfg, papers, source)}
    assert run_curve_fold(by["fold1-k00-source"], papers, source, {}) is source
    fold = by["fold2-k02-random-r1"]
    assert run_curve_fold(fold, papers, source, cfg.folds["adapt"]) == "adapted"
    assert seen == [(source, [papers[k].id for k in fold.adapt], {"c2": 1.0})]


def test_curve_rows_carry_macro_and_each_labels_f1_with_intervals():
    from coresc.experiments.curve import curve_f1_table, curve_summary
    from coresc.experiments.splits import Fold

    folds = [Fold(f"fold{i}-k05-random-r1", [], [], info={"choose": "random", "k": 5})
             for i in (1, 2)]
    metrics = {
        folds[0].name: {"accuracy": 0.6, "macro_f1": 0.4, "macro_f1_ci_low": 0.3,
                        "macro_f1_ci_high": 0.5, "f1_Hyp": 0.2, "f1_Hyp_ci_low": 0.1,
                        "f1_Hyp_ci_high": 0.3, "f1_Res": 0.7},
        folds[1].name: {"accuracy": 0.7, "macro_f1": 0.6, "macro_f1_ci_low": 0.5,
                        "macro_f1_ci_high": 0.7, "f1_Res": 0.9},
    }
    _, rows = curve_summary(folds, metrics, silver=False)
    f1 = rows[0]["f1"]
    assert f1["macro"]["mean"] == pytest.approx(0.5)
    assert f1["macro"]["ci"] == pytest.approx([0.4, 0.6])
    assert f1["Hyp"] == {"mean": pytest.approx(0.2), "n": 1, "ci": pytest.approx([0.1, 0.3])}
    assert f1["Res"]["mean"] == pytest.approx(0.8) and "ci" not in f1["Res"]
    table = curve_f1_table(rows)
    assert table[0] == "| k | choice | macro-F1 | Hyp | Res |"
    assert table[2] == "| 5 | random | 50.0 [40-60] | 20.0 [10-30] | 80.0 |"
