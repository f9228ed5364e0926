"""Intervals for docs/benchmarks.md's summary table, recomputed from saved predictions.

    python benchmarks/headline_intervals.py CONFIG... [--pair A:B ...]

For each CONFIG, the latest finished run of it in the MLflow store (mlflow.yaml; override
with MLFLOW_TRACKING_URI) is found and its held-out predictions (the parent run's
``predictions.jsonl`` artefact: every fold's test papers) are re-scored: accuracy and
macro-F1 with 95% intervals over papers, stratified by fold (coresc/stats.py: a t
interval on the delete-one-paper jackknife). Each ``--pair A:B`` adds B - A on the
sentences both runs predicted, with the paired interval and its t test's p. Prints Markdown
tables; nothing is typed in by hand. A config without a finished run, or whose run saved
no predictions, is printed as such.
"""

from __future__ import annotations

import argparse
import sys
from datetime import datetime, timezone

from coresc import stats
from coresc.paired_runs import PREDICTIONS, paired_runs, read_run, run_intervals


def latest_runs(configs: list[str]) -> dict[str, object]:
    from mlflow.tracking import MlflowClient

    from coresc.report import resolve_runs
    from coresc.tracking import load_settings

    settings = load_settings()
    client = MlflowClient(settings.tracking_uri)
    exp = client.get_experiment_by_name(settings.experiment_name)
    out = {}
    for name in configs:
        try:
            info = resolve_runs([name], client, exp.experiment_id)[0]
        except Exception as exc:  # no finished run of it: say so, never invent a figure
            out[name] = str(exc)
            continue
        run = client.get_run(info.run_id)
        try:
            path = client.download_artifacts(info.run_id, PREDICTIONS)
        except Exception:
            out[name] = f"run {info.run_id[:8]}: no interval: predictions not saved"
            continue
        predictions, folds = read_run(path)
        out[name] = {"info": info, "predictions": predictions, "folds": folds,
                     "date": datetime.fromtimestamp(run.info.start_time / 1000, timezone.utc)}
    return out


def interval_row(name: str, run: dict) -> str:
    found = run_intervals(run["predictions"], run["folds"])
    point, info = found["point"], run["info"]
    acc, f1 = found["ci"]["accuracy"], found["ci"]["macro_f1"]
    return (f"| {name} | {info.train} | {info.test} | {100 * point['accuracy']:.1f} "
            f"[{100 * acc[0]:.1f}, {100 * acc[1]:.1f}] | {point['macro_f1']:.3f} "
            f"[{f1[0]:.3f}, {f1[1]:.3f}] | {found['n_papers']} | {found['n_sentences']} | "
            f"{found['strata']} | {run['date']:%Y-%m-%d} `{info.run_id[:8]}` |")


def pair_row(a: str, b: str, runs: dict) -> str:
    if not all(isinstance(runs.get(x), dict) for x in (a, b)):
        return f"| {a} | {b} | not paired: a run or its predictions are missing | | | | |"
    try:
        r = paired_runs(runs[a]["predictions"], runs[b]["predictions"], runs[a]["folds"],
                        runs[b]["folds"])
    except ValueError as exc:
        return f"| {a} | {b} | not paired: {exc} | | | | |"
    cells = []
    for key in ("accuracy", "macro_f1"):
        lo, hi = r["difference_ci"][key]
        scale, digits = (100, 1) if key == "accuracy" else (1, 3)
        cells.append(f"{scale * r['difference'][key]:+.{digits}f} "
                     f"[{scale * lo:+.{digits}f}, {scale * hi:+.{digits}f}]")
        cells.append(stats.format_p(r["p"][key]))
    return f"| {a} | {b} | " + " | ".join(cells) + f" | {r['n_papers']} |"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("configs", nargs="+")
    ap.add_argument("--pair", action="append", default=[], metavar="A:B")
    args = ap.parse_args(argv)
    names = list(dict.fromkeys([*args.configs, *(x for p in args.pair
                                                  for x in p.split(":"))]))
    runs = latest_runs(names)
    print("| run (held-out predictions) | trained on | tested on | accuracy % [95% CI] | "
          "macro-F1 [95% CI] | papers | sentences | folds | run |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for name in args.configs:
        run = runs[name]
        print(interval_row(name, run) if isinstance(run, dict)
              else f"| {name} | {run} | | | | | | | |")
    if args.pair:
        print("\n| A | B | B - A accuracy, points [95% CI] | p | B - A macro-F1 [95% CI] | "
              "p | papers |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for pair in args.pair:
            a, _, b = pair.partition(":")
            print(pair_row(a, b, runs))
    print(f"\n{stats.METHOD} (stratified by fold); p: {stats.TEST_METHOD}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
