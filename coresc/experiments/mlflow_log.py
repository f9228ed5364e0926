"""MLflow logging: parameters, metrics and artefacts of the fold runs and the parent run.

mlflow is imported only here, and only when a run is logged."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..stats import strata_of
from ._util import _write_json
from .artifacts import prediction_records, write_artifacts
from .config import ExperimentConfig
from .curve import spread
from .scoring import flat_metrics, score_predictions
from .splits import Fold
from .workers import FoldResult


def _log_params(client, run_id: str, params: Mapping[str, str]) -> None:
    from mlflow.entities import Param

    client.log_batch(run_id, params=[Param(k, str(v)[:6000]) for k, v in params.items()])


def _log_metrics(client, run_id: str, metrics: Mapping[str, float]) -> None:
    from mlflow.entities import Metric

    now = int(time.time() * 1000)
    items = [Metric(k, float(v), now, 0) for k, v in metrics.items()]
    for i in range(0, len(items), 900):  # MLflow caps a batch at 1000 metrics
        client.log_batch(run_id, metrics=items[i:i + 900])


def _gold_pred(keys: Sequence[str], papers, predictions):
    gold_by = {k: [s.gold_codes for s in papers[k].sentences()] for k in keys}
    pred_by = {k: [[lab for lab, _ in ranked] for ranked in predictions[k]] for k in keys}
    return gold_by, pred_by


def _log_fold(client, run_id: str, cfg: ExperimentConfig, fold: Fold, res: FoldResult,
              papers, silver: bool, work: Path) -> dict[str, float]:
    from .. import tracking

    gold_by, pred_by = _gold_pred(fold.test, papers, res.predictions)
    scores = score_predictions(gold_by, pred_by, intervals=True)
    timing = {"train_time_s": res.train_time, "predict_time_s": res.predict_time}
    records = prediction_records(fold.test, papers, res.predictions, fold.name)
    out = work / f"fold-{fold.name}"
    calibration = write_artifacts(out, f"{cfg.name} / {fold.name}", scores, silver, records,
                                  timing)
    metrics = {**flat_metrics(scores, silver), **timing, **calibration}
    _log_metrics(client, run_id, metrics)
    _write_json(out / "fold.json", {"name": fold.name, "train": fold.train, "test": fold.test,
                                    **fold.curve_fields()})
    client.log_artifacts(run_id, str(out))
    if res.model_dir:
        mlflow_model = work / f"mlflow-model-{fold.name}"
        tracking.save_pyfunc_model(res.model_dir, mlflow_model)
        client.log_artifacts(run_id, str(mlflow_model), "model")
    return metrics


def _log_parent(client, run_id: str, cfg: ExperimentConfig, folds: Sequence[Fold],
                results: Mapping[str, FoldResult], fold_metrics, papers, silver: bool,
                work: Path) -> dict[str, float]:
    """Pooled metrics over all folds' test predictions, plus fold mean and spread."""
    gold_by: dict[str, list] = {}
    pred_by: dict[str, list] = {}
    records: list[dict] = []
    group: dict[str, str | None] = {}
    for f in folds:
        res = results[f.name]
        g, p = _gold_pred(f.test, papers, res.predictions)
        gold_by.update(g)
        pred_by.update(p)
        group.update({k: f.name for k in f.test})
        records += prediction_records(f.test, papers, res.predictions, f.name)
    if len(folds) == 1:  # one test set: stratify by each corpus it holds
        group = {k: papers[k].meta.get("corpus") for k in gold_by}
    scores = score_predictions(gold_by, pred_by, strata_of(list(gold_by), group),
                               intervals=True)
    metrics = flat_metrics(scores, silver)
    head = "silver_agreement" if silver else "accuracy"
    pre = "silver_" if silver else ""
    for name in (head, pre + "macro_f1", pre + "kappa_coresc1_micro",
                 pre + "kappa_weighted_micro"):
        vals = [m[name] for m in fold_metrics.values() if name in m]
        if vals:
            found = spread(vals)
            metrics[f"fold_mean_{name}"], metrics[f"fold_std_{name}"] = found["mean"], found["sd"]
    metrics["train_time_s"] = sum(r.train_time for r in results.values())
    metrics["predict_time_s"] = sum(r.predict_time for r in results.values())
    out = work / "parent"
    extra = {k: v for k, v in metrics.items() if k.startswith("fold_") or k.endswith("_time_s")}
    metrics.update(write_artifacts(out, f"{cfg.name} (all folds pooled)", scores, silver,
                                   records, extra))
    _log_metrics(client, run_id, metrics)
    client.log_artifacts(run_id, str(out))
    return metrics


def _log_curve_parent(client, run_id: str, cfg: ExperimentConfig, folds: Sequence[Fold],
                      fold_metrics, silver: bool, work: Path,
                      source_time: float) -> dict[str, float]:
    """A learning curve's parent run: mean and spread per choice and k (no pooling: the
    same test papers are scored once per run), ``curve.json`` and ``curve.md``."""
    from .curve import curve_summary, curve_table

    metrics, rows = curve_summary(folds, fold_metrics, silver)
    metrics["source_train_time_s"] = source_time
    metrics["train_time_s"] = source_time + sum(m.get("train_time_s", 0.0)
                                                for m in fold_metrics.values())
    metrics["predict_time_s"] = sum(m.get("predict_time_s", 0.0)
                                    for m in fold_metrics.values())
    out = work / "parent"
    out.mkdir(parents=True, exist_ok=True)
    _write_json(out / "curve.json", {"config": cfg.name, "folds": cfg.folds, "rows": rows})
    head = "agreement with SAPIENTA (silver)" if silver else "accuracy"
    (out / "curve.md").write_text(
        f"# {cfg.name}: learning curve\n\n{head} in percent: mean ± sd (min-max) over "
        "the runs / mean macro-F1\n\n" + "\n".join(curve_table(rows)) + "\n",
        encoding="utf-8")
    _log_metrics(client, run_id, metrics)
    client.log_artifacts(run_id, str(out))
    return metrics
