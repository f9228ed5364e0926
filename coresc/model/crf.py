"""The primary layer: a linear-chain CRF over a paper's sentences (python-crfsuite).

Training, tagging (Viterbi path and per-sentence marginals), reading a label off the
marginals with per-label biases, and tuning those biases on out-of-fold marginals.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..labels import sort_key

#: (c1, c2) pairs the inner CV chooses from. Weaker penalties lost on both gold corpora
#: (``experiments/cv.py cra3 art9 --grid``, docs/benchmarks.md); ART's release folders,
#: whose label mixes differ, favour the stronger one.
DEFAULT_GRID: tuple[tuple[float, float], ...] = ((0.1, 1.0), (0.5, 5.0))

#: How the primary label is read off the CRF (``CoreSCClassifier.decode``).
DECODINGS = ("balanced", "posterior", "viterbi")


def check_grid(grid: Any) -> tuple[tuple[float, float], ...]:
    """``c_grid`` as a tuple of (c1, c2) float pairs; ValueError unless each is >= 0."""
    try:
        pairs = tuple((float(c1), float(c2)) for c1, c2 in grid)
    except (TypeError, ValueError):
        pairs = ()
    if not pairs or not all(math.isfinite(c) and c >= 0 for pair in pairs for c in pair):
        raise ValueError(f"c_grid must list (c1, c2) pairs of finite numbers >= 0, not "
                         f"{grid!r}")
    return pairs


# ---------------------------------------------------------------- folds


def balanced_folds(sizes: Sequence[int], k: int) -> list[int]:
    """Fold index per item: largest first, each to the currently smallest fold.

    Deterministic (ties broken by item order, then fold index), as SAPIENTA's
    fold generator does. ``sizes`` are sentence counts of papers.
    """
    if k < 2:
        raise ValueError("need at least 2 folds")
    totals = [0] * k
    fold = [0] * len(sizes)
    for i in sorted(range(len(sizes)), key=lambda i: (-sizes[i], i)):
        f = min(range(k), key=lambda j: (totals[j], j))
        fold[i] = f
        totals[f] += sizes[i]
    return fold


def train_crf(X, labels, c1: float, c2: float, max_iterations: int,
               min_freq: int) -> tuple[bytes, tuple[str, ...]]:
    """Train one CRF; sentences without a gold label are left out of the sequences."""
    import sklearn_crfsuite

    xs, ys = [], []
    for x, y in zip(X, labels, strict=True):
        keep = [i for i, lab in enumerate(y) if lab]
        if keep:
            xs.append([x[i] for i in keep])
            ys.append([y[i] for i in keep])
    with tempfile.TemporaryDirectory(prefix="coresc-crf-") as tmp:
        path = Path(tmp) / "crf.crfsuite"
        crf = sklearn_crfsuite.CRF(algorithm="lbfgs", c1=c1, c2=c2,
                                   max_iterations=int(max_iterations),
                                   min_freq=min_freq, all_possible_transitions=True,
                                   model_filename=str(path))
        crf.fit(xs, ys)
        data = path.read_bytes()
    label_set = tuple(sorted({lab for y in ys for lab in y}, key=sort_key))
    return data, label_set


def open_tagger(data: bytes):
    import pycrfsuite

    tagger = pycrfsuite.Tagger()
    tagger.open_inmemory(data)
    return tagger


def crf_tag(tagger, x: list[dict[str, float]], label_set) -> tuple[list[str], list[dict]]:
    """Viterbi labels and per-sentence marginals {label: p} of one paper."""
    import pycrfsuite

    tagger.set(pycrfsuite.ItemSequence(x))
    pred = tagger.tag()
    known = tagger.labels()
    marg = [{lab: tagger.marginal(lab, i) for lab in known} for i in range(len(x))]
    return pred, marg


def biased_decode(marg: list[dict[str, float]], bias: dict[str, float]) -> list[str]:
    """Per sentence, the label maximising log marginal + bias (ties: priority order)."""
    out = []
    log = math.log
    extra: dict[str, tuple[float, int]] = {}  # label -> (bias, -priority), computed once
    for m in marg:
        # max() by (log marginal + bias, -priority): the first label with the largest key
        best = None
        best_key = None
        for lab, p in m.items():
            e = extra.get(lab)
            if e is None:
                e = extra[lab] = (bias.get(lab, 0.0), -sort_key(lab)[0])
            key = (log(max(p, 1e-12)) + e[0], e[1])
            if best_key is None or key > best_key:
                best, best_key = lab, key
        out.append(best)
    return out


def tune_bias(oof, labels, label_set: list[str]) -> dict[str, float]:
    """Per-label log-biases maximising accuracy + macro-F1 on out-of-fold marginals.

    Coordinate ascent over a small grid, two passes; labels never seen in the
    out-of-fold marginals keep bias 0.
    """
    rows, gold = [], []
    for i, item in enumerate(oof):
        if item is None:
            continue
        for j, lab in enumerate(labels[i]):
            if lab:
                rows.append(np.log(np.maximum(full_marginals(item[1][j], label_set), 1e-12)))
                gold.append(label_set.index(lab) if lab in label_set else -1)
    if not rows:
        return {}
    L = np.vstack(rows)
    y = np.array(gold)
    k = len(label_set)

    def score(b: np.ndarray) -> float:
        p = np.argmax(L + b, axis=1)
        acc = float(np.mean(p == y))
        f1s = []
        for c in range(k):
            tp = np.sum((p == c) & (y == c))
            denom = np.sum(p == c) + np.sum(y == c)
            if np.sum(y == c):
                f1s.append(2 * tp / denom if denom else 0.0)
        return acc + float(np.mean(f1s))

    b = np.zeros(k)
    best = score(b)
    for _ in range(2):
        for c in range(k):
            for v in np.arange(-1.0, 2.01, 0.25):
                trial = b.copy()
                trial[c] = v
                sc = score(trial)
                if sc > best + 1e-9:
                    best, b = sc, trial
    return {lab: round(float(v), 3) for lab, v in zip(label_set, b, strict=True) if v}


def full_marginals(m: dict[str, float], labels: Sequence[str]) -> np.ndarray:
    return np.array([m.get(lab, 0.0) for lab in labels])
