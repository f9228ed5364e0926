"""Which papers to review next: the ones whose labels the model is least sure of (by
default ``weak``, below), spread out so that a budget is not spent on near-identical
papers (``coresc select``).

A paper's *expected errors* are the sum over its sentences of ``1 - p``, where ``p`` is
the model's calibrated probability that its primary label is right: the number of
primary labels a reviewer can expect to correct. ``utility="total"`` ranks papers by that
number (a long, uncertain paper teaches the model the most per paper reviewed);
``utility="rate"`` by its share of the sentences (the most uncertain papers whatever
their length). ``utility="weak"`` (the default) spends the budget where the labels are
weak: per sentence, the model's uncertainty about each label (``p (1 - p)`` of its
marginal) weighted by the inverse of the label's expected share of the pool (floored at
1%), and per paper the mean over its sentences, so long papers full of Res and Met
sentences do not win by length. docs/benchmarks.md ("Learning curve", "Rare labels under
adaptation") measures them against a random choice.

Diversity is a greedy choice: each step takes the paper with the largest
``utility * (1 - diversity * s)``, where ``s`` is the paper's largest cosine similarity
(TF-IDF of its words, fitted on the pool) to a paper already chosen. Ties go to the
paper given first, so the choice is deterministic.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .document import Paper
from .errors import UsageError

#: How a paper's expected errors are turned into its utility.
UTILITIES = ("total", "rate", "weak")
#: The smallest expected share of the pool a label's weight is the inverse of (``weak``).
MIN_SHARE = 0.01
#: How much a paper's similarity to those already chosen discounts it (0: none).
DEFAULT_DIVERSITY = 0.5


@dataclass
class Candidate:
    """One paper of the pool, scored: what ``coresc select`` ranks."""

    index: int  # position in the pool as given
    paper: Paper
    expected_errors: float
    n_sentences: int
    utility: float = 0.0
    similarity: float = 0.0  # largest cosine similarity to a paper chosen before it
    gain: float = 0.0  # utility * (1 - diversity * similarity) when it was chosen

    @property
    def error_rate(self) -> float:
        return self.expected_errors / self.n_sentences if self.n_sentences else 0.0


def expected_errors(model, papers: Sequence[Paper]) -> list[tuple[float, int]]:
    """Per paper: (expected wrong primary labels, sentences), from calibrated scores."""
    return _expected_errors(model.rank(papers))


def _expected_errors(rankings) -> list[tuple[float, int]]:
    out = []
    for ranked in rankings:
        scores = [r[0].score for r in ranked if r]
        out.append((float(sum(1.0 - min(1.0, max(0.0, s)) for s in scores)), len(scores)))
    return out


def weak_label_scores(model, papers: Sequence[Paper]) -> list[float]:
    """Per paper, the mean over its sentences of the model's uncertainty about each label
    (``p (1 - p)`` of its marginal), weighted by the inverse of the label's expected share
    of the pool (the mean marginal over every sentence of ``papers``, floored at
    :data:`MIN_SHARE`)."""
    return _weak_label_scores(model.marginals(papers))


def _weak_label_scores(margs: Sequence[np.ndarray]) -> list[float]:
    rows = [m for m in margs if len(m)]
    if not rows:
        return [0.0] * len(margs)
    weight = 1.0 / np.maximum(np.concatenate(rows).mean(axis=0), MIN_SHARE)
    weight /= weight.sum()
    return [float(((m * (1.0 - m)) @ weight).mean()) if len(m) else 0.0 for m in margs]


def unreviewed(papers: Sequence[Paper], reviewed_ids: set[str] = frozenset()) -> list[Paper]:
    """The papers with no gold label whose id is not among ``reviewed_ids``."""
    return [p for p in papers if p.id not in reviewed_ids
            and not any(s.gold for s in p.sentences())]


def select_papers(model, papers: Sequence[Paper], budget: int, utility: str = "weak",
                  diversity: float = DEFAULT_DIVERSITY) -> list[Candidate]:
    """The ``budget`` most useful papers to review, most useful first (fewer when the
    pool is smaller)."""
    if utility not in UTILITIES:
        raise UsageError(f"unknown utility {utility!r} (known: {', '.join(UTILITIES)})")
    if budget < 1:
        raise UsageError(f"the budget must be at least 1 paper, not {budget}")
    if not 0.0 <= diversity <= 1.0:
        raise UsageError(f"diversity must be between 0 and 1, not {diversity}")
    weak = None
    if utility == "weak":  # one pass over the pool gives both
        rankings, margs = model.rank_with_marginals(papers)
        weak = _weak_label_scores(margs)
    else:
        rankings = model.rank(papers)
    pool = [Candidate(i, p, e, n)
            for i, (p, (e, n)) in enumerate(zip(papers, _expected_errors(rankings),
                                                strict=True))]
    for i, c in enumerate(pool):
        c.utility = (c.expected_errors if utility == "total" else
                     c.error_rate if utility == "rate" else weak[i])
    return greedy_diverse(pool, similarity_matrix(papers), budget, diversity)


def greedy_diverse(pool: list[Candidate], sim: np.ndarray, budget: int,
                   diversity: float) -> list[Candidate]:
    """Greedy choice by ``utility * (1 - diversity * max similarity to the chosen)``."""
    left = list(range(len(pool)))
    nearest = np.zeros(len(pool))
    chosen: list[Candidate] = []
    while left and len(chosen) < budget:
        gains = [pool[i].utility * (1.0 - diversity * nearest[i]) for i in left]
        best = left[int(np.argmax(gains))]  # argmax: the first of equal gains
        pool[best].similarity = float(nearest[best])
        pool[best].gain = float(gains[left.index(best)])
        chosen.append(pool[best])
        left.remove(best)
        nearest = np.maximum(nearest, sim[best])
    return chosen


def similarity_matrix(papers: Sequence[Paper]) -> np.ndarray:
    """Cosine similarity of the papers' TF-IDF word vectors (papers x papers)."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    texts = [" ".join(s.text for s in p.sentences()) for p in papers]
    if len(texts) < 2 or not any(t.strip() for t in texts):
        return np.zeros((len(texts), len(texts)))
    try:
        x = TfidfVectorizer(sublinear_tf=True, lowercase=True).fit_transform(texts)
    except ValueError:  # no word in any paper (e.g. only numbers or symbols)
        return np.zeros((len(texts), len(texts)))
    return np.asarray((x @ x.T).todense())
