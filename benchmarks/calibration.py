"""Calibration of scored predictions: ECE, reliability table, accuracy / coverage curve.

    python benchmarks/calibration.py PREDICTIONS.jsonl [...]

Each file holds sentence records with ``gold`` and scored ``pred`` labels: an experiment
run's ``predictions.jsonl`` artefact (held-out predictions of every fold), or the output
of ``coresc annotate --to jsonl`` on gold-labelled papers the model never saw. Prints, per
file, the reliability table of the primary label's score (10 equal-width bins), the
expected calibration errors (primary against "label among the gold labels" and against
"label is the gold primary", emitted secondary labels) and the accuracy / coverage curve
of ``annotate --min-score`` (coresc.reliability, as the experiment runner logs them).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from coresc.reliability import calibration_summary, summary_table


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", type=Path, metavar="PREDICTIONS.jsonl")
    args = ap.parse_args(argv)
    series = []
    for path in args.files:
        records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
                   if line.strip()]
        summary = calibration_summary(records)
        if summary is None:
            print(f"{path}: no record with both gold labels and scored predictions")
            return 1
        series.append((str(path), summary))
        print(f"\n{path}: {summary['primary']['n']} sentences\n")
        print("| primary score | sentences | mean score | share right |")
        print("| --- | ---: | ---: | ---: |")
        for b in summary["primary"]["bins"]:
            if b["n"]:
                print(f"| {b['low']:.1f}-{b['high']:.1f} | {b['n']} | {b['confidence']:.3f} "
                      f"| {b['accuracy']:.3f} |")
        print("\n| --min-score | coverage | accuracy |\n| ---: | ---: | ---: |")
        for p in summary["coverage"]:
            if p["accuracy"] is not None and round(p["threshold"] * 20) % 2 == 0:
                print(f"| {p['threshold']:.1f} | {100 * p['coverage']:.1f}% | "
                      f"{100 * p['accuracy']:.1f}% |")
    print()
    print("\n".join(summary_table(series)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
