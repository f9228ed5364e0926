"""An adapted model's marginals mixed with its source's, per label (issue 38).

A CRF adapted to a few reviewed papers (:mod:`~coresc.model.adapt`) learns the labels
those papers use often and forgets the ones they barely show: a label absent from them
cannot be predicted at all, and one seen a dozen times is rarely chosen, although the
source, trained on many papers, knows it. Each label ``l`` is therefore scored

    p(l) = w_l * adapted(l) + (1 - w_l) * source(l),   w_l = n_l / (n_l + T)

where ``n_l`` is the number of reviewed sentences labelled ``l`` and ``source(l)`` is
the distribution the source decodes from: its marginals times ``exp(bias_l)`` of its own
label biases (``decode="balanced"``), renormalised. A label the reviewed papers show
often is the adapted model's; one they barely show stays the source's, as the source
would label it (a count-based shrinkage, as MAP adaptation moves an estimate little
from its prior on little data). A label the source does not know is the adapted
model's alone (w = 1). ``T`` is :data:`MIX_T`; docs/benchmarks.md ("Rare labels under
adaptation") measures the choice against the adapted model alone.

A label the reviewed papers never show gets ``w = 0``: the source's alone, at the
source's own rate, although the reviews are evidence that the field rarely uses it (the
ART-trained source expects about 37 ``Mod`` sentences in five CRA papers that hold
none). So the source's probability of such a label is scaled by ``c / (e + c)``, ``e``
the sentences of it the source expected among the reviewed ones (the sum of its
decoding view over them), ``c`` :data:`ABSENT_C`, a pseudo-count: the ratio of seen to
expected, shrunk toward 1 when the source expected few (:func:`absent_scale`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

#: Reviewed sentences of a label at which the adapted model and the source weigh the
#: same. 30 was the best of 10, 20, 30, 50 on macro-F1 at k = 5 with accuracy level
#: (two splits of CRA, ART source, ``experiments/adapt_rare.py``); choosing T on the
#: reviewed papers' own inner folds picked values from 0 to 1000 and lost accuracy.
MIX_T = 30.0

#: Pseudo-count of :func:`absent_scale`: 10 was the best of 3, 10, 30 on macro-F1 at
#: k = 5 and 15 (three splits of CRA, ART source, papers by ``select`` and at random,
#: ``experiments/adapt_rare.py``) that never took a label the source got above 5 F1 to 0.
ABSENT_C = 10.0


def label_counts(gold: Iterable[Sequence[str | None]]) -> dict[str, int]:
    """Sentences per primary label over papers (``None``: unlabelled, not counted)."""
    out: dict[str, int] = {}
    for seq in gold:
        for lab in seq:
            if lab:
                out[lab] = out.get(lab, 0) + 1
    return out


def mix_weights(counts: Mapping[str, int], labels: Sequence[str],
                source_labels: Sequence[str], t: float = MIX_T) -> dict[str, float]:
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


def absent_scale(counts: Mapping[str, int], expected: Mapping[str, float],
                 c: float = ABSENT_C) -> dict[str, float]:
    """Per source label the reviewed papers never show, the factor ``c / (e + c)`` for
    the source's probability of it (``e``: ``expected[label]``); labels they show, or the
    source did not expect, are left out (a factor of 1)."""
    return {lab: c / (e + c) for lab, e in expected.items()
            if not counts.get(lab) and e > 0}


def expected_counts(marginals: Sequence[np.ndarray], gold: Sequence[Sequence[str | None]],
                    source_labels: Sequence[str],
                    source_bias: Mapping[str, float]) -> dict[str, float]:
    """Sentences of each source label the source expects among the labelled sentences
    of some papers: the sum of its decoding view over them. ``marginals``: per paper, the
    source's marginals (sentences x ``source_labels``); ``gold``: their labels, None
    where unlabelled."""
    total = np.zeros(len(source_labels))
    for marg, labs in zip(marginals, gold, strict=True):
        rows = [j for j, lab in enumerate(labs) if lab]
        if rows:
            total += decoding_view(np.asarray(marg)[rows], source_labels,
                                   source_bias).sum(axis=0)
    return dict(zip(source_labels, total.tolist(), strict=True))


def decoding_view(marg: np.ndarray, labels: Sequence[str], bias: Mapping[str, float],
                  absent: Mapping[str, float] | None = None) -> np.ndarray:
    """A model's marginals (sentences x ``labels``) times ``exp(bias)``, rows summing to
    1: the distribution its biased decoding takes the largest of; ``absent``:
    :func:`absent_scale`'s factors, applied before the rows are summed to 1."""
    factor = np.exp([bias.get(lab, 0.0) for lab in labels]) if bias else 1.0
    if absent:
        factor = factor * np.array([absent.get(lab, 1.0) for lab in labels])
    return _normalised(marg * factor)


def mix_marginals(adapted: np.ndarray, source: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Per label, ``w * adapted + (1 - w) * source`` (sentences x labels), rows summing to
    1 (the same label columns in both; a label a model lacks has 0 there)."""
    return _normalised(adapted * weights + source * (1.0 - weights))


def _normalised(p: np.ndarray) -> np.ndarray:
    total = p.sum(axis=1, keepdims=True)
    return np.divide(p, total, out=np.zeros_like(p, dtype=float), where=total > 0)


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
          source_labels: Sequence[str], source_bias: Mapping[str, float],
          scale: float, absent: Mapping[str, float] | None = None) -> list[dict[str, float]]:
    """A paper's adapted marginals (dicts from the CRF) mixed with its source's decoding
    view (read from the features ``x``), over ``labels`` (every label of both models);
    ``absent``: :func:`absent_scale`'s factors for the source's view."""
    if not marg:
        return []
    a = np.array([[m.get(lab, 0.0) for lab in labels] for m in marg], dtype=float)
    view = decoding_view(source_marginals(x, source_labels, scale), source_labels,
                         source_bias, absent)
    s = np.zeros_like(a)
    for j, lab in enumerate(source_labels):
        if lab in labels:
            s[:, labels.index(lab)] = view[:, j]
    p = mix_marginals(a, s, np.array([weights.get(lab, 1.0) for lab in labels]))
    return [dict(zip(labels, row.tolist(), strict=True)) for row in p]
