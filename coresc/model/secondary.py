"""The secondary layer: one-vs-rest logistic regressions over features and CRF marginals.

A second (third) label is emitted when its probability passes a threshold tuned on
out-of-fold predictions of the training data.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain, repeat
from typing import Any

import numpy as np


def vocabulary(feature_dicts, min_freq: int) -> dict[str, int]:
    counts: dict[str, int] = {}
    for f in feature_dicts:
        for name in f:
            counts[name] = counts.get(name, 0) + 1
    names = sorted(n for n, c in counts.items() if c >= min_freq)
    return {n: i for i, n in enumerate(names)}


def design(feats: Sequence[dict[str, float]], vocab: dict[str, int], marg: np.ndarray):
    """Sparse design matrix: binary features (vocab columns) then CRF marginals."""
    from scipy import sparse

    indptr = [0]
    indices: list[int] = []
    data: list[float] = []
    for f in feats:
        for name, value in f.items():
            j = vocab.get(name)
            if j is not None:
                indices.append(j)
                data.append(value)
        indptr.append(len(indices))
    X = sparse.csr_matrix((data, indices, indptr), shape=(len(feats), len(vocab)))
    return sparse.hstack([X, sparse.csr_matrix(marg * 3.0)], format="csr")


def ovr_scores(feats: Sequence[dict[str, float]], ovr: dict[str, Any],
                marg: np.ndarray) -> np.ndarray:
    """Decision values (sentences x labels) of the one-vs-rest layer; like
    ``design(...) @ coef.T + intercept`` without building the stacked matrix."""
    from scipy import sparse

    vocab = ovr["vocab"]
    if "coef_feat_t" not in ovr:  # split once: feature columns, marginal columns
        ovr["coef_feat_t"] = np.ascontiguousarray(ovr["coef"][:, : len(vocab)].T)
        ovr["coef_marg_t"] = np.ascontiguousarray(ovr["coef"][:, len(vocab):].T) * 3.0
    # Look-ups run through map() so the per-feature loop stays in C (hot path).
    cols = np.fromiter(map(vocab.get, chain.from_iterable(feats), repeat(-1)), dtype=np.int64)
    vals = np.fromiter(chain.from_iterable(f.values() for f in feats), dtype=np.float32,
                       count=len(cols))
    rows = np.repeat(np.arange(len(feats)), [len(f) for f in feats])
    keep = cols >= 0
    X = sparse.csr_matrix((vals[keep], (rows[keep], cols[keep])),
                          shape=(len(feats), len(vocab)))
    return X @ ovr["coef_feat_t"] + marg @ ovr["coef_marg_t"] + ovr["intercept"]


def fit_ovr(X, Y: np.ndarray, c: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """One logistic regression per label column; constant columns get a fixed bias."""
    from sklearn.linear_model import LogisticRegression

    W = np.zeros((Y.shape[1], X.shape[1]))
    b = np.zeros(Y.shape[1])
    for j in range(Y.shape[1]):
        y = Y[:, j]
        pos = int(y.sum())
        if pos == 0 or pos == len(y):
            b[j] = -20.0 if pos == 0 else 20.0
            continue
        lr = LogisticRegression(C=c, solver="liblinear", random_state=seed, max_iter=200)
        lr.fit(X, y)
        W[j] = lr.coef_[0]
        b[j] = lr.intercept_[0]
    return W, b


def sigmoid(z) -> np.ndarray:
    z = np.asarray(z)
    return 1.0 / (1.0 + np.exp(-np.clip(z, -40, 40)))


def tune_thresholds(prob: np.ndarray, labels: list[str], primary: list[str],
                     gold: list[list[str]], max_rate: float) -> tuple[float, float, dict]:
    """Thresholds for emitting 2nd and 3rd labels, by F1 of emitted labels (OOF data).

    Candidates for rank 2/3 are the labels other than the primary, by probability. An
    emitted label is right when it is one of the sentence's gold labels; recall counts
    the gold non-primary labels. The 2nd-label rate on the tuning data stays <= max_rate.
    """
    n = len(gold)
    cands = []
    for i in range(n):
        order = [j for j in np.argsort(-prob[i], kind="stable") if labels[j] != primary[i]]
        cands.append([(labels[j], float(prob[i][j])) for j in order[:2]])
    n_extra = sum(len([g for g in gold[i] if g != primary[i]]) for i in range(n)
                  if len(gold[i]) > 1)

    def f1_at(rank: int, t: float, t2: float) -> tuple[float, float, int]:
        tp = fp = emitted = 0
        for i in range(n):
            if cands[i][0][1] < t2 or (rank == 2 and cands[i][1][1] < t):
                continue
            if rank == 1 and cands[i][0][1] < t:
                continue
            emitted += 1
            lab = cands[i][rank - 1][0]
            tp += lab in gold[i]
            fp += lab not in gold[i]
        p = tp / (tp + fp) if tp + fp else 0.0
        r = tp / n_extra if n_extra else 0.0
        return (2 * p * r / (p + r) if p + r else 0.0), p, emitted

    grid = sorted({round(x, 3) for x in np.linspace(0.05, 0.95, 91)})
    best2 = (0.0, 1.01, 0.0, 0)
    for t in grid:
        f1, p, emitted = f1_at(1, t, 0.0)
        if emitted / max(n, 1) <= max_rate and f1 > best2[0]:
            best2 = (f1, t, p, emitted)
    t2 = best2[1]
    best3 = (0.0, 1.01, 0.0, 0)
    for t in grid:
        if t < t2:
            continue
        f1, p, emitted = f1_at(2, t, t2)
        if f1 > best3[0] and p >= 0.5:
            best3 = (f1, t, p, emitted)
    tune = {"f1_2": round(best2[0], 4), "precision_2": round(best2[2], 4),
            "rate_2": round(best2[3] / max(n, 1), 4), "n_gold_extra": n_extra,
            "f1_3": round(best3[0], 4), "rate_3": round(best3[3] / max(n, 1), 4)}
    return float(t2), float(best3[1]), tune
