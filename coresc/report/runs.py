"""Runs and their predictions: experiment runs read from MLflow for a report (their
metrics, parameters, fold runs and saved ``predictions.jsonl``), and intervals filled in
from the predictions of runs logged before intervals were."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import UsageError


@dataclass
class RunInfo:
    """What a report needs of one experiment run."""

    run_id: str
    config: str
    silver: bool
    test: str
    train: str
    metrics: dict[str, float]
    params: dict[str, str]
    partial: str | None = None  # what part of the data a --max-papers trial used

    @property
    def label(self) -> str:
        """The run's name in tables: its config, marked when it is a partial run."""
        return f"{self.config} (PARTIAL: {self.partial})" if self.partial else self.config

    @property
    def prefix(self) -> str:
        return "silver_" if self.silver else ""

    @property
    def headline(self) -> float | None:
        return self.metrics.get("silver_agreement" if self.silver else "accuracy")

    def per_label(self) -> dict[str, dict[str, float]]:
        """Label -> its precision, recall and F1 (``f1_Bac`` ...); the bounds of an F1's
        interval (``f1_Bac_ci_low``) are kept under their label, never read as a label."""
        out: dict[str, dict[str, float]] = {}
        pat = re.compile(rf"^{self.prefix}(precision|recall|f1)_(.+?)(_ci_low|_ci_high)?$")
        for k, v in self.metrics.items():
            m = pat.match(k)
            if m:
                out.setdefault(m.group(2), {})[m.group(1) + (m.group(3) or "")] = v
        return out


def _client(tracking_uri: str | None):
    from mlflow.tracking import MlflowClient

    return MlflowClient(tracking_uri)


def resolve_runs(refs: Sequence[str], client, experiment_id: str) -> list[RunInfo]:
    """Run ids, or config names (latest FINISHED parent run of that config)."""
    from mlflow.exceptions import MlflowException

    out = []
    for ref in refs:
        run = None
        if re.fullmatch(r"[0-9a-f]{32}", ref):
            try:
                run = client.get_run(ref)
            except MlflowException:
                raise UsageError(f"{ref}: no such MLflow run") from None
        else:
            found = client.search_runs(
                [experiment_id],
                f"tags.`coresc.config` = '{ref}' and tags.`coresc.kind` = 'experiment' "
                f"and attributes.status = 'FINISHED'",
                order_by=["attributes.start_time DESC"], max_results=1)
            if not found:
                raise UsageError(f"{ref}: no finished experiment run of that name "
                                 f"(run `coresc experiment {ref}` first)")
            run = found[0]
        tags, params = run.data.tags, run.data.params
        out.append(RunInfo(
            run_id=run.info.run_id, config=tags.get("coresc.config", ref),
            silver=tags.get("coresc.reference_labels") == "silver",
            test=params.get("test_corpora", "?"), train=params.get("train_corpora", "?"),
            metrics=dict(run.data.metrics), params=dict(params),
            partial=tags.get("coresc.partial") or (
                f"first {params['max_papers']} papers of each corpus"
                if params.get("max_papers") else None)))
    return out


def domain_f1(client, run: RunInfo) -> dict[str, dict[str, float]]:
    """Per fold (domain) of a run: label -> F1, from its nested fold runs."""
    exp_id = client.get_run(run.run_id).info.experiment_id
    children = client.search_runs([exp_id], f"tags.`mlflow.parentRunId` = '{run.run_id}'")
    out = {}
    for c in children:
        info = RunInfo(c.info.run_id, run.config, run.silver, run.test, run.train,
                       dict(c.data.metrics), {})
        out[c.data.tags.get("coresc.fold", c.info.run_id)] = {
            lab: s.get("f1", 0.0) for lab, s in info.per_label().items()}
    return dict(sorted(out.items()))


def _run_predictions(client):
    """``load(run)``: the run's ``predictions.jsonl`` as (predictions, folds), downloaded
    and read once per run; None when it has none (runs logged before they were saved)."""
    from ..paired_runs import PREDICTIONS, read_run

    loaded: dict[str, Any] = {}

    def load(r: RunInfo):
        if r.run_id not in loaded:
            try:
                loaded[r.run_id] = read_run(client.download_artifacts(r.run_id, PREDICTIONS))
            except Exception:  # no predictions artefact: no interval, never a guess
                loaded[r.run_id] = None
        return loaded[r.run_id]
    return load


def _fill_intervals(client, runs: Sequence[RunInfo], load=None) -> None:
    """Runs logged before intervals were (no ``accuracy_ci_low``): recompute them from the
    run's saved predictions, as the runner now logs them; nothing when it saved none
    (``load``: :func:`_run_predictions`, shared with :func:`_predictions`)."""
    from ..paired_runs import run_intervals

    load = load or _run_predictions(client)
    for r in runs:
        head = "silver_agreement" if r.silver else "accuracy"
        if f"{head}_ci_low" in r.metrics or (saved := load(r)) is None:
            continue
        try:
            found = run_intervals(*saved)
        except Exception:  # too few papers (or unreadable): no interval, never a guess
            continue
        for key, name in (("accuracy", head), ("macro_f1", r.prefix + "macro_f1")):
            r.metrics[f"{name}_ci_low"], r.metrics[f"{name}_ci_high"] = found["ci"][key]
        r.metrics.setdefault("n_papers", found["n_papers"])


def _predictions(client, runs: Sequence[RunInfo], load=None) -> tuple[dict, dict]:
    """Each run's held-out predictions (None when it logged none) and folds (paper ->
    fold), for runs that share a test corpus with another."""
    load = load or _run_predictions(client)
    tests = [r.test for r in runs]
    saved = {r.run_id: load(r) for r in runs if tests.count(r.test) >= 2}
    return ({k: None if v is None else v[0] for k, v in saved.items()},
            {k: v[1] for k, v in saved.items() if v is not None})


def fold_metrics(client, experiment_id: str, run: RunInfo) -> dict[str, dict[str, float]]:
    """The metrics of each fold run of an experiment run, by fold name."""
    children = client.search_runs(
        [experiment_id], f"tags.`mlflow.parentRunId` = '{run.run_id}'", max_results=1000)
    return {c.data.tags.get("coresc.fold", c.info.run_name): dict(c.data.metrics)
            for c in children}
