"""A sentence's ranked labels from the model's outputs: the primary label with its CRF
marginal, then the best other labels, and the ones the model emits (its secondary layer's
thresholds on the raw scores)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import islice
from typing import Any

import numpy as np

from ..document import Prediction
from ..labels import MAX_LABELS, sort_key


def rank_labels(labels: Sequence[str], primary: list[str], marg: list[dict[str, float]],
                probs: np.ndarray | None) -> list[list[Prediction]]:
    """Per sentence: the primary label with its marginal, then the two best other
    labels by one-vs-rest probability ``probs`` (sentences x ``labels``), or by
    marginal when ``probs`` is None."""
    labels = list(labels)
    ranked = []
    if probs is not None:  # one row-wise argsort, same order as per row
        orders = np.argsort(-probs, axis=1, kind="stable").tolist()
        prob_rows = probs.tolist()
    for i, first in enumerate(primary):
        entry = [Prediction(first, float(marg[i][first]))]
        if probs is not None:
            row = prob_rows[i]
            others = list(islice(((labels[j], row[j]) for j in orders[i]
                                  if labels[j] != first), MAX_LABELS - 1))
        else:
            others = sorted(((lab, float(p)) for lab, p in marg[i].items() if lab != first),
                            key=lambda lp: (-lp[1], sort_key(lp[0])))
        entry += [Prediction(lab, score) for lab, score in others[: MAX_LABELS - 1]]
        ranked.append(entry)
    return ranked


def emitted(ranking: list[Prediction], ovr: Mapping[str, Any] | None) -> list[Prediction]:
    """The labels a raw ranking emits: the primary, and a second (third) label when the
    one-vs-rest layer ``ovr`` (None: no layer) scores it at its threshold or above."""
    out = ranking[:1]
    if ovr is not None and len(ranking) > 1:
        meta = ovr["meta"]
        if ranking[1].score >= meta["threshold2"]:
            out = ranking[:2]
            if len(ranking) > 2 and ranking[2].score >= meta["threshold3"]:
                out = ranking[:3]
    return out
