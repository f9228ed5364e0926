"""Compare experiment runs: per-label P/R/F1 side by side, published numbers, domain plot.

RUN_OR_EXPERIMENT is an MLflow run id or a config name (the latest finished run of it).
Writes a Markdown report and PNG plots beside it. Runs tested on the same corpus are put
side by side in the layout of the CRA paper's Table 8 (e.g. art-to-cra next to cra-3fold
on CRA, cra-to-art next to art-9fold on ART), with the paper's published numbers
alongside; a leave-one-domain-out run adds per-label F1 across the OA-STM domains.

Example:
  coresc report art-to-cra cra-3fold cra-to-art art-9fold oa-stm-leave-one-domain-out \\
      -o reports/experiments.md
"""

from __future__ import annotations

import argparse
import sys

from .options import output_path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("runs", nargs="+", metavar="RUN_OR_EXPERIMENT",
                        help="MLflow run id or experiment config name")
    parser.add_argument("-o", "--output", type=output_path, default="coresc-report.md",
                        help="Markdown file to write; PNGs go beside it "
                             "(default: coresc-report.md)")
    parser.add_argument("--tracking-uri", default=None,
                        help="MLflow tracking URI (default: MLFLOW_TRACKING_URI / mlflow.yaml)")
    parser.add_argument("--experiment-name", default=None,
                        help="MLflow experiment holding the runs (default: mlflow.yaml's)")


def run(args: argparse.Namespace) -> int:
    from ..extras import require

    require("experiments")
    from ..report import write_report

    files = write_report(args.runs, args.output, tracking_uri=args.tracking_uri,
                         experiment_name=args.experiment_name)
    for f in files:
        print(f)
    print(f"[coresc] report written: {files[0]}", file=sys.stderr)
    return 0
