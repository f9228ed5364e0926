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
from dataclasses import dataclass, field

import numpy as np

from .document import Paper
from .errors import UsageError

#: How a paper's expected errors are turned into its utility.
UTILITIES = ("total", "rate", "weak")
#: The smallest expected share of the pool a label's weight is the inverse of (``weak``).
MIN_SHARE = 0.01
#: How much a paper's similarity to those already chosen discounts it (0: none).
DEFAULT_DIVERSITY = 0.5
#: How many of a paper's weak labels ``coresc select --scores`` names.
WEAK_LABELS_SHOWN = 3


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
    #: The labels that weigh most in its ``weak`` utility, with the sentences of each
    #: the model expects in it (the sum of its marginals): why it was chosen.
    weak_labels: list[tuple[str, float]] = field(default_factory=list)

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


def _label_weights(margs: Sequence[np.ndarray]) -> np.ndarray | None:
    """Each label's weight: the inverse of its expected share of the pool (floored at
    :data:`MIN_SHARE`), normalised; None for a pool without sentences."""
    rows = [m for m in margs if len(m)]
    if not rows:
        return None
    weight = 1.0 / np.maximum(np.concatenate(rows).mean(axis=0), MIN_SHARE)
    return weight / weight.sum()


def _weak_label_scores(margs: Sequence[np.ndarray]) -> list[float]:
    weight = _label_weights(margs)
    if weight is None:
        return [0.0] * len(margs)
    return [float(((m * (1.0 - m)) @ weight).mean()) if len(m) else 0.0 for m in margs]


def weak_label_parts(margs: Sequence[np.ndarray], labels: Sequence[str],
                     top: int = WEAK_LABELS_SHOWN) -> list[list[tuple[str, float]]]:
    """Per paper, the ``top`` labels that add most to its ``weak`` utility (their
    weighted uncertainty), each with the sentences of it the model expects there (the
    sum of its marginals), largest share first; labels it adds nothing for are left out."""
    weight = _label_weights(margs)
    out: list[list[tuple[str, float]]] = []
    for m in margs:
        if weight is None or not len(m):
            out.append([])
            continue
        share = (m * (1.0 - m)).sum(axis=0) * weight
        order = [j for j in np.argsort(-share, kind="stable")[:top] if share[j] > 0]
        out.append([(labels[j], float(m[:, j].sum())) for j in order])
    return out


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
    weak = parts = None
    if utility == "weak" or hasattr(model, "rank_with_marginals"):
        # one pass over the pool gives both; the marginals say which labels are weak
        rankings, margs = model.rank_with_marginals(papers)
        weak = _weak_label_scores(margs)
        parts = weak_label_parts(margs, model.labels_)
    else:
        rankings = model.rank(papers)
    pool = [Candidate(i, p, e, n)
            for i, (p, (e, n)) in enumerate(zip(papers, _expected_errors(rankings),
                                                strict=True))]
    for i, c in enumerate(pool):
        c.utility = (c.expected_errors if utility == "total" else
                     c.error_rate if utility == "rate" else weak[i])
        c.weak_labels = parts[i] if parts is not None else []
    return greedy_diverse(pool, similarity_matrix(papers), budget, diversity)


#: What each utility measures, as ``coresc select --scores`` explains its order.
UTILITY_MEANS = {
    "weak": "the mean over its sentences of the model's uncertainty about each label "
            "(p (1 - p) of its marginal), weighted towards the labels it expects rarely in "
            "the pool",
    "total": "the primary labels it expects to be wrong (the sum over its sentences of 1 "
             "minus the calibrated score)",
    "rate": "the share of its sentences whose primary label it expects to be wrong",
}


def explain_order(utility: str, diversity: float) -> list[str]:
    """Lines saying why the chosen papers come in their order."""
    return [f"most useful first: each pick is the paper with the largest gain = utility x "
            f"(1 - {diversity:g} x its largest word similarity to a paper picked before)",
            f"utility ({utility}): {UTILITY_MEANS[utility]}",
            "expected_wrong: primary labels the model expects to be wrong in it; "
            "weak_labels: the labels that add most to its uncertainty, weighted, each with "
            "the sentences of it the model expects there"]


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
