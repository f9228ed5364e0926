"""An adapted model's marginals mixed with its source's, per label (issue 38).

A CRF adapted to a few reviewed papers (:mod:`~coresc.model.adapt`) learns the labels
those papers use often and forgets the ones they barely show: a label absent from them
cannot be predicted at all, and one seen twice is rarely chosen, although the source,
trained on many papers, knows it. Each label ``l`` is therefore scored

    p(l) = w_l * adapted(l) + (1 - w_l) * source(l),   w_l = n_l / (n_l + T)

where ``n_l`` is the number of reviewed sentences labelled ``l``: a label the reviewed
papers show often is the adapted model's, one they barely show stays the source's (a
count-based shrinkage, as in MAP adaptation, where little data moves the estimate little
from its prior). A label the source does not know is the adapted model's alone (w = 1).
``T`` is chosen from :data:`T_GRID` on the adapted model's out-of-fold marginals of the
reviewed papers, by accuracy + macro-F1 (the objective the decoding biases are tuned on,
:func:`~coresc.model.crf.tune_bias`). docs/benchmarks.md ("Rare labels under adaptation")
measures it against the adapted model alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

#: The shrinkage strengths ``T`` the reviewed papers' out-of-fold marginals choose from
#: (0: each label seen at all is the adapted model's).
T_GRID: tuple[float, ...] = (0.0, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1000.0)


def mix_weights(counts: Mapping[str, int], labels: Sequence[str],
                source_labels: Sequence[str], t: float) -> dict[str, float]:
    """The adapted model's weight ``w_l`` per label (see the module docstring)."""
    known = set(source_labels)
    out = {}
    for lab in labels:
        n = float(counts.get(lab, 0))
        if lab not in known:
            out[lab] = 1.0
        elif t <= 0:
            out[lab] = 1.0 if n > 0 else 0.0
        else:
            out[lab] = n / (n + t)
    return out


def mix_marginals(adapted: np.ndarray, source: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Per label, ``w * adapted + (1 - w) * source`` (sentences x labels), rows summing to
    1 (the same label columns in both; a label a model lacks has 0 there)."""
    p = adapted * weights + source * (1.0 - weights)
    total = p.sum(axis=1, keepdims=True)
    return np.divide(p, total, out=np.zeros_like(p), where=total > 0)


def objective(pred: np.ndarray, gold: np.ndarray, n_labels: int) -> float:
    """Accuracy + macro-F1 over the labels present in ``gold`` (label indices)."""
    acc = float(np.mean(pred == gold))
    f1s = []
    for c in range(n_labels):
        n_gold = int(np.sum(gold == c))
        if n_gold:
            tp = int(np.sum((pred == c) & (gold == c)))
            f1s.append(2 * tp / (int(np.sum(pred == c)) + n_gold))
    return acc + float(np.mean(f1s))


def choose_t(adapted: np.ndarray, source: np.ndarray, gold: np.ndarray,
             counts: Mapping[str, int], labels: Sequence[str],
             source_labels: Sequence[str], grid: Sequence[float] = T_GRID) -> float:
    """The ``T`` of ``grid`` whose mixture of out-of-fold ``adapted`` and ``source``
    marginals (labelled sentences x ``labels``) scores best against ``gold`` (label
    indices); the largest (nearest the source) of equal scores; the last of ``grid`` when
    there is no sentence."""
    if not len(gold):
        return float(grid[-1])
    best_t, best = float(grid[-1]), -1.0
    for t in sorted(grid, reverse=True):
        w = mix_weights(counts, labels, source_labels, t)
        p = mix_marginals(adapted, source, np.array([w[lab] for lab in labels]))
        score = objective(np.argmax(p, axis=1), gold, len(labels))
        if score > best + 1e-9:
            best_t, best = float(t), score
    return best_t


# ------------------------------------------------------------ on a CRF's dicts


def source_marginals(x: Sequence[Mapping[str, float]], labels: Sequence[str],
                     scale: float) -> np.ndarray:
    """The source's marginals of a paper's sentences (sentences x ``labels``), read back
    from the adapted CRF's ``src=L`` features (:mod:`~coresc.model.source`: the source's
    marginal of L times ``scale``, written for every label)."""
    keys = [f"src={lab}" for lab in labels]
    return np.array([[f.get(k, 0.0) / scale for k in keys] for f in x],
                    dtype=float).reshape(len(x), len(labels))


def mixed(marg: Sequence[Mapping[str, float]], x: Sequence[Mapping[str, float]],
          weights: Mapping[str, float], labels: Sequence[str],
          source_labels: Sequence[str], scale: float) -> list[dict[str, float]]:
    """A paper's adapted marginals (dicts) mixed with its source's, over ``labels``."""
    if not marg:
        return []
    a = np.array([[m.get(lab, 0.0) for lab in labels] for m in marg], dtype=float)
    src = source_marginals(x, source_labels, scale)
    s = np.zeros_like(a)
    for j, lab in enumerate(source_labels):
        if lab in labels:
            s[:, labels.index(lab)] = src[:, j]
    p = mix_marginals(a, s, np.array([weights.get(lab, 1.0) for lab in labels]))
    return [dict(zip(labels, row.tolist(), strict=True)) for row in p]


def fit_mix(oof: Sequence[Sequence[Mapping[str, float]] | None],
            X: Sequence[Sequence[Mapping[str, float]]], gold: Sequence[Sequence[str | None]],
            labels: Sequence[str], source_labels: Sequence[str],
            scale: float) -> tuple[dict[str, float], float]:
    """The weights ``w_l`` (and ``T``) for the reviewed papers: counts from ``gold`` (each
    sentence's primary label, None unlabelled), ``T`` chosen on the out-of-fold marginals
    ``oof`` (per paper, None where a paper has none) against the source's read from
    ``X``."""
    labels = list(labels)
    counts: dict[str, int] = {}
    rows_a, rows_s, y = [], [], []
    for m, x, g in zip(oof, X, gold, strict=True):
        for lab in g:
            if lab:
                counts[lab] = counts.get(lab, 0) + 1
        if m is None:
            continue
        keep = [j for j, lab in enumerate(g) if lab in labels]
        if not keep:
            continue
        p = mixed(m, x, {lab: 1.0 for lab in labels}, labels, source_labels, scale)
        s = mixed(m, x, {lab: 0.0 for lab in labels}, labels, source_labels, scale)
        rows_a += [[p[j][lab] for lab in labels] for j in keep]
        rows_s += [[s[j][lab] for lab in labels] for j in keep]
        y += [labels.index(g[j]) for j in keep]
    n = len(labels)
    t = choose_t(np.array(rows_a).reshape(-1, n), np.array(rows_s).reshape(-1, n),
                 np.array(y, dtype=int), counts, labels, source_labels)
    return mix_weights(counts, labels, source_labels, t), t
