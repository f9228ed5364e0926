"""Evaluate a trained model on gold-labelled corpora: accuracy, per-label P/R/F1, kappas.

The model annotates every paper of CORPUS (files or directories, any readable format
with gold labels); sentences without a gold label are left out of the scores. Prints
the metrics table (primary label, the five agreement kappas, secondary labels).

examples:
  coresc evaluate ../shared/data/cra-corpus
  coresc evaluate --model my-model/ test-papers/ --json scores.json
"""

from __future__ import annotations

import argparse
import json
import sys

from ..errors import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("corpora", nargs="+", metavar="CORPUS",
                        help="gold-labelled paper files or directories")
    parser.add_argument("--model", metavar="MODEL",
                        help="model directory, or a bundled model: 'fast' (the default, "
                             "hand-built features) or 'accurate' (with a sentence encoder)")
    parser.add_argument("--format", default="auto", help="input format (default: auto)")
    parser.add_argument("--json", metavar="FILE", help="also write the scores as JSON")
    parser.add_argument("--domain", metavar="NAME",
                        help="decode as papers of this training corpus (models trained "
                             "with --domains corpus); default: the shared weights")


def run(args: argparse.Namespace) -> int:
    from ..metrics import evaluate_papers, format_report
    from ..readers import read_corpus

    model = load_model(args.model)
    papers = read_corpus(args.corpora, args.format)
    set_domain(model, papers, args.domain)
    model.annotate(papers)
    try:
        result = evaluate_papers(papers)
    except ValueError as exc:
        raise UsageError(f"{', '.join(args.corpora)}: {exc}") from None
    sys.stdout.write(format_report(result))
    if args.json:
        from ..writers import atomic_output

        with atomic_output(args.json) as fh:
            json.dump(result, fh, indent=1)
    return 0


def set_domain(model, papers, name: str | None) -> None:
    """Mark ``papers`` as from training corpus ``name``; the model must know that corpus."""
    if name is None:
        return
    from ..batch.work import check_domain

    check_domain(model, name)
    for paper in papers:
        paper.meta["corpus"] = name


def load_model(spec: str | None):
    """The model in directory ``spec``, the bundled model of that name, or the default."""
    from ..model import CoreSCClassifier
    from ..model.storage import resolve_model

    return CoreSCClassifier.load(resolve_model(spec))
