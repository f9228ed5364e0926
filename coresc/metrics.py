"""Evaluation measures: one implementation for ``evaluate``, ``agreement`` and experiments.

Two families live here:

* single-label classification scores on the primary label
  (:func:`classification_scores`: accuracy, per-label precision / recall / F1, macro
  and micro F1, confusion matrix);
* the five multi-label agreement measures of the Multi-CoreSC CRA corpus paper
  (section 3.2), each a Cohen-style kappa ``(Po - Pe) / (1 - Pe)`` between two
  annotations of the same sentences (:func:`kappas`, :func:`agreement`), and the
  secondary-label scores (:func:`secondary_scores`).

A sentence's annotation is a ranked list of label codes, primary first, 1 to 3 entries
(``["Res", "Obj"]``). Exact definitions of Po and Pe for every measure are in
:func:`kappas` and in ``docs/agreement.md``.

The measures are leaves: they import nothing of coresc but the label set. Scoring
annotated papers, with intervals, is :mod:`coresc.evaluation`; :mod:`coresc.stats`
reuses :func:`ranked_pairs`, :func:`loose_agree` and :func:`abo_agree`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

from .labels import rank_weights, sort_key

#: The five agreement measures, in the order reports show them.
MEASURES: tuple[str, ...] = ("weighted", "loose", "abo", "coresc1", "strict")

#: Stands for a missing prediction of a gold-labelled sentence: wrong for accuracy, a
#: false negative of the gold label, but no class (no F1, not in macro-F1).
NO_PREDICTION = "-"

# Pe within this distance of 1 counts as degenerate (float sums of weights).
_EPS = 1e-12

Ranked = tuple[str, ...]


# ---------------------------------------------------------------------------
# Classification scores (primary label)
# ---------------------------------------------------------------------------

def _prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def classification_scores(gold: Sequence[str], pred: Sequence[str],
                          labels: Sequence[str] | None = None) -> dict[str, Any]:
    """Single-label scores of ``pred`` against ``gold`` (one label per sentence).

    Parameters
    ----------
    gold, pred : sequences of label codes, same length ``n`` (> 0).
    labels : the labels to report, in this order; default: every label seen in gold
        or pred, in priority order, but :data:`NO_PREDICTION` (a sentence without a
        prediction is wrong, and no class). Labels outside ``labels`` still count for
        ``accuracy`` but are left out of the per-label scores, F1 and confusion matrix
        (as scikit-learn does).

    Returns
    -------
    dict with ``n``, ``accuracy``; ``per_label``: ``{label: {precision, recall, f1,
    support}}`` (support = gold count); ``macro_f1``: mean F1 over the labels of
    ``labels`` that occur in gold or pred; ``micro_f1``: F1 of the pooled true / false
    positives over ``labels`` (equals accuracy when ``labels`` covers everything);
    ``confusion``: ``{labels: [...], matrix: [[int]]}``, rows gold, columns predicted.
    Precision, recall or F1 with a zero denominator is 0.0.
    """
    gold, pred = list(gold), list(pred)
    if len(gold) != len(pred):
        raise ValueError(f"gold has {len(gold)} labels but pred has {len(pred)}")
    if not gold:
        raise ValueError("no sentences to score")
    present = set(gold) | set(pred)
    labels = (list(labels) if labels is not None
              else sorted(present - {NO_PREDICTION}, key=sort_key))
    index = {lab: i for i, lab in enumerate(labels)}
    matrix = [[0] * len(labels) for _ in labels]
    for g, p in zip(gold, pred, strict=True):
        if g in index and p in index:
            matrix[index[g]][index[p]] += 1
    gold_count, pred_count = Counter(gold), Counter(pred)
    per_label: dict[str, dict[str, float]] = {}
    tp_sum = fp_sum = fn_sum = 0
    for lab in labels:
        tp = sum(1 for g, p in zip(gold, pred, strict=True) if g == p == lab)
        fp, fn = pred_count[lab] - tp, gold_count[lab] - tp
        precision, recall, f1 = _prf(tp, fp, fn)
        per_label[lab] = {"precision": precision, "recall": recall, "f1": f1,
                          "support": gold_count[lab]}
        tp_sum, fp_sum, fn_sum = tp_sum + tp, fp_sum + fp, fn_sum + fn
    scored = [lab for lab in labels if lab in present]
    macro = sum(per_label[lab]["f1"] for lab in scored) / len(scored) if scored else 0.0
    return {
        "n": len(gold),
        "accuracy": sum(g == p for g, p in zip(gold, pred, strict=True)) / len(gold),
        "macro_f1": macro,
        "micro_f1": _prf(tp_sum, fp_sum, fn_sum)[2],
        "per_label": per_label,
        "confusion": {"labels": labels, "matrix": matrix},
    }


# ---------------------------------------------------------------------------
# Agreement measures
# ---------------------------------------------------------------------------

def _ranked(labels: Sequence[str]) -> Ranked:
    """Drop repeated codes (first occurrence wins) and check there are 0 to 3."""
    seen: list[str] = []
    for lab in labels:
        if lab not in seen:
            seen.append(lab)
    rank_weights(len(seen))  # raises ValueError beyond three labels
    return tuple(seen)


def _kappa(po: float, pe: float) -> float:
    """``(Po - Pe) / (1 - Pe)``; when Pe = 1 (both sides constant): 1.0 if Po = 1 else 0.0."""
    if pe >= 1.0 - _EPS:
        return 1.0 if po >= 1.0 - _EPS else 0.0
    return (po - pe) / (1.0 - pe)


def _weights(r: Ranked) -> dict[str, float]:
    return dict(zip(r, rank_weights(len(r)), strict=True))


def _weighted(a: list[Ranked], b: list[Ranked]) -> tuple[float, float]:
    """(kappa, Po) of the weighted measure."""
    n = len(a)
    wa, wb = [_weights(r) for r in a], [_weights(r) for r in b]
    po = sum(sum(min(x[lab], y[lab]) for lab in x.keys() & y.keys())
             for x, y in zip(wa, wb, strict=True)) / n
    freq_a: Counter[str] = Counter()
    freq_b: Counter[str] = Counter()
    for x, y in zip(wa, wb, strict=True):
        freq_a.update(x)
        freq_b.update(y)
    pe = sum((freq_a[lab] / n) * (freq_b[lab] / n) for lab in freq_a.keys() & freq_b.keys())
    return _kappa(po, pe), po


def _categorical(a: list[Hashable], b: list[Hashable],
                 agree: Callable[[Any, Any], bool]) -> tuple[float, float]:
    """(kappa, Po) for any agreement predicate on per-sentence values.

    Po = share of sentences where ``agree(a_i, b_i)``; Pe = probability that a value
    drawn from side A's empirical distribution and an independent one drawn from side
    B's agree: ``sum_{u, v} p_A(u) p_B(v) [agree(u, v)]``. With equality as the
    predicate this is Cohen's kappa.
    """
    n = len(a)
    po = sum(agree(x, y) for x, y in zip(a, b, strict=True)) / n
    dist_a, dist_b = Counter(a), Counter(b)
    pe = sum(ca * cb for u, ca in dist_a.items() for v, cb in dist_b.items()
             if agree(u, v)) / (n * n)
    return _kappa(po, pe), po


def loose_agree(s: frozenset, t: frozenset) -> bool:
    """Loose agreement of two label sets: they share a label."""
    return bool(s & t)


def abo_agree(s: frozenset, t: frozenset) -> bool:
    """All-but-one agreement of two label sets (see :func:`kappas`)."""
    # All but (at most) one label of the larger set is shared, and at least one is.
    return len(s & t) >= max(1, len(s) - 1, len(t) - 1)


def _eq(x: Hashable, y: Hashable) -> bool:
    return x == y


def ranked_pairs(a: Sequence[Sequence[str]], b: Sequence[Sequence[str]]
                 ) -> tuple[list[Ranked], list[Ranked]]:
    """The two sides' ranked lists, sentences unlabelled on either side left out;
    ValueError when the sides differ in length."""
    if len(a) != len(b):
        raise ValueError(f"the two sides have {len(a)} and {len(b)} sentences")
    ra, rb = [], []
    for x, y in zip(a, b, strict=True):
        x, y = _ranked(x), _ranked(y)
        if x and y:  # unlabelled on either side: left out
            ra.append(x)
            rb.append(y)
    return ra, rb


def kappas(a: Sequence[Sequence[str]], b: Sequence[Sequence[str]]) -> dict[str, float]:
    """The five agreement measures between two annotations of the same sentences.

    ``a[i]`` and ``b[i]`` are the ranked label lists (1-3 codes, primary first) the two
    sides gave sentence ``i``. A sentence with an empty list on either side is left out
    (unlabelled); repeated codes in one list count once. Every measure is
    ``kappa = (Po - Pe) / (1 - Pe)`` over the ``n`` sentences kept; when ``Pe = 1``
    (both sides constant and equal) kappa is 1.0 if ``Po = 1`` else 0.0.

    ``weighted`` (Rosenberg and Binkowski 2004): sentence labels carry rank weights
    ``w`` (1.0; 0.6, 0.4; 0.6, 0.3, 0.1), absent labels weigh 0.
    ``Po = (1/n) sum_i sum_y min(w_Ai(y), w_Bi(y))`` (overlap of the weight vectors);
    ``Pe = sum_y F_A(y) F_B(y)`` with ``F_A(y) = (1/n) sum_i w_Ai(y)``, the mean weight
    of label ``y`` on side A (likewise B).

    The other four compare a per-sentence value ``v`` with a predicate ``agree``:
    ``Po = (1/n) sum_i agree(v_Ai, v_Bi)``; ``Pe = sum_{u, v} p_A(u) p_B(v)
    agree(u, v)``, where ``p_A`` is side A's empirical distribution of values, i.e. the
    chance that two independent draws, one from each side's distribution, agree.

    * ``loose``: ``v`` = label set, agree when the sets share a label;
    * ``abo`` (all but one): ``v`` = label set, agree when they share every label of the
      larger set but at most one, and at least one label:
      ``|S & T| >= max(1, |S| - 1, |T| - 1)`` (differs from loose only when a side has
      three labels);
    * ``coresc1``: ``v`` = first label, agree when equal (Cohen's kappa);
    * ``strict``: ``v`` = ranked tuple, agree when identical (same labels, same order).

    With one label per sentence on both sides all five equal Cohen's kappa.
    Raises ValueError when the lengths differ or no sentence is labelled on both sides.
    """
    return _both(*_labelled(a, b))[0]


def _labelled(a: Sequence[Sequence[str]], b: Sequence[Sequence[str]]
              ) -> tuple[list[Ranked], list[Ranked]]:
    ra, rb = ranked_pairs(a, b)
    if not ra:
        raise ValueError("no sentence is labelled on both sides")
    return ra, rb


def _both(ra: list[Ranked], rb: list[Ranked]) -> tuple[dict[str, float], dict[str, float]]:
    """The five measures' kappas and observed agreements over ranked lists."""
    sa, sb = [frozenset(r) for r in ra], [frozenset(r) for r in rb]
    parts = {
        "weighted": _weighted(ra, rb),
        "loose": _categorical(sa, sb, loose_agree),
        "abo": _categorical(sa, sb, abo_agree),
        "coresc1": _categorical([r[0] for r in ra], [r[0] for r in rb], _eq),
        "strict": _categorical(ra, rb, _eq),
    }
    return {m: k for m, (k, _) in parts.items()}, {m: po for m, (_, po) in parts.items()}


def observed(a: Sequence[Sequence[str]], b: Sequence[Sequence[str]]) -> dict[str, float]:
    """The observed agreement ``Po`` of each of the five measures (see :func:`kappas`):
    the share of sentences on which the two sides agree (``weighted``: the mean overlap
    of the rank weights), before chance is taken out. Same arguments and errors."""
    return _both(*_labelled(a, b))[1]


def agreement(a: Mapping[str, Sequence[Sequence[str]]],
              b: Mapping[str, Sequence[Sequence[str]]]) -> dict[str, Any]:
    """The five measures micro (sentences pooled) and macro (per paper, then averaged).

    ``a`` and ``b`` map paper ids to the ranked label lists of that paper's sentences,
    aligned by position (see :mod:`coresc.agreement` to align real annotation sets).
    Papers present in only one mapping, and sentences unlabelled on either side, are
    left out; a paper with no sentence left is not averaged.

    Returns ``{"micro": {measure: kappa}, "macro": {measure: kappa}, "observed":
    {"micro": {measure: Po}, "macro": {measure: Po}}, "n_sentences", "n_papers"}``
    (``Po``: :func:`observed`). Raises ValueError when no sentence is left to compare or a paper's
    two lists differ in length.
    """
    pooled_a: list[Ranked] = []
    pooled_b: list[Ranked] = []
    per_paper: list[dict[str, float]] = []
    po_paper: list[dict[str, float]] = []
    for pid in a:
        if pid not in b:
            continue
        if len(a[pid]) != len(b[pid]):
            raise ValueError(f"paper {pid}: {len(a[pid])} sentences on one side, "
                             f"{len(b[pid])} on the other")
        ra, rb = ranked_pairs(a[pid], b[pid])
        if not ra:
            continue
        pooled_a.extend(ra)
        pooled_b.extend(rb)
        kappa, po = _both(ra, rb)
        per_paper.append(kappa)
        po_paper.append(po)
    if not pooled_a:
        raise ValueError("no sentence is labelled on both sides of any common paper")
    micro, po_micro = _both(pooled_a, pooled_b)
    return {
        "micro": micro,
        "macro": {m: sum(k[m] for k in per_paper) / len(per_paper) for m in MEASURES},
        "observed": {"micro": po_micro,
                     "macro": {m: sum(k[m] for k in po_paper) / len(po_paper)
                               for m in MEASURES}},
        "n_sentences": len(pooled_a),
        "n_papers": len(per_paper),
    }


# ---------------------------------------------------------------------------
# Secondary labels
# ---------------------------------------------------------------------------

def secondary_scores(gold: Sequence[Sequence[str]],
                     pred: Sequence[Sequence[str]]) -> dict[str, Any]:
    """How well ranked predictions cover the gold second labels.

    ``gold[i]``, ``pred[i]``: ranked label lists of sentence ``i`` (sentences with no
    gold label are left out). Returns:

    * ``top2_recall`` / ``top3_recall``: over the sentences whose gold has a second
      label (``n_gold_second`` of them), the share whose gold second label is among the
      first 2 / 3 predicted labels; ``None`` when no sentence has a gold second label;
    * ``emitted_precision``: of all emitted secondary labels (predicted ranks 2 and 3,
      ``n_emitted`` of them), the share that is one of the sentence's gold labels;
      ``None`` when none was emitted;
    * ``emitted_rate``: share of sentences given more than one predicted label;
    * ``n``: sentences scored.

    The measures take ``pred`` as given: pass the emitted labels to score what a user
    sees, or a longer ranking to score the ranking alone.
    """
    if len(gold) != len(pred):
        raise ValueError(f"gold has {len(gold)} sentences but pred has {len(pred)}")
    pairs = [(_ranked(g), _ranked(p)) for g, p in zip(gold, pred, strict=True)]
    pairs = [(g, p) for g, p in pairs if g]
    if not pairs:
        raise ValueError("no sentence with a gold label")
    second = [(g[1], p) for g, p in pairs if len(g) > 1]
    emitted = [(lab, g) for g, p in pairs for lab in p[1:]]
    return {
        "top2_recall": sum(s in p[:2] for s, p in second) / len(second) if second else None,
        "top3_recall": sum(s in p[:3] for s, p in second) / len(second) if second else None,
        "emitted_precision": (sum(lab in g for lab, g in emitted) / len(emitted)
                              if emitted else None),
        "emitted_rate": sum(len(p) > 1 for _, p in pairs) / len(pairs),
        "n": len(pairs),
        "n_gold_second": len(second),
        "n_emitted": len(emitted),
    }
