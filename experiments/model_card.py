"""Attach held-out results from the experiment runner to a model and write its model card.

    python experiments/model_card.py [--model DIR] [RUN_OR_CONFIG ...]

RUN_OR_CONFIG: MLflow run ids or config names (the latest finished run of each); default
``default-model-cra-3fold default-model-art-9fold``, the bundled model's settings with each
corpus held out in turn (run them first: ``coresc experiment default-model-cra-3fold
default-model-art-9fold``). Partial runs (``--max-papers``) are refused. For each run the
card gets its pooled held-out metrics and any setting in which the run's model differs
from the model directory's; the weaknesses (captions, Exp vs Met, Obs vs Res) come from
the runs' held-out predictions on gold labels. Writes ``evaluation.json`` and
``MODEL_CARD.md`` into the model directory (default: the bundled model) and prints the
card. MLflow settings as for ``coresc report`` (mlflow.yaml, MLFLOW_TRACKING_URI).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

from coresc.errors import UsageError
from coresc.experiments import _check_features
from coresc.model import DEFAULT_MODEL_DIR, CoreSCClassifier
from coresc.model.card import (
    EVALUATION_FILE,
    card_markdown,
    evaluation_from_predictions,
    write_card,
)
from coresc.model.storage import read_json, to_json, write_atomic
from coresc.report import resolve_runs
from coresc.tracking import connect

DEFAULT_RUNS = ("default-model-cra-3fold", "default-model-art-9fold")


def settings_differences(client, run_id: str, model_config: dict) -> list[str]:
    """How the run's model settings (its logged config) differ from ``model_config``."""
    raw = json.loads(Path(client.download_artifacts(run_id, "config.json")).read_text())
    features = _check_features(raw.get("features"), lambda m: UsageError(m))
    params = CoreSCClassifier(features=features, seed=raw.get("seed", 0),
                              **(raw.get("model") or {})).get_params()
    return [f"{k}: {params[k]} (model: {model_config.get(k)})" for k in params
            if k != "verbose" and params[k] != model_config.get(k)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="*", default=list(DEFAULT_RUNS), metavar="RUN_OR_CONFIG")
    ap.add_argument("--model", type=Path, default=DEFAULT_MODEL_DIR)
    args = ap.parse_args(argv)
    model_config = CoreSCClassifier.load(args.model).get_params()
    meta = read_json(args.model / "meta.json")
    client, exp_id, _ = connect()
    runs, records = [], []
    for run in resolve_runs(args.runs, client, exp_id):
        if run.partial:
            raise UsageError(f"{run.config} ({run.run_id}) is a partial run ({run.partial})")
        runs.append({"config": run.config, "run_id": run.run_id, "test": run.test,
                     "train": run.train, "labels": "silver" if run.silver else "gold",
                     "metrics": run.metrics,
                     "settings": settings_differences(client, run.run_id, model_config)})
        if not run.silver:
            path = Path(client.download_artifacts(run.run_id, "predictions.jsonl"))
            records += [json.loads(line) for line in path.read_text(encoding="utf-8")
                        .splitlines() if line.strip()]
    evaluation = evaluation_from_predictions(runs, records)
    evaluation["model_trained"] = meta.get("trained")
    evaluation["command"] = shlex.join(["python", "experiments/model_card.py",
                                        *(argv if argv is not None else sys.argv[1:])])
    write_atomic(args.model / EVALUATION_FILE, to_json(evaluation))
    write_card(args.model)
    sys.stdout.write(card_markdown(args.model))
    return 0


if __name__ == "__main__":
    sys.exit(main())
