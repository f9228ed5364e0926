"""Tokens and POS tags of papers, cached while the papers live (features need them twice:
once for the inner folds, once for the final model)."""

from __future__ import annotations

import weakref

from ..document import Paper
from ..features import analyse


class AnalysisCache:
    """Tokens and POS tags of live paper objects: an entry goes when its paper does.

    Keyed by ``id(paper)`` with a weak reference to the paper (papers are unhashable
    dataclasses), so the cache never keeps a paper alive: a long annotation run, or a
    program that annotates paper after paper, holds no more than the papers it keeps.
    """

    def __init__(self) -> None:
        self._entries: dict[int, tuple[weakref.ref, bool, list]] = {}

    def get(self, paper: Paper, tagger, store: bool = True) -> list:
        """The paper's analyses (computed when missing; kept when ``store``)."""
        key = id(paper)
        hit = self._entries.get(key)
        if hit is not None and hit[0]() is paper and (hit[1] or tagger is None):
            return hit[2]
        analyses = analyse(paper, tagger=tagger)
        if store:
            entries = self._entries
            ref = weakref.ref(paper, lambda _ref, key=key: entries.pop(key, None))
            entries[key] = (ref, tagger is not None, analyses)
        return analyses

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


ANALYSES = AnalysisCache()


def clear_cache() -> None:
    """Forget cached tokenisation/POS tags."""
    ANALYSES.clear()


def pos_tagger():
    from ..pos import PosTagger

    return PosTagger.load_default()
