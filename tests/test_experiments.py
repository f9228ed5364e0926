"""The experiment runner: config validation, folds, metric naming, MLflow run states."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from helpers import tiny_experiment

from coresc import experiments as ex
from coresc.cli import main
from coresc.document import Label, Paper, Paragraph, Section, Sentence
from coresc.errors import UsageError
from coresc.tracking import TrackingSettings

CONFIGS = sorted(ex.CONFIGS_DIR.glob("*.yaml"))


# --------------------------------------------------------------------------- helpers

def _paper(pid: str, n: int, source: str | None = None, labels=("Bac",)) -> Paper:
    sents = [Sentence(sid=str(i + 1), text=f"Sentence {i} of {pid}.",
                      gold=[Label(labels[i % len(labels)])]) for i in range(n)]
    return Paper(id=pid, source_path=source,
                 sections=[Section("Intro", "introduction", paragraphs=[Paragraph(sents)])])


@pytest.fixture()
def data(tmp_path: Path) -> Path:
    """A fake data folder: the corpora need only exist for config validation."""
    for d in ("art-corpus/ann1", "art-corpus/ann2", "cra-corpus", "oa-stm/coresc-auto"):
        (tmp_path / d).mkdir(parents=True)
    (tmp_path / "oa-stm" / "categories.tsv").write_text("P1\tBiology\nP2\tChemistry\n")
    return tmp_path


def _cfg(**over):
    base = {"name": "t", "corpora": {"cra": "cra-corpus"},
            "folds": {"kind": "kfold", "corpus": "cra", "k": 3}}
    base.update(over)
    return base


# --------------------------------------------------------------------------- validation

def test_shipped_configs_validate(shared_data: Path) -> None:
    names = {p.stem for p in CONFIGS}
    assert {"art-9fold", "cra-3fold", "art-to-cra", "cra-to-art", "art+cra-to-oa-stm",
            "oa-stm-leave-one-domain-out", "csabstruct"} <= names
    for path in CONFIGS:
        cfg = ex.load_config(path)
        assert cfg.name == path.stem
        silver = any(c.labels == "silver" for c in cfg.corpora.values())
        assert silver == ("oa" in path.stem), path  # the OA-STM labels are SAPIENTA's


def test_valid_config_defaults(data: Path) -> None:
    cfg = ex.load_config(_cfg(), data=data)
    from coresc.features import FEATURE_GROUPS
    assert cfg.features == tuple(FEATURE_GROUPS)
    assert cfg.corpora["cra"].labels == "gold" and cfg.seed == 0
    oa = ex.load_config(_cfg(corpora={"oa": "oa-stm/coresc-auto"},
                             folds={"kind": "kfold", "corpus": "oa", "k": 2}), data=data)
    assert oa.corpora["oa"].labels == "silver"  # SAPIENTA's output is never gold
    ex_cfg = ex.load_config(_cfg(features={"exclude": ["ngrams"]}), data=data)
    assert "ngrams" not in ex_cfg.features and "location" in ex_cfg.features


@pytest.mark.parametrize("over, message", [
    ({"corpora": {"cra": "no-such-corpus"}}, "corpus 'cra' not found"),
    ({"features": ["ngrams", "telepathy"]}, "unknown feature group(s) telepathy"),
    ({"folds": {"kind": "kfold", "corpus": "cra", "k": 1}}, "bad fold count"),
    ({"folds": {"kind": "kfold", "corpus": "cra", "k": "three"}}, "bad fold count"),
    ({"folds": {"kind": "dirs", "corpus": "cra", "dirs": ["ann1"]}}, "bad fold count"),
    ({"folds": {"kind": "random", "corpus": "cra"}}, "needs a kind"),
    ({"folds": {"kind": "kfold", "corpus": "art", "k": 3}}, "does not define"),
    ({"model": {"c3": 1.0}}, "unknown model hyper-parameter(s) c3"),
    ({"seed": "x"}, "'seed' must be an integer"),
    ({"folds": {"kind": "kfold", "corpus": "cra", "k": 3, "also_train": ["cra"]}},
     "'also_train' must list corpora other than"),
    ({"folds": {"kind": "kfold", "corpus": "cra", "k": 3, "also_train": ["art"]}},
     "does not define"),
    ({"model": {"domains": ["annotator"]}}, "unknown domain kind"),
    ({"model": {"decode": "greedy"}}, "decode must be one of"),
    ({"model": {"c_grid": [[0.5, -5.0]]}}, "c_grid must list (c1, c2) pairs"),
    ({"folds": {"kind": "train-test", "train": "cra", "test": "cra", "also_train": ["cra"]}},
     "train-test folds take no 'also_train'"),
    ({"epochs": 3}, "unknown key(s) epochs"),
])
def test_bad_configs_fail_with_one_line(data: Path, over, message) -> None:
    with pytest.raises(UsageError) as err:
        ex.load_config(_cfg(**over), data=data)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_cli_bad_config_exits_nonzero_before_training(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("CORESC_DATA", str(tmp_path))
    (tmp_path / "cra-corpus").mkdir()
    cfg = tmp_path / "bad.yaml"
    cfg.write_text("corpora: {cra: cra-corpus}\nfolds: {kind: kfold, corpus: cra, k: 3}\n"
                   "features: [ngrams, nonsense]\n")
    assert main(["experiment", str(cfg)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "nonsense" in err and str(cfg) in err
    assert main(["experiment", "no-such-experiment"]) == 2


# --------------------------------------------------------------------------- folds

def test_balanced_kfold_largest_first_greedy() -> None:
    sizes = {"a": 10, "b": 9, "c": 5, "d": 4, "e": 1, "f": 1}
    # a->0, b->1, c->1 (9<10), d->0 (10<14), e->0? totals 14,14 -> fold 0; f->1
    assert ex.balanced_kfold(sizes, 2) == [["a", "d", "e"], ["b", "c", "f"]]
    with pytest.raises(UsageError, match="bad fold count"):
        ex.balanced_kfold(sizes, 7)


def test_make_folds_all_kinds(data: Path, monkeypatch) -> None:
    monkeypatch.setenv("CORESC_DATA", str(data))
    papers = {}
    for i, n in enumerate([30, 20, 10, 5]):
        p = _paper(f"A{i}", n, source=str(data / "art-corpus" / f"ann{i % 2 + 1}" / "x.xml"))
        p.meta["corpus"] = "art"
        papers[f"art/A{i}"] = p
    for pid in ("P1", "P2", "P3"):
        p = _paper(pid, 4)
        p.meta["corpus"] = "oa"
        papers[f"oa/{pid}"] = p
    corpora = {"art": "art-corpus", "oa": "oa-stm/coresc-auto"}

    dirs = ex.load_config(_cfg(corpora=corpora, folds={
        "kind": "dirs", "corpus": "art", "dirs": ["ann1", "ann2"]}), data=data)
    folds = ex.make_folds(dirs, papers)
    assert [(f.name, f.test) for f in folds] == [("ann1", ["art/A0", "art/A2"]),
                                                  ("ann2", ["art/A1", "art/A3"])]
    assert folds[0].train == ["art/A1", "art/A3"]

    kf = ex.make_folds(ex.load_config(_cfg(corpora=corpora, folds={
        "kind": "kfold", "corpus": "art", "k": 2}), data=data), papers)
    assert [f.test for f in kf] == [["art/A0", "art/A3"], ["art/A1", "art/A2"]]
    for f in kf:  # every paper is tested exactly once and never trained on in its fold
        assert not set(f.train) & set(f.test)

    tt = ex.make_folds(ex.load_config(_cfg(corpora=corpora, folds={
        "kind": "train-test", "train": ["art"], "test": "oa"}), data=data), papers)
    assert len(tt) == 1 and len(tt[0].train) == 4 and len(tt[0].test) == 3

    lodo = ex.load_config(_cfg(corpora=corpora, folds={
        "kind": "leave-one-domain-out", "corpus": "oa"}), data=data)
    folds = ex.make_folds(lodo, papers)  # P3 has no domain: left out of every fold
    assert [(f.name, f.train, f.test) for f in folds] == [
        ("Biology", ["oa/P2"], ["oa/P1"]), ("Chemistry", ["oa/P1"], ["oa/P2"])]

    aux = ex.make_folds(ex.load_config(_cfg(corpora=corpora, folds={
        "kind": "leave-one-domain-out", "corpus": "oa", "also_train": "art"}), data=data),
        papers)  # ART joins every fold's training papers, never a test set
    assert [(f.train, f.test) for f in aux] == [
        (["oa/P2", "art/A0", "art/A1", "art/A2", "art/A3"], ["oa/P1"]),
        (["oa/P1", "art/A0", "art/A1", "art/A2", "art/A3"], ["oa/P2"])]

    k9 = ex.load_config(_cfg(corpora=corpora, folds={"kind": "kfold", "corpus": "oa", "k": 9}),
                        data=data)
    with pytest.raises(UsageError, match="bad fold count"):
        ex.make_folds(k9, papers)


# --------------------------------------------------------------------------- metrics

def test_silver_metrics_are_agreement_not_accuracy() -> None:
    gold = {"p": [["Bac"], ["Met"], ["Res", "Con"], []]}
    pred = {"p": [["Bac"], ["Bac"], ["Res"], ["Bac"]]}
    scores = ex.score_predictions(gold, pred)
    assert scores["n_sentences"] == 3  # the unlabelled sentence is left out
    gold_m = ex.flat_metrics(scores, silver=False)
    silver_m = ex.flat_metrics(scores, silver=True)
    assert gold_m["accuracy"] == pytest.approx(2 / 3)
    assert silver_m["silver_agreement"] == pytest.approx(2 / 3)
    assert not any("accuracy" in k for k in silver_m)
    assert gold_m["f1_Bac"] == pytest.approx(2 / 3)
    assert {"kappa_weighted_micro", "kappa_coresc1_macro", "top2_recall"} <= set(gold_m)


def test_other_label_sets_score() -> None:
    # CSAbstruct-style labels: no CoreSC label, no second labels.
    gold = {"a": [["background"], ["method"], ["result"]]}
    pred = {"a": [["background"], ["result"], ["result"]]}
    m = ex.flat_metrics(ex.score_predictions(gold, pred), silver=False)
    assert m["accuracy"] == pytest.approx(2 / 3) and "f1_background" in m
    assert "top2_recall" not in m  # undefined without gold second labels, not 0


# --------------------------------------------------------------------------- MLflow states

@pytest.fixture(scope="module")
def store(tmp_path_factory) -> TrackingSettings:
    d = tmp_path_factory.mktemp("mlflow")
    return TrackingSettings(f"sqlite:///{d}/mlflow.db", "tests", (d / "artifacts").as_uri())


def _runs(store: TrackingSettings, config: str):
    from mlflow.tracking import MlflowClient
    client = MlflowClient(store.tracking_uri)
    exp = client.get_experiment_by_name(store.experiment_name)
    return client.search_runs([exp.experiment_id], f"tags.`coresc.config` = '{config}'")


@pytest.mark.parametrize("exc, status", [(RuntimeError("boom"), "FAILED"),
                                          (KeyboardInterrupt(), "KILLED")])
def test_failing_or_interrupted_training_never_leaves_runs_running(
        shared_data, store, monkeypatch, exc, status) -> None:
    from coresc.model import CoreSCClassifier

    def fit(self, papers):
        raise exc

    monkeypatch.setattr(CoreSCClassifier, "fit", fit)
    name = f"broken-{status}"
    with pytest.raises(type(exc)):
        ex.run_experiment(tiny_experiment(name), jobs=1, settings=store, max_papers=4)
    runs = _runs(store, name)
    assert len(runs) == 3  # parent + 2 folds
    statuses = {r.data.tags["coresc.kind"] + ":" + r.info.status for r in runs}
    assert statuses == {f"experiment:{status}", f"fold:{status}"}


@pytest.mark.slow
def test_tiny_experiment_logs_everything_and_reproduces(shared_data, store) -> None:
    """(How long it takes: benchmarks/failure_latency.py.)"""
    import mlflow
    from mlflow.tracking import MlflowClient

    first = ex.run_experiment(tiny_experiment("tiny"), jobs=2, settings=store, max_papers=4)
    second = ex.run_experiment(tiny_experiment("tiny"), jobs=1, settings=store, max_papers=4,
                               log_models=False)
    for key in ("accuracy", "macro_f1", "kappa_coresc1_micro", "f1_Bac"):
        assert first.metrics[key] == second.metrics[key]  # same seed, same folds
    client = MlflowClient(store.tracking_uri)
    parent = client.get_run(first.run_id)
    assert parent.info.status == "FINISHED"
    assert parent.data.params["fold_kind"] == "kfold"
    assert {"code_version", "source_hash", "features", "corpora"} <= set(parent.data.params)
    top = {a.path for a in client.list_artifacts(first.run_id)}
    assert {"folds.json", "confusion.png", "per_label.csv", "report.md",
            "predictions.jsonl"} <= top
    folds = json.loads(Path(client.download_artifacts(first.run_id, "folds.json")).read_text())
    assert sorted(k for f in folds["folds"] for k in f["test"]) == sorted(
        k for f in folds["folds"] for k in f["train"])  # 2 folds: each paper once per side
    children = _runs(store, "tiny")
    fold_runs = [r for r in children if r.data.tags.get("mlflow.parentRunId") == first.run_id]
    assert len(fold_runs) == 2 and all(r.info.status == "FINISHED" for r in fold_runs)
    fr = fold_runs[0]
    assert {"accuracy", "train_time_s", "predict_time_s", "kappa_strict_macro"} <= set(
        fr.data.metrics)
    model = mlflow.pyfunc.load_model(f"runs:/{fr.info.run_id}/model")
    out = model.predict([{"paper": "x", "text": "We measured the weight of the rats."},
                         {"paper": "x", "text": "These results suggest a risk."}])
    assert list(out.columns[:3]) == ["paper", "sid", "label"] and len(out) == 2
    assert set(out["label"]) <= set(_meta_labels(client, fr.info.run_id))


@pytest.mark.slow
def test_experiment_command_runs_a_config_file_end_to_end(shared_data, tmp_path, monkeypatch,
                                                          capsys) -> None:
    """`coresc experiment FILE`: the tracking settings of the working folder's mlflow.yaml,
    one summary line per config on stdout, the runs finished in that store."""
    import yaml
    from mlflow.tracking import MlflowClient

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    (tmp_path / "mlflow.yaml").write_text("tracking_uri: sqlite:///runs.db\n"
                                          "experiment_name: cli\nartifact_location: ./art\n")
    config = tmp_path / "cli-tiny.yaml"
    config.write_text(yaml.safe_dump(tiny_experiment("cli-tiny")))
    assert main(["experiment", str(config), "--max-papers", "4", "--jobs", "1",
                 "--no-models"]) == 0
    [line] = capsys.readouterr().out.splitlines()
    client = MlflowClient(f"sqlite:///{tmp_path}/runs.db")
    exp = client.get_experiment_by_name("cli")
    runs = client.search_runs([exp.experiment_id], "tags.`coresc.config` = 'cli-tiny'")
    assert len(runs) == 3 and {r.info.status for r in runs} == {"FINISHED"}  # parent + 2
    [parent] = [r for r in runs if r.data.tags["coresc.kind"] == "experiment"]
    assert line.startswith("cli-tiny: ") and parent.info.run_id in line
    assert f"accuracy {parent.data.metrics['accuracy']:.4f}" in line
    assert (tmp_path / "art").is_dir() and not list(tmp_path.glob("mlruns"))


def _meta_labels(client, run_id: str) -> list[str]:
    """The label list the logged model was trained with (from its meta.json)."""
    local = Path(client.download_artifacts(run_id, "model"))
    meta = next(local.rglob("meta.json"))
    return json.loads(meta.read_text())["labels"]


# --------------------------------------------------------------------------- reports

def test_published_numbers_match_the_scheme_doc(shared_data: Path) -> None:
    from coresc.report import PUBLISHED_CRA_CRF_F1, parse_published_f1

    doc = shared_data.parent / "docs" / "coresc-scheme.md"  # shared/docs beside shared/data
    assert parse_published_f1(doc.read_text(encoding="utf-8")) == PUBLISHED_CRA_CRF_F1


def _fake_run(client, exp_id, config, test, train, metrics, silver=False, kind="experiment",
              parent=None, fold=None, lodo=False):
    tags = {"coresc.config": config, "coresc.kind": kind,
            "coresc.reference_labels": "silver" if silver else "gold"}
    if parent:
        tags.update({"mlflow.parentRunId": parent, "coresc.fold": fold})
    run = client.create_run(exp_id, run_name=config, tags=tags)
    from mlflow.entities import Metric, Param
    params = {"test_corpora": test, "train_corpora": train,
              "fold_kind": "leave-one-domain-out" if lodo else "kfold"}
    client.log_batch(run.info.run_id, metrics=[Metric(k, v, 0, 0) for k, v in metrics.items()],
                     params=[Param(k, v) for k, v in params.items()])
    client.set_terminated(run.info.run_id, "FINISHED")
    return run.info.run_id


def test_report_side_by_side_published_and_domains(store, tmp_path) -> None:
    from mlflow.tracking import MlflowClient

    from coresc.report import write_report

    client = MlflowClient(store.tracking_uri)
    exp = client.get_experiment_by_name(store.experiment_name)
    eid = exp.experiment_id if exp else client.create_experiment(store.experiment_name)
    _fake_run(client, eid, "art-to-cra", "cra", "art",
              {"accuracy": 0.61, "macro_f1": 0.4, "precision_Bac": 0.5, "recall_Bac": 0.9,
               "f1_Bac": 0.643, "f1_Hyp": 0.1})
    cra = _fake_run(client, eid, "cra-3fold", "cra", "cra",
                    {"accuracy": 0.72, "macro_f1": 0.56, "f1_Bac": 0.8, "f1_Hyp": 0.2})
    lodo = _fake_run(client, eid, "lodo", "oa", "oa", {"silver_agreement": 0.5}, silver=True,
                     lodo=True)
    for dom, f in (("Biology", 0.7), ("Chemistry", 0.4)):
        _fake_run(client, eid, "lodo", "oa", "oa", {"silver_f1_Bac": f, "silver_f1_Met": 0.3},
                  silver=True, kind="fold", parent=lodo, fold=dom)
    files = write_report(["art-to-cra", cra, "lodo"], tmp_path / "r.md",
                         tracking_uri=store.tracking_uri, experiment_name=store.experiment_name)
    text = (tmp_path / "r.md").read_text()
    assert all(f.exists() for f in files) and len(files) == 3  # md, cra plot, domain plot
    # Table 8 layout: both models on CRA in one row per label, published F1 alongside.
    assert "| Bac | 50.0 | 90.0 | 64.3 | - | - | 80.0 | 76.7 |" in text  # P R F1 x 2, published
    assert "| Hyp | - | - | 10.0 | - | - | 20.0 | 13.9 |" in text
    assert "| published: SAPIENTA trained on ART, run on CRA | | | gold: accuracy | 51.9 |" in text
    assert "| Biology | 30.0 | 70.0 |" in text and "| Chemistry | 30.0 | 40.0 |" in text  # Met, Bac
    assert "silver: agreement with SAPIENTA | 50.0" in text
    with pytest.raises(UsageError, match="no finished experiment run"):
        write_report(["never-ran"], tmp_path / "x.md", tracking_uri=store.tracking_uri,
                     experiment_name=store.experiment_name)


def test_report_command_writes_the_report_and_lists_its_files(store, tmp_path,
                                                               capsys) -> None:
    """`coresc report` itself: the files it wrote on standard output, one line on stderr,
    and the report write_report makes of the same run."""
    from mlflow.tracking import MlflowClient

    from coresc.report import write_report

    client = MlflowClient(store.tracking_uri)
    exp = client.get_experiment_by_name(store.experiment_name)
    eid = exp.experiment_id if exp else client.create_experiment(store.experiment_name)
    _fake_run(client, eid, "cli-report", "cra", "cra",
              {"accuracy": 0.7, "macro_f1": 0.5, "f1_Bac": 0.8, "f1_Hyp": 0.2})
    where = ["--tracking-uri", store.tracking_uri, "--experiment-name", store.experiment_name]
    out = tmp_path / "cli" / "report.md"
    assert main(["report", "cli-report", *where, "-o", str(out)]) == 0
    stdout, stderr = capsys.readouterr()
    listed = [Path(line) for line in stdout.splitlines()]
    assert listed[0] == out and len(listed) == 2 and all(f.is_file() for f in listed)
    assert stderr.splitlines()[-1] == f"[coresc] report written: {out}"  # MLflow prints before it
    same = write_report(["cli-report"], tmp_path / "api" / "report.md",
                        tracking_uri=store.tracking_uri, experiment_name=store.experiment_name)
    assert out.read_text() == same[0].read_text()
    assert "| Bac |" in out.read_text()


def test_sigterm_becomes_an_interrupt_inside_the_runner() -> None:
    import os
    import signal

    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt), ex._sigterm_raises():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the handler interrupts this
    assert signal.getsignal(signal.SIGTERM) == before


def test_runs_log_intervals_over_papers_beside_the_scores() -> None:
    gold = {f"p{i}": [["Bac"], ["Met"], ["Res"], ["Con"]] for i in range(6)}
    pred = {f"p{i}": [["Bac"], ["Met"] if i % 2 else ["Bac"], ["Res"], ["Res"]]
            for i in range(6)}
    scores = ex.score_predictions(gold, pred, {f"p{i}": str(i % 2) for i in range(6)},
                                  intervals=True)
    m = ex.flat_metrics(scores, silver=False)
    assert m["accuracy_ci_low"] <= m["accuracy"] <= m["accuracy_ci_high"]
    assert m["n_papers"] == 6 and "kappa_coresc1_micro_ci_low" in m and "f1_Bac_ci_high" in m
    assert scores["interval"]["strata"] == 2
    silver = ex.flat_metrics(scores, silver=True)
    assert "silver_agreement_ci_low" in silver and not any("accuracy" in k for k in silver)
    assert "0.95" not in ex.markdown_summary("t", scores, False, {})  # shown as 95%
    assert "95% intervals, t interval over papers" in ex.markdown_summary(
        "t", scores, False, {})
    assert "_ci_low" not in str(ex.flat_metrics(ex.score_predictions(gold, pred), False))


def test_seeds_validate(data: Path) -> None:
    cfg = ex.load_config(_cfg(seeds=[0, 1, 2]), data=data)
    assert cfg.seeds == (0, 1, 2) and cfg.seed == 0
    for bad in ([0], [1, 1], "0,1", [0, True]):
        with pytest.raises(UsageError, match="'seeds' must be a list of two or more"):
            ex.load_config(_cfg(seeds=bad), data=data)
    with pytest.raises(UsageError, match="'seed' or 'seeds', not both"):
        ex.load_config(_cfg(seed=1, seeds=[0, 1]), data=data)


@pytest.mark.slow
def test_a_config_with_seeds_runs_once_per_seed_and_logs_the_spread(shared_data,
                                                                     store) -> None:
    result = ex.run_experiment({**tiny_experiment("tiny-seeds"), "seeds": [0, 1]}, jobs=1,
                               settings=store, max_papers=4, log_models=False)
    runs = [r for r in _runs(store, "tiny-seeds") if r.data.tags["coresc.kind"] == "experiment"]
    assert sorted(r.data.tags["coresc.seed"] for r in runs) == ["0", "1"]
    assert sorted(r.data.params["seed"] for r in runs) == ["0", "1"]
    for r in runs:
        assert r.data.metrics["n_seeds"] == 2
        assert {"seed_mean_accuracy", "seed_std_accuracy"} <= set(r.data.metrics)
    values = result.seed_spread["accuracy"]
    assert result.metrics["seed_mean_accuracy"] == pytest.approx(sum(values) / 2)
    assert "the last of seeds 0,1: accuracy mean" in ex.summary_line(result)


def test_summary_line_gives_the_interval() -> None:
    from coresc.experiments.runner import ExperimentResult

    m = {"accuracy": 0.7094, "macro_f1": 0.5439, "accuracy_ci_low": 0.6931,
         "accuracy_ci_high": 0.7262, "n_papers": 50.0}
    line = ex.summary_line(ExperimentResult("cra-3fold", "r" * 32, "0", "x", m, {}, {},
                                            99.0, False))
    assert "accuracy 0.7094 [95% CI 0.6931-0.7262, 50 papers], macro-F1 0.5439" in line
