"""Print a learning-curve run's table from MLflow: mean ± sd (min-max) per k and choice,
and every fold run's accuracy, from the fold runs that have FINISHED.

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
    return 0


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
