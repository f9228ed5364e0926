"""Confidence intervals and paired tests over papers: one implementation for
``evaluate``, ``compare``, the experiment runs and ``coresc report``.

Sentences of one paper are not independent (one author, one topic, one annotator's
habits), so the unit that was sampled, and the unit left out here, is the
**paper**; a run with several folds or test corpora is stratified by them.

* Intervals: a **t interval over papers**: the estimate +/- t x its delete-one-paper
  jackknife standard error, t with papers - strata degrees of freedom (fewer, by
  Welch-Satterthwaite, when strata differ in spread): the CV3 cluster-robust variance,
  which MacKinnon and Webb found to hold with few, unequal clusters. On simulated
  clustered corpora (``benchmarks/interval_coverage.py``) it covers the true accuracy
  93% of the time at 5 papers and 94-95% at 10 and 20, where the percentile bootstrap
  over papers covered 84% at 5 and 90% at 10 (issue 36).
* Differences between two labellings of the same sentences (``compare``, ``report``):
  the same interval of B - A, the same paper left out of both sides; the p-value is the
  two-sided t test of B - A = 0 with that standard error and those degrees of freedom,
  so the interval excludes 0 exactly when p < 0.05. (Approximate randomization over
  papers, used before, cannot reach p < 0.05 with 5 papers, 2^5 swaps, while an interval
  must sometimes exclude 0: they contradicted each other.) Per-label p-values are also
  given Holm-adjusted over the labels.
* Strata are counted per stratum: a fold or corpus of one paper has no spread of its
  own, so then the papers are not stratified (and the result says so).
* Below :data:`MIN_PAPERS` papers no interval is made; below :data:`CAUTION_PAPERS`
  :func:`caution` gives one line on how little so few papers can tell.

The per-paper counts and the scores of weighted papers are in :mod:`coresc.paper_counts`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .metrics import MEASURES
from .paper_counts import PaperTable, paper_table, paper_tables, scores

__all__ = ["PaperTable", "paper_table", "paper_tables", "scores", "intervals", "paired",
           "verdict", "papers_needed", "caution", "attach_intervals", "strata_of"]

LEVEL = 0.95
#: Fewer papers than this and no interval is made: one paper has no spread to measure.
#: From 2 papers up the interval's simulated coverage holds (94.9% at 2, 92.3% at 3,
#: 93.2% at 5: benchmarks/interval_coverage.py, docs/benchmarks.md), though at 2 or 3 it
#: is wide enough to say little, which :func:`caution` says.
MIN_PAPERS = 2
#: Fewer papers than this and the interval comes with a line of caution.
CAUTION_PAPERS = 20
METHOD = "t interval over papers (delete-one-paper jackknife)"
TEST_METHOD = "t test on the same standard error (two-sided)"
#: Differences a curator plans for (points / 100), and the power to detect them.
PLANNED = (0.01, 0.02, 0.05)
POWER = 0.8


class TooFewPapers(ValueError):
    """An interval needs at least :data:`MIN_PAPERS` papers."""


def too_few(n_papers: int) -> str:
    """Why there is no interval, and how many papers would give one."""
    return (f"{n_papers} paper{'s' * (n_papers != 1)}: an interval over papers needs at "
            f"least {MIN_PAPERS} (one paper has no spread to measure; about "
            f"{CAUTION_PAPERS} make a firm one)")


def caution(n_papers: int) -> str:
    """One line of caution between :data:`MIN_PAPERS` and :data:`CAUTION_PAPERS` papers
    (empty otherwise)."""
    if not MIN_PAPERS <= n_papers < CAUTION_PAPERS:
        return ""
    return (f"caution: {n_papers} papers: intervals over so few papers are wide and rest on "
            f"how these few differ; about {CAUTION_PAPERS} or more make them firm")


# ---------------------------------------------------------------------------
# The jackknife t interval
# ---------------------------------------------------------------------------

def usable_strata(strata: np.ndarray) -> np.ndarray:
    """``strata`` if every stratum has two papers or more, else one stratum: a fold or
    corpus of one paper has no spread of its own (it would give a zero-width interval)."""
    counts = np.bincount(strata)
    return strata if counts[counts > 0].min() >= 2 else np.zeros_like(strata)


def jackknife_weights(strata: np.ndarray) -> np.ndarray:
    """(P, P) paper weights, row i: paper i left out and the rest of its stratum weighted
    up by P_h / (P_h - 1), so that every stratum keeps its share."""
    weights = 1.0 - np.eye(len(strata))
    for h in np.unique(strata):
        same = strata == h
        k = same.sum()
        weights[np.ix_(same, same)] *= k / (k - 1)
    return weights


def _t_quantile(q: float, df):
    from scipy.special import stdtrit  # scipy comes with scikit-learn; scipy.stats is slow

    return stdtrit(df, q)


def _jackknife(left_out: np.ndarray, strata: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Stratified jackknife standard errors from left-out estimates (K scores, P papers),
    NaN where a left-out estimate is undefined, and their degrees of freedom: papers -
    strata, or fewer by Welch and Satterthwaite when the strata differ in spread (it
    holds coverage at 10 stratified papers: 92.6% against 91.7% with papers - strata)."""
    var, denom = np.zeros(len(left_out)), np.zeros(len(left_out))
    for h in np.unique(strata):
        theta = left_out[:, strata == h]
        k = theta.shape[1]
        part = (k - 1) / k * ((theta - theta.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
        var += part
        denom += part ** 2 / (k - 1)
    most = len(strata) - len(np.unique(strata))
    with np.errstate(divide="ignore", invalid="ignore"):
        df = np.where(denom > 0, np.minimum(most, var ** 2 / denom), most)
    return np.sqrt(var), np.nan_to_num(df, nan=most)


def t_interval_arrays(est: np.ndarray, left_out: np.ndarray, strata: np.ndarray,
                      level: float = LEVEL, low: Any = -np.inf,
                      high: Any = np.inf) -> tuple[np.ndarray, ...]:
    """``(low, high, standard error, df)`` arrays of K estimates ``est`` from their
    left-out estimates (K, P), each interval cut to ``[low, high]`` (scalars or (K,))."""
    se, df = _jackknife(left_out, strata)
    half = _t_quantile(0.5 + level / 2, df) * se
    ok = np.isfinite(est) & np.isfinite(se)
    return (np.where(ok, np.maximum(low, est - half), np.nan),
            np.where(ok, np.minimum(high, est + half), np.nan), se, df)


def t_intervals(point: Mapping[str, np.ndarray], left_out: Mapping[str, np.ndarray],
                strata: np.ndarray, level: float = LEVEL,
                difference: bool = False) -> tuple[dict, dict, dict]:
    """``({score: [low, high]}, {score: standard error}, {score: df})`` of the estimates
    ``point`` (arrays of one) from their left-out estimates (arrays of P), cut to the
    values the score (or, ``difference``, a difference of two) can take."""
    keys = list(point)
    bounds = np.array([_range(k, difference) for k in keys])
    lo, hi, se, df = t_interval_arrays(
        np.array([float(point[k][0]) for k in keys]),
        np.stack([left_out[k] for k in keys]), strata, level, bounds[:, 0], bounds[:, 1])
    return ({k: [float(lo[i]), float(hi[i])] for i, k in enumerate(keys)},
            {k: float(se[i]) for i, k in enumerate(keys)},
            {k: float(df[i]) for i, k in enumerate(keys)})


def _range(key: str, difference: bool) -> tuple[float, float]:
    lo, hi = (-1.0, 1.0) if key.startswith("kappa") else (0.0, 1.0)
    return (lo - hi, hi - lo) if difference else (lo, hi)


def _check_papers(table: PaperTable) -> None:
    if len(table.papers) < MIN_PAPERS:
        raise TooFewPapers(too_few(len(table.papers)))


def _about(table: PaperTable, strata: np.ndarray, level: float) -> dict[str, Any]:
    given = int(len(np.unique(table.strata)))
    used = int(len(np.unique(strata)))
    about = {"method": METHOD, "level": level, "n_papers": len(table.papers),
             "n_sentences": table.n_sentences, "strata": used,
             "df": len(strata) - used, "caution": caution(len(table.papers))}
    if used < given:
        about["not_stratified"] = ("a fold or corpus has one paper, which has no spread of "
                                   "its own: the papers are not stratified")
    return about


def intervals(table: PaperTable, level: float = LEVEL) -> dict[str, Any]:
    """``{"point": {score: value}, "ci": {score: [low, high]}, ...about}`` for every key
    of :func:`scores` (deterministic: no resampling).

    Raises :class:`TooFewPapers` below :data:`MIN_PAPERS` papers."""
    _check_papers(table)
    strata = usable_strata(table.strata)
    point = scores(table, np.ones((1, len(table.papers))))
    left = scores(table, jackknife_weights(strata))
    ci, _, _ = t_intervals(point, left, strata, level)
    return {**_about(table, strata, level), "ci": ci,
            "point": {k: float(v[0]) for k, v in point.items()}}


# ---------------------------------------------------------------------------
# Paired: B - A on the same papers
# ---------------------------------------------------------------------------

def paired(table_a: PaperTable, table_b: PaperTable, level: float = LEVEL) -> dict[str, Any]:
    """B - A on the same papers (tables from one :func:`paper_tables` call).

    Returns ``{"a": {score: value}, "b": ..., "a_ci", "b_ci", "difference": {score:
    value}, "difference_ci", "difference_se", "p": {score: p-value}, "p_holm": {f1/LABEL:
    Holm-adjusted p}, "papers_needed": {score: {points: papers}}, ...about}``."""
    _check_papers(table_a)
    if table_a.papers != table_b.papers or table_a.labels != table_b.labels or any(
            table_a.kappa_parts[m][2].shape != table_b.kappa_parts[m][2].shape
            for m in table_a.kappa_parts):
        raise ValueError("the two tables must come from one paper_tables call")
    strata = usable_strata(table_a.strata)
    ones, jack = np.ones((1, len(table_a.papers))), jackknife_weights(strata)
    point_a, point_b = scores(table_a, ones), scores(table_b, ones)
    left_a, left_b = scores(table_a, jack), scores(table_b, jack)
    a_ci = t_intervals(point_a, left_a, strata, level)[0]
    b_ci = t_intervals(point_b, left_b, strata, level)[0]
    d_ci, d_se, d_df = t_intervals({k: point_b[k] - point_a[k] for k in point_a},
                             {k: left_b[k] - left_a[k] for k in point_a}, strata, level,
                             difference=True)
    diff = {k: float(point_b[k][0] - point_a[k][0]) for k in point_a}
    p = dict(zip(diff, t_test(*(np.array([x[k] for k in diff]) for x in (diff, d_se, d_df))
                              ).tolist(), strict=True))
    n = len(table_a.papers)
    return {**_about(table_a, strata, level), "test": TEST_METHOD,
            "a": {k: float(v[0]) for k, v in point_a.items()},
            "b": {k: float(v[0]) for k, v in point_b.items()},
            "a_ci": a_ci, "b_ci": b_ci, "difference": diff,
            "difference_ci": d_ci, "difference_se": d_se, "p": p,
            "p_holm": holm({k: v for k, v in p.items() if k.startswith("f1/")}),
            "papers_needed": {k: papers_needed(d_se[k], n, level)
                              for k in ("accuracy", "macro_f1")}}


def t_test(diff: np.ndarray, se: np.ndarray, df: np.ndarray) -> np.ndarray:
    """Two-sided p of each ``diff`` = 0 given its standard error (t with ``df``): 1.0
    where nothing differs, 0.0 where every paper differs alike (standard error 0), NaN
    where the difference is undefined."""
    from scipy.special import stdtr

    with np.errstate(divide="ignore", invalid="ignore"):
        p = 2 * stdtr(df, -np.abs(diff) / se)
    p = np.where(se > 0, p, np.where(np.abs(diff) < 1e-12, 1.0, 0.0))
    return np.where(np.isfinite(diff) & np.isfinite(se), p, np.nan)


def holm(p: Mapping[str, float]) -> dict[str, float]:
    """Holm's step-down adjustment of a family of p-values (capped at 1, monotone)."""
    order = sorted(p, key=p.__getitem__)
    out, running = {}, 0.0
    for i, k in enumerate(order):
        running = max(running, min(1.0, (len(order) - i) * p[k]))
        out[k] = running
    return {k: out[k] for k in p}


def papers_needed(se: float, n_papers: int, level: float = LEVEL,
                  deltas: Sequence[float] = PLANNED, power: float = POWER) -> dict[str, int | None]:
    """Papers a paired comparison needs to detect each difference of ``deltas`` (score
    units) with ``power`` at ``1 - level``, from the between-paper spread of these
    papers (sd = se x sqrt(papers)): the smallest n with (t(level) + t(power)) x sd /
    sqrt(n) <= delta, t with n - 1 df. Keys: points as text ("1", "2", "5"); None when
    the spread is 0 (no paper differs) or undefined."""
    sd = se * n_papers ** 0.5
    z = float(_t_quantile(0.5 + level / 2, 10**9) + _t_quantile(power, 10**9))
    out: dict[str, int | None] = {}
    for delta in deltas:
        key = f"{100 * delta:g}"
        if not np.isfinite(sd) or sd <= 0:
            out[key] = None
            continue
        n = max(MIN_PAPERS, int(np.ceil((z * sd / delta) ** 2)))  # normal, then t's df
        while ((_t_quantile(0.5 + level / 2, n - 1) + _t_quantile(power, n - 1)) * sd
               / delta) ** 2 > n:
            n += 1
        out[key] = n
    return out


def verdict(result: Mapping[str, Any], key: str = "accuracy", alpha: float = 0.05) -> str:
    """One plain sentence on ``B - A`` for ``key`` of a :func:`paired` result."""
    diff, (lo, hi) = result["difference"][key], result["difference_ci"][key]
    p, n = result["p"][key], result["n_papers"]
    name = "accuracy" if key == "accuracy" else key.replace("_", "-").replace("macro-f1",
                                                                                "macro-F1")
    ci = f"{100 * result['level']:.0f}% CI {signed(lo)} to {signed(hi)}"
    if p < alpha and diff:
        better, worse = ("B", "A") if diff > 0 else ("A", "B")
        return (f"{better} is better than {worse} in {name} by {100 * abs(diff):.1f} points "
                f"(B - A {ci}), {_p_clause(p)} over {n} papers")
    return (f"no difference in {name} detectable at this size: B - A = {signed(diff)} "
            f"points ({ci}), {_p_clause(p)} over {n} papers")


def signed(x: float, digits: int = 1) -> str:
    """``x`` (a score difference) in points with its sign, never ``-0.0``."""
    text = f"{100 * x:+.{digits}f}"
    return "+" + text[1:] if float(text) == 0 else text


def format_p(p: float) -> str:
    """A p-value as reports print it."""
    return f"{p:.3f}" if p >= 0.001 else "< 0.001"


def _p_clause(p: float) -> str:
    return f"p = {p:.3f}" if p >= 0.001 else "p < 0.001"


def attach_intervals(result: dict[str, Any], gold_by, pred_by,
                     strata: Mapping[str, str] | None = None,
                     level: float = LEVEL) -> dict[str, Any]:
    """Put ``_ci`` keys beside the scores of a :func:`coresc.evaluation.score_label_lists`
    result (``primary.accuracy_ci``, ``primary.macro_f1_ci``, ``primary.per_label.X.f1_ci``,
    ``agreement.micro_ci.MEASURE``, ``agreement.macro_ci.MEASURE``) and ``interval``: how
    they were made, or ``{"reason": ...}`` when no interval can be made."""
    table = paper_table(gold_by, pred_by, strata)
    try:
        found = intervals(table, level=level)
    except TooFewPapers as exc:
        result["interval"] = {"reason": str(exc), "n_papers": len(table.papers),
                              "n_sentences": table.n_sentences}
        return result
    ci = found.pop("ci")
    found.pop("point")  # the result has its own scores
    prim = result["primary"]
    prim["accuracy_ci"], prim["macro_f1_ci"] = ci["accuracy"], ci["macro_f1"]
    for lab, s in prim["per_label"].items():
        if f"f1/{lab}" in ci:
            s["f1_ci"] = ci[f"f1/{lab}"]
    agr = result["agreement"]
    for avg in ("micro", "macro"):
        agr[f"{avg}_ci"] = {m: ci[f"kappa_{avg}/{m}"] for m in MEASURES}
    result["interval"] = found
    return result


def strata_of(keys: Sequence[str], group: Mapping[str, str | None]) -> dict[str, str] | None:
    """Paper -> stratum when the papers come from several groups (folds, corpora)."""
    names = {group.get(k) for k in keys}
    return {k: str(group.get(k)) for k in keys} if len(names) > 1 else None
