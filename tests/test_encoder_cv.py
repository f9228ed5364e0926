"""experiments/encoder_cv.py's cross-fitting with an added corpus: no test paper is ever
read by an encoder trained on it, and the added corpus is spread over every group."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

EXPERIMENTS = Path(__file__).resolve().parents[1] / "experiments"


@pytest.fixture(scope="module")
def encoder_cv():
    sys.path.insert(0, str(EXPERIMENTS))
    try:
        yield importlib.import_module("encoder_cv")
    finally:
        sys.path.remove(str(EXPERIMENTS))


class Stub:
    """A paper as cross-fitting sees it: an id and a number of sentences."""

    def __init__(self, pid: str, n: int) -> None:
        self.id, self.n = pid, n

    def __len__(self) -> int:
        return self.n


def papers(prefix: str, sizes: list[int]) -> list[Stub]:
    return [Stub(f"{prefix}{i}", n) for i, n in enumerate(sizes)]


def test_added_corpus_is_spread_over_the_groups(encoder_cv):
    main = papers("cra", [3, 3, 3, 3, 3, 3])
    added = papers("art", [9, 5, 5, 4, 4, 4, 1])
    folds = [0, 0, 1, 1, 2, 2]
    every, groups = encoder_cv._with_added(main, folds, added)
    # the main corpus keeps its folds: encoder f, trained outside group f, never reads
    # fold f's test papers
    assert [p.id for p in every] == [p.id for p in main + added]
    assert groups[:6] == folds
    # the added papers, largest first, each to the group with fewest sentences so far:
    # 9 -> 0, 5 -> 1, 5 -> 2, 4 -> 1 (5 < 9, before 2), 4 -> 2, 4 -> 0 (9, 9, 9), 1 -> 1
    assert groups[6:] == [0, 1, 2, 1, 2, 0, 1]


def test_added_corpus_with_a_paper_of_the_same_id_is_refused(encoder_cv):
    with pytest.raises(SystemExit, match="same id|id of a paper"):
        encoder_cv._with_added(papers("x", [1, 1]), [0, 1], papers("x", [1]))


def test_a_crossfit_fold_trains_its_crf_on_the_given_probabilities(encoder_cv, monkeypatch):
    """The crossfit protocol's CRF learns from the cross-fitted probabilities and
    fine-tunes nothing (when fit's encoder step moved out of the model, the hook that
    stood in for it was left on an attribute nothing read, and every "crossfit" run
    fine-tuned nested encoders instead)."""
    import random

    import numpy as np
    from helpers import labelled_paper

    from coresc.model import CoreSCClassifier
    from coresc.model.finetune import oof

    def refuse(*_args, **_kwargs):
        raise AssertionError("fine-tuned an encoder")

    monkeypatch.setattr(oof, "fit_encoder", refuse)
    rng = random.Random(0)
    train = [labelled_paper(i, rng) for i in range(4)]
    labels = ["Bac", "Goa", "Exp", "Res", "Con"]
    # probabilities that name each sentence's gold label: the CRF leans on them
    given = encoder_cv._GivenProbabilities(
        {p.id: np.array([[float(bool(s.gold) and s.gold[0].code == lab) for lab in labels]
                         for s in p.sentences()], np.float32) for p in train}, labels)
    model = CoreSCClassifier(c1=0.1, c2=0.1, secondary=False, calibrate=False,
                             encoder={"inner_folds": 2})
    encoder_cv.given_fit(given)(model, train)
    assert model._encoder is given
    assert model._encoder_labels == labels
