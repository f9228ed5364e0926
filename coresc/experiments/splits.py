"""Splits: a fold (paper keys on each side) and the balanced k-fold splitter.

The splitters' building blocks, below everything that makes or runs folds: ``folds.py``
(a config's folds), ``curve.py`` (learning-curve runs) and ``workers.py`` import them;
this module imports nothing of the experiments package.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import UsageError


@dataclass
class Fold:
    """One train/test split: paper keys (``corpus/paper_id``) on each side."""

    name: str
    train: list[str]
    test: list[str]
    #: learning curves: the target papers the source model is adapted to (None: chosen
    #: when the source model is trained), and the run's test fold, k, choice, repetition
    adapt: list[str] | None = None
    info: dict[str, Any] = field(default_factory=dict)

    def curve_fields(self) -> dict[str, Any]:
        """``adapt`` and ``info`` for the fold's JSON records (learning curves only)."""
        return {"adapt": self.adapt, **self.info} if self.info else {}


def n_labelled(paper) -> int:
    """Sentences of ``paper`` with a gold label."""
    return sum(1 for s in paper.sentences() if s.gold)


def balanced_kfold(sizes: Mapping[str, int], k: int) -> list[list[str]]:
    """Split items into ``k`` folds with sentence totals as equal as greedy gets.

    Largest item first (ties by key, so the result is deterministic), each into the fold
    with the smallest total so far (ties: lowest fold index). Returns sorted key lists.
    """
    from ..model import balanced_folds

    if not 2 <= k <= len(sizes):
        raise UsageError(f"bad fold count: k={k} needs 2 <= k <= {len(sizes)} (the papers)")
    keys = sorted(sizes)  # balanced_folds breaks ties by position: here, by key
    folds: list[list[str]] = [[] for _ in range(k)]
    for key, i in zip(keys, balanced_folds([sizes[x] for x in keys], k), strict=True):
        folds[i].append(key)
    return folds
