"""Print a learning-curve run's table from MLflow: mean ± sd (min-max) per k and choice,
and every fold run's accuracy, from the fold runs that have FINISHED; then macro-F1 and
each label's F1 per k and choice (mean over the runs), and every run's macro-F1 and
rare-label F1 with its 95% interval (bootstrap over that run's test papers).

For a finished run `coresc report CONFIG` shows the same table (from the parent's
curve.json); this script also reads a run still going or stopped, saying how many runs
of each cell are in.

    python experiments/curve_table.py art-to-cra-curve          # its latest parent run
    python experiments/curve_table.py 0123abcd...                # a run id
"""

from __future__ import annotations

import argparse
import sys

from coresc.experiments.curve import curve_runs_table, curve_summary, curve_table
from coresc.experiments.splits import Fold
from coresc.tracking import load_settings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", help="a parent run id, or a config name (its latest run)")
    parser.add_argument("--tracking-uri", default=None)
    args = parser.parse_args(argv)
    from mlflow.tracking import MlflowClient

    settings = load_settings()
    client = MlflowClient(args.tracking_uri or settings.tracking_uri)
    exp = client.get_experiment_by_name(settings.experiment_name)
    parent = _parent(client, exp.experiment_id, args.run)
    children = client.search_runs(
        [exp.experiment_id], f"tags.`mlflow.parentRunId` = '{parent.info.run_id}' "
        "and attributes.status = 'FINISHED'", max_results=1000)
    folds, metrics = [], {}
    for c in children:
        p = c.data.params
        name = c.data.tags["coresc.fold"]
        folds.append(Fold(name, [], [], info={"k": int(p["curve_k"]),
                                              "choose": p["curve_choose"]}))
        metrics[name] = dict(c.data.metrics)
    silver = parent.data.tags.get("coresc.reference_labels") == "silver"
    _, rows = curve_summary(folds, metrics, silver)
    print(f"{parent.data.tags.get('coresc.config')} run {parent.info.run_id} "
          f"({parent.info.status}, {len(children)} fold runs finished)\n")
    print("\n".join(curve_table(rows)))
    print("\n" + "\n".join(curve_runs_table(rows)))
    print("\n" + "\n".join(label_table(folds, metrics)))
    print("\n" + "\n".join(label_runs_table(folds, metrics)))
    return 0


#: The labels whose every run is listed with its interval (the rare ones users curate).
RARE = ("Hyp", "Goa", "Mot", "Mod")


def _groups(folds) -> dict[tuple[str, int], list]:
    out: dict[tuple[str, int], list] = {}
    for f in folds:
        out.setdefault((f.info["choose"], f.info["k"]), []).append(f)
    return dict(sorted(out.items(), key=lambda g: (g[0][1], g[0][0])))


def _labels(metrics) -> list[str]:
    from coresc.labels import sort_key

    found = {k[len("f1_"):] for m in metrics.values() for k in m
             if k.startswith("f1_") and not k.endswith(("_ci_low", "_ci_high"))}
    return sorted(found, key=sort_key)


def label_table(folds, metrics) -> list[str]:
    """Markdown: per k and choice, the mean over runs of accuracy, macro-F1 and each
    label's F1 (percent; a label's mean over the runs where it was scored)."""
    labels = _labels(metrics)
    lines = ["| k | choice | runs | accuracy | macro-F1 | " + " | ".join(labels) + " |",
             "|---" * (5 + len(labels)) + "|"]
    for (choice, k), group in _groups(folds).items():
        ms = [metrics[f.name] for f in group]

        def mean(name, ms=ms):
            vals = [m[name] for m in ms if name in m]
            return f"{100 * sum(vals) / len(vals):.1f}" if vals else "-"

        lines.append(f"| {k} | {choice} | {len(ms)} | {mean('accuracy')} | "
                     f"{mean('macro_f1')} | "
                     + " | ".join(mean(f"f1_{lab}") for lab in labels) + " |")
    return lines


def label_runs_table(folds, metrics) -> list[str]:
    """Markdown: every run's macro-F1 and rare-label F1 with its 95% interval."""
    lines = ["| k | choice | run | macro-F1 | " + " | ".join(RARE) + " |",
             "|---" * (4 + len(RARE)) + "|"]
    for (choice, k), group in _groups(folds).items():
        for f in sorted(group, key=lambda f: f.name):
            m = metrics[f.name]
            cells = [_with_ci(m, "macro_f1")] + [_with_ci(m, f"f1_{lab}") for lab in RARE]
            lines.append(f"| {k} | {choice} | {f.name} | " + " | ".join(cells) + " |")
    return lines


def _with_ci(m, name: str) -> str:
    if name not in m:
        return "-"
    text = f"{100 * m[name]:.1f}"
    if f"{name}_ci_low" in m:
        text += f" [{100 * m[name + '_ci_low']:.1f}, {100 * m[name + '_ci_high']:.1f}]"
    return text


def _parent(client, experiment_id: str, ref: str):
    if len(ref) == 32 and all(c in "0123456789abcdef" for c in ref):
        return client.get_run(ref)
    found = client.search_runs(
        [experiment_id], f"tags.`coresc.config` = '{ref}' and tags.`coresc.kind` = "
        "'experiment'", order_by=["attributes.start_time DESC"], max_results=1)
    if not found:
        sys.exit(f"curve_table: no run of {ref}")
    return found[0]


if __name__ == "__main__":
    sys.exit(main())
