"""Show a model's card: training data and licences, held-out accuracy, weaknesses, settings.

MODEL_DIR is a model directory (default: the bundled model). The card is rendered from the
directory's meta.json, config.json and, when an experiment run has been attached to it
(experiments/model_card.py), evaluation.json; MODEL_CARD.md in the directory holds the
same text.

examples:
  coresc model-info
  coresc model-info my-model/ > my-model-card.md
"""

from __future__ import annotations

import argparse
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", nargs="?", metavar="MODEL",
                        help="model directory or bundled model name ('accurate', 'fast'); "
                             "default: the default model")


def run(args: argparse.Namespace) -> int:
    from ..model import CoreSCClassifier
    from ..model.card import card_markdown
    from ..model.storage import resolve_model

    directory = resolve_model(args.model)
    CoreSCClassifier.load(directory)  # a missing or broken model fails with one line here
    sys.stdout.write(card_markdown(directory))
    return 0
