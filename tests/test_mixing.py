"""The per-label mixture of an adapted model's and its source's marginals (issue 38)."""

from __future__ import annotations

import numpy as np
import pytest

from coresc.model.mixing import choose_t, mix_marginals, mix_weights, objective

LABELS = ["Hyp", "Res", "Met"]


def test_weights_follow_the_reviewed_counts():
    w = mix_weights({"Res": 90, "Met": 10}, LABELS, LABELS, t=10.0)
    assert w == {"Hyp": 0.0, "Res": 0.9, "Met": 0.5}


def test_a_label_the_source_lacks_is_the_adapted_models():
    w = mix_weights({"Res": 5}, ["Res", "New"], ["Res"], t=10.0)
    assert w["New"] == 1.0 and w["Res"] == pytest.approx(1 / 3)


def test_t_zero_trusts_every_label_seen():
    w = mix_weights({"Res": 1}, LABELS, LABELS, t=0.0)
    assert w == {"Hyp": 0.0, "Res": 1.0, "Met": 0.0}


def test_mixture_rows_sum_to_one_and_keep_the_sources_rare_label():
    adapted = np.array([[0.0, 0.6, 0.4], [0.0, 0.5, 0.5]])  # never says Hyp
    source = np.array([[0.7, 0.2, 0.1], [0.1, 0.5, 0.4]])
    p = mix_marginals(adapted, source, np.array([0.0, 0.9, 0.9]))
    assert np.allclose(p.sum(axis=1), 1.0)
    assert list(np.argmax(p, axis=1)) == [0, 1]  # the source's Hyp survives where it is sure


def test_all_zero_rows_stay_zero():
    p = mix_marginals(np.zeros((1, 3)), np.zeros((1, 3)), np.ones(3))
    assert not p.any()


def test_objective_is_accuracy_plus_macro_f1():
    gold = np.array([0, 0, 1, 1])
    assert objective(gold, gold, 2) == pytest.approx(2.0)
    assert objective(np.array([0, 0, 0, 0]), gold, 2) == pytest.approx(0.5 + (2 / 3) / 2)


def test_choose_t_recovers_a_label_seen_once():
    # the adapted model saw Hyp once and never predicts it; the source does, rightly
    adapted = np.array([[0.1, 0.8, 0.1]] * 4 + [[0.0, 0.9, 0.1]] * 4)
    source = np.array([[0.8, 0.1, 0.1]] * 4 + [[0.1, 0.8, 0.1]] * 4)
    gold = np.array([0] * 4 + [1] * 4)
    counts = {"Hyp": 1, "Res": 40, "Met": 5}
    t = choose_t(adapted, source, gold, counts, LABELS, LABELS, grid=(0.0, 1.0, 10.0))
    assert t > 0.0  # T = 0 would trust the adapted model's Hyp and lose it
    w = mix_weights(counts, LABELS, LABELS, t)
    p = mix_marginals(adapted, source, np.array([w[lab] for lab in LABELS]))
    assert list(np.argmax(p, axis=1)) == list(gold)


def test_choose_t_without_sentences_stays_near_the_source():
    empty = np.zeros((0, 3))
    assert choose_t(empty, empty, np.zeros(0, int), {}, LABELS, LABELS,
                    grid=(0.0, 5.0)) == 5.0
