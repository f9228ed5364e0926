"""Per-paper counts of a labelling against gold, and the scores of weighted papers.

Every interval and test of :mod:`coresc.stats` reduces each paper once to sufficient
statistics (sentences, correct ones, per-label tp / fp / fn, the counts the five kappas
need); a left-out paper (or any weighting) is then a weighted sum of those (``W @ stats``,
``W`` one row of paper weights each). :func:`paper_table` builds them; the scores they
give with unit weights are those of :func:`coresc.evaluation.score_label_lists`
(``tests/test_stats.py`` checks it).

A sentence without a prediction (:data:`coresc.metrics.NO_PREDICTION`) is wrong for
accuracy and a false negative of its gold label, but no class of its own: it has no F1
and is in no macro-F1. Macro-F1 averages over one fixed label set, the labels with a
gold or predicted sentence among all the papers (the point estimate's), in every
weighting; a label absent from one counts F1 0 there rather than being dropped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .labels import rank_weights, sort_key
from .metrics import MEASURES, NO_PREDICTION, abo_agree, loose_agree, ranked_pairs

_EPS = 1e-12

_VALUE_OF = {  # each categorical kappa: the sentence's value and when two values agree
    "loose": (frozenset, loose_agree),
    "abo": (frozenset, abo_agree),
    "coresc1": (lambda r: r[0], lambda x, y: x == y),
    "strict": (tuple, lambda x, y: x == y),
}


@dataclass
class PaperTable:
    """Per-paper sufficient statistics of one labelling against gold (rows: papers)."""

    papers: list[str]
    strata: np.ndarray          # (P,) stratum index of each paper
    labels: list[str]           # the primary labels scored, in priority order
    scored: np.ndarray          # (L,) labels in macro-F1: a gold or predicted sentence
    n: np.ndarray               # (P,) sentences
    correct: np.ndarray         # (P,) primary label right
    tp: np.ndarray              # (P, L)
    fp: np.ndarray
    fn: np.ndarray
    # the kappas' counts; empty: primary-label scores only (simulations build such tables)
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
    labels = sorted(seen - {NO_PREDICTION}, key=sort_key)
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
            g0, p0 = index[g[0]], index.get(p[0])  # None: no prediction, no class
            n[i] += 1
            if g0 == p0:
                correct[i] += 1
                tp[i, g0] += 1
                continue
            fn[i, g0] += 1
            if p0 is not None:
                fp[i, p0] += 1
    parts: dict[str, tuple[np.ndarray, ...]] = {
        m: _categorical_parts(m, pairs, vocab[m]) for m in _VALUE_OF}
    parts["weighted"] = _weighted_parts(pairs, vocab["weighted"])
    scored = (tp + fp + fn).sum(axis=0) > 0
    table = PaperTable(papers, stratum, labels, scored, n, correct, tp, fp, fn, parts)
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
# Scores of weighted papers (one row of weights per weighting)
# ---------------------------------------------------------------------------

def _div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    return np.divide(num, den, out=np.zeros(np.broadcast(num, den).shape), where=den > 0)


def _kappa(po: np.ndarray, pe: np.ndarray) -> np.ndarray:
    degenerate = pe >= 1.0 - _EPS
    safe = np.where(degenerate, 0.0, 1.0 - pe)
    return np.where(degenerate, (po >= 1.0 - _EPS).astype(float),
                    (po - pe) / np.where(degenerate, 1.0, safe))


def scores(table: PaperTable, weights: Any,
           scored: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Every score of ``table``'s papers weighted by each row of ``weights`` (R, P; a
    scipy sparse matrix too, for many weightings of few papers each).

    ``scored``: the labels macro-F1 averages over, (L,) or one row per weighting (R, L)
    (default ``table.scored``). Keys: ``accuracy``, ``macro_f1``, ``f1/LABEL``,
    ``kappa_micro/MEASURE``, ``kappa_macro/MEASURE``; values (R,) arrays.
    """
    def wsum(get):  # weighted sum of one statistic over papers
        return weights @ get(table)

    out = {"accuracy": _div(wsum(lambda t: t.correct), wsum(lambda t: t.n))}
    tp, fp, fn = wsum(lambda t: t.tp), wsum(lambda t: t.fp), wsum(lambda t: t.fn)
    f1 = _div(2 * tp, 2 * tp + fp + fn)
    fixed = np.broadcast_to(table.scored if scored is None else scored, f1.shape)
    out["macro_f1"] = _div((f1 * fixed).sum(axis=1), fixed.sum(axis=1))
    for j, lab in enumerate(table.labels):
        out[f"f1/{lab}"] = f1[:, j]
    if not table.kappa_parts:  # a table of primary-label counts only
        return out
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
