"""Paired differences between experiment runs that predicted the same test papers.

``coresc report`` puts runs tested on the same corpus side by side (e.g. ``art-to-cra``
against ``cra-3fold``, the CRA paper's Table 8). Side by side is not enough to say
which is better: this module reads each run's held-out predictions (its
``predictions.jsonl`` artefact), pairs them sentence by sentence (paper id and sid) and
gives B - A with a paired interval over papers and its p-value (:func:`coresc.stats.paired`),
stratified by fold as each run's own intervals are, overall and per label. Runs whose
predictions do not cover the same sentences are said to be unpaired, never compared.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import stats

PREDICTIONS = "predictions.jsonl"
Labelled = dict[str, dict[str, tuple[list[str], list[str]]]]  # paper -> sid -> (gold, pred)


def read_run(path: str | Path) -> tuple[Labelled, dict[str, str]]:
    """A run's ``predictions.jsonl``, read once: :func:`read_predictions` and
    :func:`read_folds`."""
    out: Labelled = {}
    folds: dict[str, str] = {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            folds[str(rec["paper"])] = str(rec.get("fold"))
            if rec.get("gold"):
                pred = [p["label"] for p in rec.get("pred", [])] or ["-"]
                out.setdefault(str(rec["paper"]), {})[str(rec["sid"])] = (rec["gold"], pred)
    return out, folds


def read_predictions(path: str | Path) -> Labelled:
    """A run's ``predictions.jsonl`` as paper -> sid -> (gold codes, predicted codes);
    sentences without gold are left out, as the run's scores leave them out."""
    return read_run(path)[0]


def read_folds(path: str | Path) -> dict[str, str]:
    """Paper -> the fold it was tested in, from a run's ``predictions.jsonl``."""
    return read_run(path)[1]


def run_intervals(predictions: Labelled, folds: dict[str, str]) -> dict[str, Any]:
    """Scores and 95% intervals of one run's held-out predictions over papers, stratified
    by fold: ``{"point": {score: value}, "ci": {score: [low, high]}, ...about}``."""
    papers = sorted(predictions)
    table = stats.paper_table(_lists(predictions, 0), _lists(predictions, 1),
                              stats.strata_of(papers, folds))
    return stats.intervals(table)


def _lists(by: Labelled, which: int) -> dict[str, list[list[str]]]:
    """Paper -> the gold (``which`` 0) or predicted (1) labels of its sentences, papers and
    sentences in sorted order (as :mod:`coresc.stats` takes them)."""
    return {p: [by[p][s][which] for s in sorted(by[p])] for p in sorted(by)}


def first_mismatch(a: Labelled, b: Labelled) -> str | None:
    """Where two runs' predictions stop covering the same gold sentences (None: never)."""
    for paper in sorted(set(a) | set(b)):
        if paper not in a or paper not in b:
            return f"paper {paper} is only in {'A' if paper in a else 'B'}"
        if set(a[paper]) != set(b[paper]):
            sid = sorted(set(a[paper]) ^ set(b[paper]))[0]
            return f"paper {paper}, sentence {sid} is only in one of them"
        for sid, (gold, _) in a[paper].items():
            if b[paper][sid][0] != gold:
                return f"paper {paper}, sentence {sid} has other gold labels"
    return None


def paired_runs(a: Labelled, b: Labelled, folds_a: dict[str, str] | None = None,
                folds_b: dict[str, str] | None = None) -> dict[str, Any]:
    """:func:`coresc.stats.paired` of two runs' predictions (B - A), stratified by the
    runs' folds (each paper's pair of folds, A's and B's); ValueError naming the first
    mismatch when they do not cover the same gold sentences."""
    where = first_mismatch(a, b)
    if where:
        raise ValueError(where)
    papers = sorted(a)
    both = {k: f"{(folds_a or {}).get(k)}|{(folds_b or {}).get(k)}" for k in papers}
    table_a, table_b = stats.paper_tables(_lists(a, 0), [_lists(a, 1), _lists(b, 1)],
                                          stats.strata_of(papers, both))
    return stats.paired(table_a, table_b)


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def _diff(result: dict[str, Any], key: str) -> str:
    lo, hi = result["difference_ci"][key]
    p = result["p_holm"].get(key, result["p"][key])  # per label: Holm-adjusted
    return (f"{stats.signed(result['difference'][key])} [{stats.signed(lo)}, "
            f"{stats.signed(hi)}] | {stats.format_p(p)}")


def paired_table(name_a: str, name_b: str, result: dict[str, Any]) -> list[str]:
    """Markdown rows: accuracy, macro-F1 and per-label F1 of A and B, B - A [95% CI], p."""
    lines = [f"| score | {name_a} | {name_b} | B - A, points [95% CI] | p |",
             "| --- | --- | --- | --- | --- |"]
    keys = ["accuracy", "macro_f1", *(k for k in result["difference"] if k.startswith("f1/"))]
    for key in keys:
        title = {"accuracy": "accuracy", "macro_f1": "macro-F1"}.get(key, f"F1 {key[3:]}")
        lines.append(f"| {title} | {_pct(result['a'][key])} | {_pct(result['b'][key])} | "
                     f"{_diff(result, key)} |")
    return lines


def paired_section(runs: Sequence[Any], predictions: dict[str, Labelled | None],
                   folds: dict[str, dict[str, str]] | None = None) -> list[str]:
    """Markdown: for each test corpus with two or more runs, each later run against the
    first (``predictions``: run id -> its predictions, None when it has none; ``folds``:
    run id -> paper -> fold, to stratify as the runs' intervals are)."""
    by_test: dict[str, list[Any]] = {}
    for r in runs:
        by_test.setdefault(r.test, []).append(r)
    md: list[str] = []
    for test, group in by_test.items():
        if len(group) < 2:
            continue
        base = group[0]
        md += ["", f"## Paired differences on {test}: against {base.label}", "",
               f"B - A with A = {base.label}, on the sentences both predicted (held out in "
               f"both runs): 95% interval by a {stats.METHOD} (paired, stratified by the "
               f"runs' folds), p by {stats.TEST_METHOD}; per-label p Holm-adjusted over "
               "the labels. Percent."]
        for other in group[1:]:
            md += ["", f"### {other.label} (B) against {base.label} (A)", ""]
            md += _pair(base, other, predictions, folds or {})
    return md


def _pair(base, other, predictions, folds) -> list[str]:
    pa, pb = predictions.get(base.run_id), predictions.get(other.run_id)
    if pa is None or pb is None:
        return ["Not paired: a run has no `predictions.jsonl` artefact."]
    try:
        result = paired_runs(pa, pb, folds.get(base.run_id), folds.get(other.run_id))
    except (ValueError, stats.TooFewPapers) as exc:
        return [f"Not paired: {exc}."]
    how = (f", stratified by {result['strata']} folds" if result["strata"] > 1
           else f" ({result['not_stratified']})" if "not_stratified" in result else "")
    caution = f" {result['caution'].capitalize()}." if result["caution"] else ""
    return [f"{result['n_papers']} papers, {result['n_sentences']} sentences{how}. "
            + stats.verdict(result) + "." + caution, "",
            *paired_table(base.label, other.label, result)]
