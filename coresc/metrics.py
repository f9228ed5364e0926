"""Evaluation metrics: one implementation for ``evaluate``, ``agreement`` and experiments.

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
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

from .labels import rank_weights, sort_key

#: The five agreement measures, in the order reports show them.
MEASURES: tuple[str, ...] = ("weighted", "loose", "abo", "coresc1", "strict")

#: Stands for a missing prediction of a gold-labelled sentence in :func:`evaluate_papers`.
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
        or pred, in priority order. Labels outside ``labels`` still count for
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
    labels = list(labels) if labels is not None else sorted(present, key=sort_key)
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


def _weighted(a: list[Ranked], b: list[Ranked]) -> float:
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
    return _kappa(po, pe)


def _categorical(a: list[Hashable], b: list[Hashable],
                 agree: Callable[[Any, Any], bool]) -> float:
    """Kappa for any agreement predicate on per-sentence values.

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
    return _kappa(po, pe)


def _loose_agree(s: frozenset, t: frozenset) -> bool:
    return bool(s & t)


def _abo_agree(s: frozenset, t: frozenset) -> bool:
    # All but (at most) one label of the larger set is shared, and at least one is.
    return len(s & t) >= max(1, len(s) - 1, len(t) - 1)


def _eq(x: Hashable, y: Hashable) -> bool:
    return x == y


def _pairs(a: Sequence[Sequence[str]], b: Sequence[Sequence[str]]
           ) -> tuple[list[Ranked], list[Ranked]]:
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
    ra, rb = _pairs(a, b)
    if not ra:
        raise ValueError("no sentence is labelled on both sides")
    sa, sb = [frozenset(r) for r in ra], [frozenset(r) for r in rb]
    return {
        "weighted": _weighted(ra, rb),
        "loose": _categorical(sa, sb, _loose_agree),
        "abo": _categorical(sa, sb, _abo_agree),
        "coresc1": _categorical([r[0] for r in ra], [r[0] for r in rb], _eq),
        "strict": _categorical(ra, rb, _eq),
    }


def agreement(a: Mapping[str, Sequence[Sequence[str]]],
              b: Mapping[str, Sequence[Sequence[str]]]) -> dict[str, Any]:
    """The five measures micro (sentences pooled) and macro (per paper, then averaged).

    ``a`` and ``b`` map paper ids to the ranked label lists of that paper's sentences,
    aligned by position (see :mod:`coresc.agreement` to align real annotation sets).
    Papers present in only one mapping, and sentences unlabelled on either side, are
    left out; a paper with no sentence left is not averaged.

    Returns ``{"micro": {measure: kappa}, "macro": {measure: kappa}, "n_sentences",
    "n_papers"}``. Raises ValueError when no sentence is left to compare or a paper's
    two lists differ in length.
    """
    pooled_a: list[Ranked] = []
    pooled_b: list[Ranked] = []
    per_paper: list[dict[str, float]] = []
    for pid in a:
        if pid not in b:
            continue
        if len(a[pid]) != len(b[pid]):
            raise ValueError(f"paper {pid}: {len(a[pid])} sentences on one side, "
                             f"{len(b[pid])} on the other")
        ra, rb = _pairs(a[pid], b[pid])
        if not ra:
            continue
        pooled_a.extend(ra)
        pooled_b.extend(rb)
        per_paper.append(kappas(ra, rb))
    if not pooled_a:
        raise ValueError("no sentence is labelled on both sides of any common paper")
    return {
        "micro": kappas(pooled_a, pooled_b),
        "macro": {m: sum(k[m] for k in per_paper) / len(per_paper) for m in MEASURES},
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


# ---------------------------------------------------------------------------
# Papers and reports
# ---------------------------------------------------------------------------

def evaluate_papers(papers: Sequence[Any], seed: int | None = None,
                    groups: Sequence[str | None] | None = None) -> dict[str, Any]:
    """Score ``Sentence.pred`` against ``Sentence.gold`` on annotated papers.

    Sentences without gold labels are left out. A gold sentence without a prediction is
    scored as predicted :data:`NO_PREDICTION` (``"-"``), wrong on every measure, so
    nothing is dropped silently (the experiment runner does the same).

    Returns ``{"n_sentences", "n_papers", "primary": classification_scores(first gold,
    first pred), "agreement": agreement(gold lists, pred lists) by paper (keys micro,
    macro, n_sentences, n_papers), "secondary": secondary_scores(gold, pred)}``.
    ``seed`` given: 95% intervals by a bootstrap over papers (stratified by ``groups``,
    one corpus name per paper, default ``meta["corpus"]``, when there are several) beside
    the scores, see :func:`coresc.stats.attach_intervals`.
    """
    gold_by: dict[str, list[list[str]]] = {}
    pred_by: dict[str, list[list[str]]] = {}
    corpus: dict[str, str | None] = {}
    for i, paper in enumerate(papers):
        key = paper.id if paper.id not in gold_by else f"{paper.id}#{i}"
        corpus[key] = groups[i] if groups is not None else paper.meta.get("corpus")
        gold_by[key], pred_by[key] = [], []
        for s in paper.sentences():
            if not s.gold:
                continue
            gold_by[key].append(s.gold_codes)
            pred_by[key].append(s.pred_codes or [NO_PREDICTION])
    strata = None
    if seed is not None:
        from .stats import strata_of

        strata = strata_of(list(gold_by), corpus)
    return score_label_lists(gold_by, pred_by, seed=seed, strata=strata)


def score_label_lists(gold_by: Mapping[str, Sequence[Sequence[str]]],
                      pred_by: Mapping[str, Sequence[Sequence[str]]],
                      seed: int | None = None,
                      strata: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The scores of :func:`evaluate_papers` for aligned ranked label lists by paper.

    ``gold_by[paper][i]`` and ``pred_by[paper][i]`` are sentence ``i``'s gold and predicted
    labels; every gold list must be non-empty (callers leave unlabelled sentences out).
    ``seed`` given: intervals by a bootstrap over papers within ``strata`` (paper ->
    fold or corpus), :func:`coresc.stats.attach_intervals`.
    Raises ``ValueError`` when there is no sentence at all.
    """
    gold = [g for lists in gold_by.values() for g in lists]
    pred = [p for lists in pred_by.values() for p in lists]
    if not gold:
        raise ValueError("no sentence with gold labels to evaluate")
    result = {
        "n_sentences": len(gold),
        "n_papers": sum(1 for lists in gold_by.values() if lists),
        "primary": classification_scores([g[0] for g in gold], [p[0] for p in pred]),
        "agreement": agreement(gold_by, pred_by),
        "secondary": secondary_scores(gold, pred),
    }
    if seed is None:
        return result
    from .stats import attach_intervals  # numpy: only when intervals are asked for

    return attach_intervals(result, gold_by, pred_by, strata, seed=seed)


def _num(x: float | None, digits: int = 3) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def _ci(pair: Sequence[float] | None) -> str:
    return f"[{pair[0]:.3f}, {pair[1]:.3f}]" if pair else ""


def interval_line(result: Mapping[str, Any]) -> str:
    """How the intervals were made, or why there are none (empty: none asked for)."""
    about = result.get("interval")
    if not about:
        return ""
    if "reason" in about:
        return f"no intervals: {about['reason']}\n"
    strata = f", within {about['strata']} folds or corpora" if about["strata"] > 1 else ""
    return (f"[low, high]: {100 * about['level']:.0f}% intervals, {about['method']} "
            f"({about['n_papers']} papers, {about['n_sentences']} sentences{strata}; "
            f"{about['n_resamples']} resamples, seed {about['seed']})\n")


def format_report(result: Mapping[str, Any]) -> str:
    """A fixed-width plain-text report of :func:`evaluate_papers`'s result."""
    prim = result["primary"]
    lines = [
        f"sentences {result['n_sentences']}   papers {result['n_papers']}",
        "",
        f"accuracy  {_num(prim['accuracy'])} {_ci(prim.get('accuracy_ci'))}   "
        f"macro F1  {_num(prim['macro_f1'])} {_ci(prim.get('macro_f1_ci'))}   "
        f"micro F1  {_num(prim['micro_f1'])}",
        "",
        f"{'label':<8}{'precision':>10}{'recall':>10}{'f1':>10}{'support':>10}",
    ]
    for lab, s in prim["per_label"].items():
        lines.append(f"{lab:<8}{_num(s['precision']):>10}{_num(s['recall']):>10}"
                     f"{_num(s['f1']):>10}{s['support']:>10}  {_ci(s.get('f1_ci'))}".rstrip())
    agr = result["agreement"]
    lines += ["", f"{'kappa':<8}" + "".join(f"{m:>10}" for m in MEASURES)]
    for avg in ("micro", "macro"):
        lines.append(f"{avg:<8}" + "".join(f"{_num(agr[avg][m]):>10}" for m in MEASURES))
        if f"{avg}_ci" in agr:
            cis = agr[f"{avg}_ci"]
            lines.append(f"{'  95% CI':<8}" + "".join(  # low/high; NaN: no paper had one
                f"{f'{cis[m][0]:.2f}/{cis[m][1]:.2f}':>10}" if cis[m][0] == cis[m][0]
                else f"{'-':>10}" for m in MEASURES))
    sec = result["secondary"]
    lines += [
        "",
        "secondary labels",
        f"  gold second label in predicted top 2 / top 3  {_num(sec['top2_recall'])} / "
        f"{_num(sec['top3_recall'])}  (of {sec['n_gold_second']})",
        f"  emitted 2nd/3rd labels that are gold          {_num(sec['emitted_precision'])}"
        f"  (of {sec['n_emitted']})",
        f"  sentences given more than one label           "
        f"{_num(100 * sec['emitted_rate'], 1)}%",
    ]
    return "\n".join(lines) + "\n" + interval_line(result)
