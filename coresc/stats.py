"""Confidence intervals and paired tests, resampling papers: one implementation for
``evaluate``, ``compare``, the experiment runs and ``coresc report``.

Sentences of one paper are not independent (one author, one topic, one annotator's
habits), so the unit that was sampled, and the unit resampled here, is the **paper**; a
run with several folds or test corpora resamples within each (a stratified bootstrap).

* Intervals: the percentile bootstrap over papers (2,000 resamples by default, 95%).
* Differences between two labellings of the same sentences (``compare``, ``report``):
  the interval is the paired bootstrap (both sides resampled with the same papers), the
  p-value is two-sided **approximate randomization** over papers (each paper's two
  labellings swapped with probability 1/2; ``p = (1 + #{|d*| >= |d|}) / (1 + R)``).

Nothing is re-scored per resample: each paper is reduced once to sufficient statistics
(sentences, correct ones, per-label tp / fp / fn, the counts the five kappas need), and
every resample is a weighted sum of those (``W @ stats``, ``W`` the resample's paper
counts). :func:`paper_table` builds them; the scores they give with unit weights are
those of :func:`coresc.evaluation.score_label_lists` (``tests/test_stats.py`` checks it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .labels import rank_weights, sort_key
from .metrics import MEASURES, abo_agree, loose_agree, ranked_pairs

#: The defaults every command uses.
N_RESAMPLES = 2000
LEVEL = 0.95
#: Fewer papers than this and no interval can be made.
MIN_PAPERS = 2
METHOD = "percentile bootstrap over papers"
TEST_METHOD = "approximate randomization over papers (two-sided)"
_EPS = 1e-12

_VALUE_OF = {  # each categorical kappa: the sentence's value and when two values agree
    "loose": (frozenset, loose_agree),
    "abo": (frozenset, abo_agree),
    "coresc1": (lambda r: r[0], lambda x, y: x == y),
    "strict": (tuple, lambda x, y: x == y),
}


class TooFewPapers(ValueError):
    """An interval needs at least :data:`MIN_PAPERS` papers."""


@dataclass
class PaperTable:
    """Per-paper sufficient statistics of one labelling against gold (rows: papers)."""

    papers: list[str]
    strata: np.ndarray          # (P,) stratum index of each paper
    labels: list[str]           # the primary labels scored, in priority order
    n: np.ndarray               # (P,) sentences
    correct: np.ndarray         # (P,) primary label right
    tp: np.ndarray              # (P, L)
    fp: np.ndarray
    fn: np.ndarray
    kappa_parts: dict[str, tuple[np.ndarray, ...]] = field(default_factory=dict)
    paper_kappas: np.ndarray | None = None   # (P, 5) per-paper kappas (macro), NaN if none

    @property
    def n_sentences(self) -> int:
        return int(self.n.sum())


def paper_tables(gold_by: Mapping[str, Sequence[Sequence[str]]],
                 pred_bys: Sequence[Mapping[str, Sequence[Sequence[str]]]],
                 strata: Mapping[str, str] | None = None) -> list[PaperTable]:
    """One :class:`PaperTable` per labelling in ``pred_bys``, over the papers of
    ``gold_by`` (non-empty gold lists, as :func:`coresc.evaluation.score_label_lists`
    takes), sharing labels and kappa value sets so that they can be paired.
    ``strata``: paper -> fold or corpus name (default: one stratum)."""
    papers = [k for k, lists in gold_by.items() if lists]
    names = sorted({(strata or {}).get(k, "") for k in papers})
    stratum = np.array([names.index((strata or {}).get(k, "")) for k in papers], dtype=int)
    seen = {g[0] for k in papers for g in gold_by[k]}
    for pred_by in pred_bys:
        seen |= {p[0] for k in papers for p in pred_by[k]}
    labels = sorted(seen, key=sort_key)
    pairs = [[ranked_pairs(gold_by[k], pred_by[k]) for k in papers] for pred_by in pred_bys]
    every = [pp for side in pairs for pp in side]
    vocab = {m: _vocab(m, every) for m in _VALUE_OF}
    codes = {lab: i for i, lab in enumerate(labels)}
    for ra, rb in every:  # secondary codes and "-" may be outside the primary labels
        for lab in (code for r in (*ra, *rb) for code in r):
            codes.setdefault(lab, len(codes))
    vocab["weighted"] = codes
    return [_table(papers, stratum, labels, side, gold_by, pred_by, vocab)
            for side, pred_by in zip(pairs, pred_bys, strict=True)]


def paper_table(gold_by, pred_by, strata=None) -> PaperTable:
    """:func:`paper_tables` for one labelling."""
    return paper_tables(gold_by, [pred_by], strata)[0]


def _vocab(measure: str, pairs) -> dict[Any, int]:
    value = _VALUE_OF[measure][0]
    out: dict[Any, int] = {}
    for ra, rb in pairs:
        for r in (*ra, *rb):
            out.setdefault(value(r), len(out))
    return out


def _table(papers, stratum, labels, pairs, gold_by, pred_by, vocab) -> PaperTable:
    index = {lab: i for i, lab in enumerate(labels)}
    n_p, n_l = len(papers), len(labels)
    tp, fp, fn = (np.zeros((n_p, n_l)) for _ in range(3))
    n, correct = np.zeros(n_p), np.zeros(n_p)
    for i, k in enumerate(papers):
        for g, p in zip(gold_by[k], pred_by[k], strict=True):
            g0, p0 = index[g[0]], index[p[0]]
            n[i] += 1
            if g0 == p0:
                correct[i] += 1
                tp[i, g0] += 1
            else:
                fn[i, g0] += 1
                fp[i, p0] += 1
    parts: dict[str, tuple[np.ndarray, ...]] = {
        m: _categorical_parts(m, pairs, vocab[m]) for m in _VALUE_OF}
    parts["weighted"] = _weighted_parts(pairs, vocab["weighted"])
    table = PaperTable(papers, stratum, labels, n, correct, tp, fp, fn, parts)
    # each paper's own kappas (the macro average): the pooled ones with one paper weighted
    # (the identity as weights, so each row is one paper's statistics as they are)
    one = _micro_kappas(table, lambda get: get(table))
    kept = parts["weighted"][0]
    table.paper_kappas = np.array([np.where(kept > 0, one[f"kappa_micro/{m}"], np.nan)
                                   for m in MEASURES]).T.reshape(n_p, len(MEASURES))
    return table


def _categorical_parts(measure, pairs, vocab):
    """(kept sentences, agreeing ones, counts of each value on side A and B, agree matrix)."""
    value, agree = _VALUE_OF[measure]
    n_p, n_v = len(pairs), len(vocab)
    kept, agreed = np.zeros(n_p), np.zeros(n_p)
    ca, cb = np.zeros((n_p, n_v)), np.zeros((n_p, n_v))
    for i, (ra, rb) in enumerate(pairs):
        for x, y in zip(ra, rb, strict=True):
            u, v = value(x), value(y)
            kept[i] += 1
            agreed[i] += agree(u, v)
            ca[i, vocab[u]] += 1
            cb[i, vocab[v]] += 1
    values = list(vocab)
    matrix = np.array([[agree(u, v) for v in values] for u in values], dtype=float)
    return kept, agreed, ca, cb, matrix.reshape(n_v, n_v)


def _weighted_parts(pairs, codes):
    """(kept sentences, summed weight overlap, summed weight of each code on A and B)."""
    n_p = len(pairs)
    kept, overlap = np.zeros(n_p), np.zeros(n_p)
    fa, fb = np.zeros((n_p, len(codes))), np.zeros((n_p, len(codes)))
    for i, (ra, rb) in enumerate(pairs):
        for x, y in zip(ra, rb, strict=True):
            wx = dict(zip(x, rank_weights(len(x)), strict=True))
            wy = dict(zip(y, rank_weights(len(y)), strict=True))
            kept[i] += 1
            overlap[i] += sum(min(wx[lab], wy[lab]) for lab in wx.keys() & wy.keys())
            for lab, w in wx.items():
                fa[i, codes[lab]] += w
            for lab, w in wy.items():
                fb[i, codes[lab]] += w
    return kept, overlap, fa, fb


# ---------------------------------------------------------------------------
# Scores of weighted papers (one row of weights per resample)
# ---------------------------------------------------------------------------

def _div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    return np.divide(num, den, out=np.zeros(np.broadcast(num, den).shape), where=den > 0)


def _kappa(po: np.ndarray, pe: np.ndarray) -> np.ndarray:
    degenerate = pe >= 1.0 - _EPS
    safe = np.where(degenerate, 0.0, 1.0 - pe)
    return np.where(degenerate, (po >= 1.0 - _EPS).astype(float),
                    (po - pe) / np.where(degenerate, 1.0, safe))


def scores(table: PaperTable, weights: np.ndarray,
           swap: tuple[PaperTable, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """Every score of ``table``'s papers weighted by each row of ``weights`` (R, P).

    ``swap=(other, mask)``: each paper's statistics are taken from ``other`` where
    ``mask`` (R, P) is 1 (approximate randomization). Keys: ``accuracy``, ``macro_f1``,
    ``f1/LABEL``, ``kappa_micro/MEASURE``, ``kappa_macro/MEASURE``; values (R,) arrays.
    """
    if swap is None:
        def wsum(get):  # weighted sum of one statistic over papers
            return weights @ get(table)
    else:  # ... each paper's from ``other`` where the mask says so
        other, mask = swap
        keep, take = weights * (1 - mask), weights * mask

        def wsum(get):
            return keep @ get(table) + take @ get(other)

    out = {"accuracy": _div(wsum(lambda t: t.correct), wsum(lambda t: t.n))}
    tp, fp, fn = wsum(lambda t: t.tp), wsum(lambda t: t.fp), wsum(lambda t: t.fn)
    f1 = _div(2 * tp, 2 * tp + fp + fn)
    present = (tp + fp + fn) > 0
    out["macro_f1"] = _div((f1 * present).sum(axis=1), present.sum(axis=1))
    for j, lab in enumerate(table.labels):
        out[f"f1/{lab}"] = f1[:, j]
    out.update(_micro_kappas(table, wsum))
    has = wsum(lambda t: (~np.isnan(t.paper_kappas)).astype(float))
    total = wsum(lambda t: np.nan_to_num(t.paper_kappas))
    for j, m in enumerate(MEASURES):
        out[f"kappa_macro/{m}"] = np.where(has[:, j] > 0, _div(total[:, j], has[:, j]),
                                           np.nan)
    return out


def _micro_kappas(table: PaperTable, wsum) -> dict[str, np.ndarray]:
    """The five kappas of the sentences pooled over weighted papers (``wsum(get)``: the
    weighted sum of a per-paper statistic)."""
    out = {}
    for m in _VALUE_OF:
        kept = wsum(lambda t, m=m: t.kappa_parts[m][0])
        po = _div(wsum(lambda t, m=m: t.kappa_parts[m][1]), kept)
        na = wsum(lambda t, m=m: t.kappa_parts[m][2])
        nb = wsum(lambda t, m=m: t.kappa_parts[m][3])
        pe = _div(((na @ table.kappa_parts[m][4]) * nb).sum(axis=1), kept ** 2)
        out[f"kappa_micro/{m}"] = _kappa(po, pe)
    kept = wsum(lambda t: t.kappa_parts["weighted"][0])
    po = _div(wsum(lambda t: t.kappa_parts["weighted"][1]), kept)
    fa = wsum(lambda t: t.kappa_parts["weighted"][2])
    fb = wsum(lambda t: t.kappa_parts["weighted"][3])
    out["kappa_micro/weighted"] = _kappa(po, _div((fa * fb).sum(axis=1), kept ** 2))
    return out


def resample_weights(strata: np.ndarray, n_resamples: int,
                     rng: np.random.Generator) -> np.ndarray:
    """(R, P) paper counts of ``n_resamples`` bootstrap samples: within each stratum, as
    many papers as it has, drawn with replacement."""
    weights = np.zeros((n_resamples, len(strata)))
    for s in np.unique(strata):
        idx = np.flatnonzero(strata == s)
        k = len(idx)
        draws = rng.integers(0, k, size=(n_resamples, k)) + k * np.arange(n_resamples)[:, None]
        weights[:, idx] = np.bincount(draws.ravel(), minlength=n_resamples * k).reshape(-1, k)
    return weights


def percentile(values: np.ndarray, level: float = LEVEL) -> list[float]:
    """The ``level`` percentile interval of bootstrap values (NaN resamples left out)."""
    tail = (1 - level) / 2
    lo, hi = np.nanquantile(values, [tail, 1 - tail])
    return [float(lo), float(hi)]


def ratio_interval(num: np.ndarray, den: np.ndarray, strata: np.ndarray | None = None,
                   n_resamples: int = N_RESAMPLES, seed: int = 0,
                   level: float = LEVEL) -> list[float]:
    """The interval of ``sum(num) / sum(den)`` (e.g. correct sentences / sentences) by
    the same bootstrap over rows (papers) as every score here."""
    strata = np.zeros(len(num), dtype=int) if strata is None else strata
    weights = resample_weights(strata, n_resamples, np.random.default_rng(seed))
    return percentile(_div(weights @ num, weights @ den), level)


def _check_papers(table: PaperTable) -> None:
    if len(table.papers) < MIN_PAPERS:
        raise TooFewPapers(f"{len(table.papers)} paper: an interval over papers needs at "
                           f"least {MIN_PAPERS}")


def _about(table: PaperTable, n_resamples: int, seed: int, level: float) -> dict[str, Any]:
    return {"method": METHOD, "n_resamples": n_resamples, "seed": seed, "level": level,
            "n_papers": len(table.papers), "n_sentences": table.n_sentences,
            "strata": int(len(np.unique(table.strata)))}


def intervals(table: PaperTable, n_resamples: int = N_RESAMPLES, seed: int = 0,
              level: float = LEVEL) -> dict[str, Any]:
    """``{"ci": {score: [low, high]}, ...about}`` for every key of :func:`scores`.

    Raises :class:`TooFewPapers` below :data:`MIN_PAPERS` papers."""
    _check_papers(table)
    weights = resample_weights(table.strata, n_resamples, np.random.default_rng(seed))
    boot = scores(table, weights)
    return {**_about(table, n_resamples, seed, level),
            "ci": {k: percentile(v, level) for k, v in boot.items()}}


def paired(table_a: PaperTable, table_b: PaperTable, n_resamples: int = N_RESAMPLES,
           seed: int = 0, level: float = LEVEL) -> dict[str, Any]:
    """B - A on the same papers (tables from one :func:`paper_tables` call).

    Returns ``{"a": {score: value}, "b": ..., "a_ci", "b_ci", "difference": {score:
    value}, "difference_ci", "p": {score: p-value}, ...about}``."""
    _check_papers(table_a)
    if table_a.papers != table_b.papers or table_a.labels != table_b.labels or any(
            table_a.kappa_parts[m][2].shape != table_b.kappa_parts[m][2].shape
            for m in table_a.kappa_parts):
        raise ValueError("the two tables must come from one paper_tables call")
    rng = np.random.default_rng(seed)
    weights = resample_weights(table_a.strata, n_resamples, rng)
    ones = np.ones((1, len(table_a.papers)))
    point_a, point_b = scores(table_a, ones), scores(table_b, ones)
    boot_a, boot_b = scores(table_a, weights), scores(table_b, weights)
    mask = rng.integers(0, 2, size=(n_resamples, len(table_a.papers))).astype(float)
    perm_b = scores(table_a, np.ones_like(mask), (table_b, mask))
    perm_a = scores(table_b, np.ones_like(mask), (table_a, mask))
    out: dict[str, Any] = {**_about(table_a, n_resamples, seed, level), "test": TEST_METHOD,
                           "a": {}, "b": {}, "a_ci": {}, "b_ci": {}, "difference": {},
                           "difference_ci": {}, "p": {}}
    for k in point_a:
        diff = float(point_b[k][0] - point_a[k][0])
        out["a"][k], out["b"][k] = float(point_a[k][0]), float(point_b[k][0])
        out["a_ci"][k], out["b_ci"][k] = percentile(boot_a[k], level), percentile(boot_b[k],
                                                                                 level)
        out["difference"][k] = diff
        out["difference_ci"][k] = percentile(boot_b[k] - boot_a[k], level)
        null = np.abs(perm_b[k] - perm_a[k])
        hits = np.sum(null >= abs(diff) - 1e-12) if np.isfinite(diff) else n_resamples
        out["p"][k] = float((1 + hits) / (1 + n_resamples))
    return out


def verdict(result: Mapping[str, Any], key: str = "accuracy", alpha: float = 0.05) -> str:
    """One plain sentence on ``B - A`` for ``key`` of a :func:`paired` result."""
    diff, (lo, hi) = result["difference"][key], result["difference_ci"][key]
    p, n = result["p"][key], result["n_papers"]
    name = "accuracy" if key == "accuracy" else key.replace("_", "-").replace("macro-f1",
                                                                                "macro-F1")
    ci = f"{100 * result['level']:.0f}% CI {100 * lo:+.1f} to {100 * hi:+.1f}"
    if p < alpha and diff:
        better, worse = ("B", "A") if diff > 0 else ("A", "B")
        return (f"{better} is better than {worse} in {name} by {100 * abs(diff):.1f} points "
                f"(B - A {ci}), {_p_clause(p)} over {n} papers")
    return (f"no difference in {name} detectable at this size: B - A = {100 * diff:+.1f} "
            f"points ({ci}), {_p_clause(p)} over {n} papers")


def format_p(p: float) -> str:
    """A p-value as reports print it."""
    return f"{p:.3f}" if p >= 0.001 else "< 0.001"


def _p_clause(p: float) -> str:
    return f"p = {p:.3f}" if p >= 0.001 else "p < 0.001"


def attach_intervals(result: dict[str, Any], gold_by, pred_by,
                     strata: Mapping[str, str] | None = None, seed: int = 0,
                     n_resamples: int = N_RESAMPLES, level: float = LEVEL) -> dict[str, Any]:
    """Put ``_ci`` keys beside the scores of a :func:`coresc.evaluation.score_label_lists`
    result (``primary.accuracy_ci``, ``primary.macro_f1_ci``, ``primary.per_label.X.f1_ci``,
    ``agreement.micro_ci.MEASURE``, ``agreement.macro_ci.MEASURE``) and ``interval``: how
    they were made, or ``{"reason": ...}`` when no interval can be made (< 2 papers)."""
    table = paper_table(gold_by, pred_by, strata)
    try:
        found = intervals(table, n_resamples=n_resamples, seed=seed, level=level)
    except TooFewPapers as exc:
        result["interval"] = {"reason": str(exc), "n_papers": len(table.papers),
                              "n_sentences": table.n_sentences}
        return result
    ci = found.pop("ci")
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
