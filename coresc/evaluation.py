"""Score annotated papers: the measures of :mod:`coresc.metrics`, with intervals.

"Score these papers" is one step above the measures: it gathers each paper's gold and
predicted label lists, calls the measures, and, given a seed, puts 95% intervals by a
bootstrap over papers beside the scores (:func:`coresc.stats.attach_intervals`). It
imports :mod:`coresc.metrics` and :mod:`coresc.stats`; neither imports it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .metrics import MEASURES, agreement, classification_scores, secondary_scores

#: Stands for a missing prediction of a gold-labelled sentence in :func:`evaluate_papers`.
NO_PREDICTION = "-"


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
        from .stats import strata_of  # numpy: only when intervals are asked for

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
