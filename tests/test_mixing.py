"""The per-label mixture of an adapted model's and its source's marginals (issue 38)."""

from __future__ import annotations

import numpy as np
import pytest

from coresc.model.mixing import (
    absent_scale,
    decoding_view,
    expected_counts,
    label_counts,
    mix_marginals,
    mix_weights,
    mixed,
    source_marginals,
)

LABELS = ["Hyp", "Res", "Met"]


def test_counts_skip_unlabelled_sentences():
    assert label_counts([["Res", None, "Res"], ["Met"]]) == {"Res": 2, "Met": 1}


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


def test_decoding_view_applies_the_sources_biases():
    marg = np.array([[0.3, 0.4, 0.3]])
    assert np.argmax(decoding_view(marg, LABELS, {})) == 1
    view = decoding_view(marg, LABELS, {"Hyp": 0.75})
    assert np.argmax(view) == 0 and view.sum() == pytest.approx(1.0)


def _x(rows: list[list[float]], scale: float = 3.0) -> list[dict[str, float]]:
    """Feature dicts holding a source's marginals as ``src=L`` (times ``scale``)."""
    return [{"w=word": 1.0, **{f"src={lab}": scale * v for lab, v in zip(LABELS, r,
                                                                        strict=True)}}
            for r in rows]


def test_source_marginals_are_read_back_from_the_features():
    x = _x([[0.2, 0.5, 0.3]])
    assert np.allclose(source_marginals(x, LABELS, 3.0), [[0.2, 0.5, 0.3]])


def test_mixed_dicts_cover_labels_the_adapted_crf_never_learnt():
    marg = [{"Res": 0.7, "Met": 0.3}]  # the adapted CRF knows two labels
    out = mixed(marg, _x([[0.9, 0.05, 0.05]]), {"Hyp": 0.0, "Res": 1.0, "Met": 1.0},
                LABELS, LABELS, {}, 3.0)
    assert set(out[0]) == set(LABELS)
    assert max(out[0], key=out[0].get) == "Hyp"
    assert sum(out[0].values()) == pytest.approx(1.0)


def test_mixed_uses_the_source_as_it_decodes():
    marg = [{"Res": 0.5, "Met": 0.5}]
    x = _x([[0.4, 0.3, 0.3]])
    w = {"Hyp": 0.0, "Res": 0.5, "Met": 0.5}
    plain = mixed(marg, x, w, LABELS, LABELS, {}, 3.0)[0]
    biased = mixed(marg, x, w, LABELS, LABELS, {"Hyp": 1.0}, 3.0)[0]
    assert biased["Hyp"] > plain["Hyp"]


def test_a_label_never_reviewed_is_scaled_by_how_many_the_source_expected():
    scale = absent_scale({"Res": 40, "Met": 0}, {"Hyp": 30.0, "Res": 35.0, "Met": 0.0}, c=10)
    assert scale == {"Hyp": 0.25}  # Res was seen; the source expected no Met
    assert absent_scale({}, {"Hyp": 0.0}) == {}


def test_expected_counts_sum_the_sources_view_over_labelled_sentences():
    x = [_x([[0.5, 0.25, 0.25], [0.0, 1.0, 0.0]]), _x([[0.2, 0.4, 0.4]])]
    gold = [["Res", None], ["Met"]]  # the unreviewed sentence does not count
    e = expected_counts([source_marginals(p, LABELS, 3.0) for p in x], gold, LABELS, {})
    assert e == pytest.approx({"Hyp": 0.7, "Res": 0.65, "Met": 0.65})


def test_a_scaled_label_gives_way_where_the_source_alone_would_choose_it():
    marg = [{"Res": 0.6, "Met": 0.4}]
    x = _x([[0.5, 0.3, 0.2]])
    w = {"Hyp": 0.0, "Res": 0.3, "Met": 0.3}
    plain = mixed(marg, x, w, LABELS, LABELS, {}, 3.0)[0]
    scaled = mixed(marg, x, w, LABELS, LABELS, {}, 3.0, {"Hyp": 0.2})[0]
    assert max(plain, key=plain.get) == "Hyp" and max(scaled, key=scaled.get) == "Res"
    assert sum(scaled.values()) == pytest.approx(1.0)
