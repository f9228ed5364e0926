"""Score annotated papers: the measures of :mod:`coresc.metrics`, with intervals.

"Score these papers" is one step above the measures: it gathers each paper's gold and
predicted label lists, calls the measures, and, asked to, puts 95% intervals over
papers beside the scores (:func:`coresc.stats.attach_intervals`). It
imports :mod:`coresc.metrics` and :mod:`coresc.stats`; neither imports it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .metrics import (
    MEASURES,
    NO_PREDICTION,
    agreement,
    classification_scores,
    secondary_scores,
)


def check_label_sets(gold: Iterable[str], predicted: Iterable[str], where: str,
                     what: str) -> None:
    """Raise :class:`ValueError` when the gold labels of ``where`` (a corpus) and the
    labels ``what`` (a model, an annotated output) gives share none: two label schemes
    (a CoreSC model on CSAbstruct gold), where every score would be a silent 0, not a
    finding. The message names both label sets."""
    from .labels import sort_key

    gold_set, pred_set = set(gold), set(predicted)
    if gold_set and pred_set and not gold_set & pred_set:
        def shown(codes: set[str]) -> str:
            return ", ".join(sorted(codes, key=sort_key))

        raise ValueError(f"{where}: its gold labels ({shown(gold_set)}) and {what}'s "
                         f"({shown(pred_set)}) share none, so every score would be 0: "
                         "score a model of the gold's label scheme")


def evaluate_papers(papers: Sequence[Any], intervals: bool = False,
                    groups: Sequence[str | None] | None = None) -> dict[str, Any]:
    """Score ``Sentence.pred`` against ``Sentence.gold`` on annotated papers.

    Sentences without gold labels are left out. A gold sentence without a prediction is
    scored as predicted :data:`~coresc.metrics.NO_PREDICTION` (``"-"``): wrong on every
    measure but no class of its own, so nothing is dropped silently (the experiment
    runner does the same).

    Returns ``{"n_sentences", "n_papers", "primary": classification_scores(first gold,
    first pred), "agreement": agreement(gold lists, pred lists) by paper (keys micro,
    macro, n_sentences, n_papers), "secondary": secondary_scores(gold, pred)}``.
    ``intervals``: 95% intervals over papers (stratified by ``groups``, one corpus name
    per paper, default ``meta["corpus"]``, when there are several) beside the scores,
    see :func:`coresc.stats.attach_intervals`.
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
    if intervals:
        from .stats import strata_of  # numpy: only when intervals are asked for

        strata = strata_of(list(gold_by), corpus)
    return score_label_lists(gold_by, pred_by, intervals=intervals, strata=strata)


def score_label_lists(gold_by: Mapping[str, Sequence[Sequence[str]]],
                      pred_by: Mapping[str, Sequence[Sequence[str]]],
                      intervals: bool = False,
                      strata: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The scores of :func:`evaluate_papers` for aligned ranked label lists by paper.

    ``gold_by[paper][i]`` and ``pred_by[paper][i]`` are sentence ``i``'s gold and predicted
    labels; every gold list must be non-empty (callers leave unlabelled sentences out).
    ``intervals``: intervals over papers within ``strata`` (paper -> fold or corpus),
    :func:`coresc.stats.attach_intervals`. A prediction :data:`NO_PREDICTION` is wrong
    and no class (:func:`coresc.metrics.classification_scores`).
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
    if not intervals:
        return result
    from .stats import attach_intervals  # numpy: only when intervals are asked for

    return attach_intervals(result, gold_by, pred_by, strata)


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
    strata = (f", stratified by {about['strata']} folds or corpora" if about["strata"] > 1
              else f"; {about['not_stratified']}" if "not_stratified" in about else "")
    caution = f"{about['caution']}\n" if about.get("caution") else ""
    return (f"[low, high]: {100 * about['level']:.0f}% intervals, {about['method']} "
            f"({about['n_papers']} papers, {about['n_sentences']} sentences{strata})\n"
            + caution)


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
    ]
    # another scheme's labels (CSAbstruct's "background") are longer than CoreSC's codes
    w = max([8, *(len(lab) + 1 for lab in prim["per_label"])])
    lines.append(f"{'label':<{w}}{'precision':>10}{'recall':>10}{'f1':>10}{'support':>10}")
    for lab, s in prim["per_label"].items():
        lines.append(f"{lab:<{w}}{_num(s['precision']):>10}{_num(s['recall']):>10}"
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
