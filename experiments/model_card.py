"""Attach held-out results from the experiment runner to a model and write its model card.

    python experiments/model_card.py [--model DIR] [RUN_OR_CONFIG ...]

    python experiments/model_card.py --model coresc/models/accurate \\
        --encoder-cv runs/cra3.jsonl runs/art9.jsonl --predictions runs/*.pred.jsonl

RUN_OR_CONFIG: MLflow run ids or config names (the latest finished run of each); default
``default-model-cra-3fold default-model-art-9fold``, the bundled ``fast`` model's settings
with each corpus held out in turn (run them first: ``coresc experiment default-model-cra-3fold
default-model-art-9fold``). Partial runs (``--max-papers``) are refused. For each run the
card gets its pooled held-out metrics and any setting in which the run's model differs
from the model directory's; the weaknesses (captions, Exp vs Met, Obs vs Res) come from
the runs' held-out predictions on gold labels. Writes ``evaluation.json`` and
``MODEL_CARD.md`` into the model directory (default: the bundled ``fast`` model, whose
settings the default runs have; ``accurate`` takes ``--encoder-cv``) and prints the
card. MLflow settings as for ``coresc report`` (mlflow.yaml, MLFLOW_TRACKING_URI).

``--encoder-cv``: instead of runner runs, the results of ``experiments/encoder_cv.py
--json`` (the CRF + encoder on held-out folds, trained on one corpus), with their
``--predictions`` records for the weaknesses; the card says how each run's training
differs from the model's (one corpus instead of all).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

from coresc.errors import UsageError
from coresc.experiments import _check_features
from coresc.model import CoreSCClassifier
from coresc.model.card import EVALUATION_FILE, card_markdown, write_card
from coresc.model.storage import BUNDLED_DIR, read_json, to_json, write_atomic
from coresc.model.weakness import evaluation_from_predictions
from coresc.report import resolve_runs
from coresc.tracking import connect

DEFAULT_RUNS = ("default-model-cra-3fold", "default-model-art-9fold")
#: What each encoder_cv setup tests on and trains on (corpus names as the configs').
SETUP_SPLITS = {"cra3": ("cra", "cra"), "art9": ("art", "art"), "art9p": ("art", "art"),
                "art2cra": ("cra", "art"), "cra3+art": ("cra", "art,cra")}


def encoder_cv_run(result: dict, model_config: dict, meta: dict) -> dict:
    """A card run entry for one ``encoder_cv.py --json`` result."""
    setup = result["setup"]
    if setup not in SETUP_SPLITS or result.get("probe"):
        raise UsageError(f"encoder_cv result {setup!r}: not a held-out CRF + encoder run")
    test, train = SETUP_SPLITS[setup]
    pooled = result["pooled"]["crf+enc"]
    n = sum(r["crf+enc"]["n"] for r in result["folds"])
    corpora = ", ".join(sorted((meta.get("training_data") or {}).get("corpora") or {}))
    what = ("the other CRA folds and all of ART" if setup == "cra3+art"
            else f"{train} alone")
    settings = [f"trained on {what} ({len(result['folds'])} fold(s), "
                f"{result.get('protocol', 'nested')} protocol; model: {corpora or '?'})"]
    trained = dict(model_config.get("encoder") or {})
    for k, v in sorted(result["encoder"].items()):
        if k in trained and trained[k] != v:
            settings.append(f"encoder {k}: {v} (model: {trained[k]})")
    chosen = {"c1": meta.get("c1"), "c2": meta.get("c2"),  # the model's, after inner CV
              "secondary": model_config.get("secondary"), "decode": model_config.get("decode")}
    for k, v in chosen.items():
        if k in result["params"] and result["params"][k] != v:
            settings.append(f"{k}: {result['params'][k]} (model: {v})")
    metrics = {"accuracy": pooled["accuracy"], "macro_f1": pooled["macro_f1_mean"],
               "n_sentences": float(n)}
    if "ece" in pooled:
        metrics["ece_primary"] = pooled["ece"]
    return {"config": f"encoder_cv.py {setup} --protocol {result.get('protocol', 'nested')}",
            "run_id": "", "test": test, "train": train, "labels": "gold",
            "metrics": metrics, "settings": settings}


def settings_differences(client, run_id: str, model_config: dict) -> list[str]:
    """How the run's model settings (its logged config) differ from ``model_config``."""
    raw = json.loads(Path(client.download_artifacts(run_id, "config.json")).read_text())
    features = _check_features(raw.get("features"), lambda m: UsageError(m))
    params = CoreSCClassifier(features=features, seed=raw.get("seed", 0),
                              **(raw.get("model") or {})).get_params()
    return [f"{k}: {params[k]} (model: {model_config.get(k)})" for k in params
            if k != "verbose" and params[k] != model_config.get(k)]


def runner_runs(names: list[str], model_config: dict) -> tuple[list[dict], list[dict]]:
    """Card run entries and held-out records of the experiment runner's runs (MLflow)."""
    client, exp_id, _ = connect()
    runs, records = [], []
    for run in resolve_runs(names, client, exp_id):
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
    return runs, records


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="*", default=list(DEFAULT_RUNS), metavar="RUN_OR_CONFIG")
    ap.add_argument("--model", type=Path, default=BUNDLED_DIR / "fast",
                    help="model directory (default: the bundled fast model)")
    ap.add_argument("--encoder-cv", type=Path, nargs="+", default=[], metavar="RESULTS.jsonl",
                    help="encoder_cv.py --json results instead of runner runs")
    ap.add_argument("--predictions", type=Path, nargs="*", default=[], metavar="PRED.jsonl",
                    help="encoder_cv.py --predictions records (with --encoder-cv)")
    args = ap.parse_args(argv)
    model_config = CoreSCClassifier.load(args.model).get_params()
    meta = read_json(args.model / "meta.json")
    if args.encoder_cv:
        runs = [encoder_cv_run(json.loads(line), model_config, meta)
                for path in args.encoder_cv
                for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        records = [json.loads(line) for path in args.predictions
                   for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    else:
        runs, records = runner_runs(args.runs, model_config)
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
