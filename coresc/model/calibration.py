"""Calibrated scores: every label's score is the probability that the label is right.

The classifier's raw scores sit on two scales: the primary label's is a CRF marginal, a
secondary label's a one-vs-rest probability (or a CRF marginal when there is no secondary
layer), and neither is calibrated. A :class:`Calibration` maps the raw score of the label
at each rank (1, 2, 3) to **the probability that this label is one of the sentence's gold
labels**, one scale for every rank. The maps are fitted on out-of-fold rankings of the
training data (the inner folds: the model that scored a sentence never saw it), by
isotonic regression (pool adjacent violators), so they assume nothing about the shape of
the miscalibration. Where the training papers come from several corpora, each corpus
with enough out-of-fold sentences (:data:`MIN_CORPUS_POINTS`) also gets maps of its
own, used for papers known to be of that corpus (``Paper.meta["corpus"]``, set by
``--domain``): a pooled map fitted mostly on one corpus is off on another. Scores are
then made non-increasing down a ranking: a label's score is
at most the score of the label ranked above it, so ``pred`` lists read in rank order
with scores that never go up.

Also here: the measures of calibration (:func:`reliability`, expected calibration error
over equal-width bins) and of what a score threshold buys (:func:`coverage_curve`), and
:func:`keep_above`, the ``--min-score`` rule.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..document import Prediction

#: Ranks with a map of their own (a ranking holds at most three labels).
N_RANKS = 3
#: Equal-width bins of the reliability diagram and the expected calibration error.
ECE_BINS = 10
#: Fewest out-of-fold sentences for a rank to get its own map; below, it shares rank 1's.
MIN_POINTS = 20
#: Fewest out-of-fold sentences of a corpus for it to get maps of its own.
MIN_CORPUS_POINTS = 500
#: Score thresholds of the accuracy / coverage curve.
CURVE_THRESHOLDS = tuple(round(0.05 * i, 2) for i in range(20))


@dataclass
class IsotonicMap:
    """A non-decreasing piecewise-linear map of raw scores to probabilities.

    ``x``: knots (raw scores, increasing); ``y``: the probability at each knot
    (non-decreasing, in [0, 1]); between knots the map is linear, beyond them constant.
    ``n``: the out-of-fold points it was fitted on.
    """

    x: np.ndarray
    y: np.ndarray
    n: int

    def __post_init__(self) -> None:
        self._xs, self._ys = self.x.tolist(), self.y.tolist()

    def __call__(self, raw: np.ndarray | float) -> np.ndarray:
        return np.interp(raw, self.x, self.y)

    def one(self, raw: float) -> float:
        """The map at one score (a bisection: several times faster than numpy per call,
        which matters once per label of every annotated sentence)."""
        xs, ys = self._xs, self._ys
        i = bisect_right(xs, raw)
        if i == 0:
            return ys[0]
        if i == len(xs):
            return ys[-1]
        x0, x1 = xs[i - 1], xs[i]
        return ys[i - 1] + (ys[i] - ys[i - 1]) * (raw - x0) / (x1 - x0)

    def to_json(self) -> dict[str, Any]:
        return {"x": [float(v) for v in self.x], "y": [float(v) for v in self.y], "n": self.n}

    @classmethod
    def from_json(cls, data: Any) -> IsotonicMap:
        """Raises ``ValueError`` unless ``data`` holds a valid map."""
        try:
            x = np.asarray(data["x"], dtype=float)
            y = np.asarray(data["y"], dtype=float)
            n = int(data["n"])
        except (KeyError, TypeError, ValueError):
            raise ValueError("a rank's map needs x, y and n") from None
        if x.ndim != 1 or x.shape != y.shape or not len(x) or np.any(np.diff(x) < 0) \
                or np.any(np.diff(y) < 0) or y.min() < 0 or y.max() > 1:
            raise ValueError("a rank's map must have matching, non-decreasing x and y "
                             "with y in [0, 1]")
        return cls(x, y, n)


def fit_isotonic(raw: Sequence[float], hit: Sequence[bool]) -> IsotonicMap:
    """The least-squares non-decreasing fit of ``hit`` (0/1) on ``raw`` (pool adjacent
    violators), as knots at both ends of every pooled block."""
    raw = np.asarray(raw, dtype=float)
    hit = np.asarray(hit, dtype=float)
    if raw.shape != hit.shape or not len(raw):
        raise ValueError("need as many hits as scores, and at least one")
    ux, inverse = np.unique(raw, return_inverse=True)
    sums = np.bincount(inverse, weights=hit)
    weights = np.bincount(inverse).astype(float)
    blocks: list[list[float]] = []  # [sum, weight, first x, last x]
    for s, w, x in zip(sums, weights, ux, strict=True):
        blocks.append([s, w, x, x])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] >= blocks[-1][0] / blocks[-1][1]:
            s2, w2, _, last = blocks.pop()
            blocks[-1][0] += s2
            blocks[-1][1] += w2
            blocks[-1][3] = last
    xs: list[float] = []
    ys: list[float] = []
    for s, w, first, last in blocks:
        for x in (first, last) if last > first else (first,):
            xs.append(x)
            ys.append(s / w)
    return IsotonicMap(np.array(xs), np.array(ys), int(len(raw)))


@dataclass
class Calibration:
    """Per-rank maps of raw scores to calibrated probabilities (see the module docstring).

    ``maps[k]`` calibrates the label at rank ``k + 1``; ranks past the last map use it.
    ``by_corpus``: maps of the same kind per training corpus, for papers of that corpus.
    ``stats``: what the fit saw (points and hit rates per rank, and the expected
    calibration error of the raw primary score on the out-of-fold data).
    """

    maps: list[IsotonicMap]
    stats: dict[str, Any] = field(default_factory=dict)
    by_corpus: dict[str, list[IsotonicMap]] = field(default_factory=dict)

    def apply(self, ranking: Sequence[Prediction], corpus: str | None = None,
              ) -> list[Prediction]:
        """The ranking with calibrated, non-increasing scores (labels and order kept);
        ``corpus``'s own maps when it has some, else the pooled ones."""
        maps = self.by_corpus.get(corpus, self.maps) if corpus else self.maps
        out = []
        cap = 1.0
        for k, p in enumerate(ranking):
            score = min(maps[min(k, len(maps) - 1)].one(p.score), cap)
            out.append(Prediction(p.label, score))
            cap = score
        return out

    def to_json(self) -> dict[str, Any]:
        out = {"method": "isotonic", "target": "label is one of the sentence's gold labels",
               "maps": [m.to_json() for m in self.maps], "stats": self.stats}
        if self.by_corpus:
            out["by_corpus"] = {name: [m.to_json() for m in maps]
                                for name, maps in sorted(self.by_corpus.items())}
        return out

    @classmethod
    def from_json(cls, data: Any) -> Calibration:
        """Raises ``ValueError`` unless ``data`` is what :meth:`to_json` writes."""
        if not isinstance(data, dict) or data.get("method") != "isotonic" \
                or not isinstance(data.get("maps"), list) or not data["maps"]:
            raise ValueError("expected {'method': 'isotonic', 'maps': [...]}")
        if not isinstance(data.get("stats") or {}, dict):
            raise ValueError("stats must be an object")
        by_corpus = data.get("by_corpus") or {}
        if not isinstance(by_corpus, dict) or not all(
                isinstance(v, list) and v for v in by_corpus.values()):
            raise ValueError("by_corpus must map corpus names to lists of maps")
        return cls([IsotonicMap.from_json(m) for m in data["maps"][:N_RANKS]],
                   dict(data.get("stats") or {}),
                   {str(k): [IsotonicMap.from_json(m) for m in v[:N_RANKS]]
                    for k, v in by_corpus.items()})


def fit_calibration(rankings: Sequence[Sequence[Prediction]],
                    golds: Sequence[Sequence[str]],
                    corpora: Sequence[str | None] | None = None) -> Calibration:
    """Fit the per-rank maps on out-of-fold raw rankings and the sentences' gold labels.

    ``rankings[i]``: sentence ``i``'s raw ranking (label and raw score per rank);
    ``golds[i]``: its gold label codes (non-empty); ``corpora[i]``: the corpus of its
    paper, if known. A rank with fewer than :data:`MIN_POINTS` sentences shares the map
    of the rank above it; a corpus of at least :data:`MIN_CORPUS_POINTS` sentences gets
    maps of its own (when there are two corpora or more).
    """
    if len(rankings) != len(golds) or (corpora is not None and len(corpora) != len(golds)):
        raise ValueError("need one gold label list (and corpus) per ranking")
    maps, stats = _rank_maps(rankings, golds)
    stats["n"] = len(rankings)
    first = np.array([r[0].score for r in rankings])
    hits = np.array([r[0].label in g for r, g in zip(rankings, golds, strict=True)])
    stats["ece_primary_raw"] = round(reliability(first, hits)["ece"], 4)
    by_corpus: dict[str, list[IsotonicMap]] = {}
    names = sorted({c for c in corpora or () if c})
    for name in names if len(names) > 1 else ():
        rows = [i for i, c in enumerate(corpora) if c == name]
        if len(rows) >= MIN_CORPUS_POINTS:
            by_corpus[name], _ = _rank_maps([rankings[i] for i in rows],
                                            [golds[i] for i in rows])
            stats.setdefault("by_corpus", {})[name] = {"n": len(rows)}
    return Calibration(maps, stats, by_corpus)


def _rank_maps(rankings, golds) -> tuple[list[IsotonicMap], dict[str, Any]]:
    maps: list[IsotonicMap] = []
    stats: dict[str, Any] = {}
    for k in range(N_RANKS):
        pairs = [(r[k].score, r[k].label in g) for r, g in zip(rankings, golds, strict=True)
                 if len(r) > k]
        if len(pairs) < MIN_POINTS:
            if not maps:
                raise ValueError(f"calibration needs at least {MIN_POINTS} sentences with "
                                 f"gold labels, got {len(pairs)}")
            break
        raw, hit = (np.array(v) for v in zip(*pairs, strict=True))
        maps.append(fit_isotonic(raw, hit))
        stats[f"rank{k + 1}"] = {"n": len(pairs), "hit_rate": round(float(hit.mean()), 4)}
    return maps, stats


# ---------------------------------------------------------------- measures


def reliability(scores: Sequence[float], hits: Sequence[bool],
                bins: int = ECE_BINS) -> dict[str, Any]:
    """Reliability table and expected calibration error of probabilities ``scores``.

    Equal-width bins over [0, 1] (a score of 1.0 falls in the last). Per bin: ``n``, the
    mean score (``confidence``) and the share of hits (``accuracy``); ``ece`` is the
    mean of ``|accuracy - confidence|`` over bins weighted by ``n``; ``n`` the scores.
    """
    s = np.asarray(scores, dtype=float)
    h = np.asarray(hits, dtype=float)
    if s.shape != h.shape or not len(s):
        raise ValueError("need as many hits as scores, and at least one")
    index = np.minimum((s * bins).astype(int), bins - 1)
    rows = []
    ece = 0.0
    for b in range(bins):
        mask = index == b
        n = int(mask.sum())
        row = {"low": b / bins, "high": (b + 1) / bins, "n": n,
               "confidence": float(s[mask].mean()) if n else None,
               "accuracy": float(h[mask].mean()) if n else None}
        if n:
            ece += n / len(s) * abs(row["accuracy"] - row["confidence"])
        rows.append(row)
    return {"bins": rows, "ece": float(ece), "n": int(len(s))}


def coverage_curve(scores: Sequence[float], hits: Sequence[bool],
                   thresholds: Sequence[float] = CURVE_THRESHOLDS) -> list[dict[str, Any]]:
    """What ``--min-score`` keeps: per threshold, the share of sentences whose score
    reaches it (``coverage``) and the share of hits among them (``accuracy``, ``None``
    when nothing is kept)."""
    s = np.asarray(scores, dtype=float)
    h = np.asarray(hits, dtype=bool)
    out = []
    for t in thresholds:
        kept = s >= t
        n = int(kept.sum())
        out.append({"threshold": float(t), "n": n,
                    "coverage": n / len(s) if len(s) else 0.0,
                    "accuracy": float(h[kept].mean()) if n else None})
    return out


def keep_above(ranking: Sequence[Prediction], min_score: float | None) -> list[Prediction]:
    """The labels of a ranking down to the first whose score is below ``min_score``.

    Empty when the primary label's score is below it: the sentence stays without a label
    (a secondary label is never promoted). ``None`` or 0 keeps everything.
    """
    out = list(ranking)
    if min_score:
        for k, p in enumerate(out):
            if p.score < min_score:
                return out[:k]
    return out
