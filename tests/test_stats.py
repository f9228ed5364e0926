"""Intervals and paired tests over papers (coresc/stats.py)."""

from __future__ import annotations

import functools
import random

import numpy as np
import pytest
from scipy import sparse

from coresc import stats
from coresc.evaluation import score_label_lists
from coresc.metrics import MEASURES, NO_PREDICTION

CODES = ["Bac", "Con", "Exp", "Goa", "Met", "Obs", "Res"]


def fake_corpus(seed: int, n_papers: int = 12, noise: float = 0.4):
    """Gold and predicted ranked label lists by paper (1-3 labels, some secondary)."""
    rnd = random.Random(seed)
    gold, pred = {}, {}
    for i in range(n_papers):
        key = f"paper{i}"
        gold[key], pred[key] = [], []
        for _ in range(rnd.randint(3, 25)):
            g = rnd.sample(CODES, rnd.choice([1, 1, 1, 2, 3]))
            p = list(g) if rnd.random() > noise else rnd.sample(CODES, rnd.choice([1, 2]))
            gold[key].append(g)
            pred[key].append(p)
    return gold, pred


def test_unit_weights_give_the_scores_of_metrics() -> None:
    gold, pred = fake_corpus(1)
    table = stats.paper_table(gold, pred)
    got = {k: float(v[0]) for k, v in stats.scores(table, np.ones((1, 12))).items()}
    want = score_label_lists(gold, pred)
    assert got["accuracy"] == pytest.approx(want["primary"]["accuracy"])
    assert got["macro_f1"] == pytest.approx(want["primary"]["macro_f1"])
    for lab, s in want["primary"]["per_label"].items():
        assert got[f"f1/{lab}"] == pytest.approx(s["f1"])
    for m in MEASURES:
        assert got[f"kappa_micro/{m}"] == pytest.approx(want["agreement"]["micro"][m]), m
        assert got[f"kappa_macro/{m}"] == pytest.approx(want["agreement"]["macro"][m]), m


def test_paper_counts_as_weights_equal_scoring_the_repeated_papers() -> None:
    """A resample with paper 0 twice scores as the corpus with paper 0 copied."""
    gold, pred = fake_corpus(2, n_papers=4)
    table = stats.paper_table(gold, pred)
    weights = np.array([[2.0, 0.0, 1.0, 1.0]])
    got = stats.scores(table, weights)
    g2 = {"a": gold["paper0"], "b": gold["paper0"], "c": gold["paper2"], "d": gold["paper3"]}
    p2 = {"a": pred["paper0"], "b": pred["paper0"], "c": pred["paper2"], "d": pred["paper3"]}
    want = score_label_lists(g2, p2)
    assert got["accuracy"][0] == pytest.approx(want["primary"]["accuracy"])
    assert got["macro_f1"][0] == pytest.approx(want["primary"]["macro_f1"])
    for m in MEASURES:
        assert got[f"kappa_micro/{m}"][0] == pytest.approx(want["agreement"]["micro"][m])


def test_intervals_are_deterministic_and_centred_on_the_estimate() -> None:
    gold, pred = fake_corpus(3, n_papers=30)
    table = stats.paper_table(gold, pred)
    a = stats.intervals(table)
    assert a == stats.intervals(table)
    point = score_label_lists(gold, pred)["primary"]
    for key in ("accuracy", "macro_f1"):
        lo, hi = a["ci"][key]
        assert lo < point[key] < hi
        assert (lo + hi) / 2 == pytest.approx(point[key])
    assert a["n_papers"] == 30 and a["n_sentences"] == table.n_sentences
    assert a["df"] == 29 and a["caution"] == ""


def test_jackknife_weights_keep_each_stratum_share() -> None:
    strata = np.array([0, 0, 0, 1, 1])
    w = stats.jackknife_weights(strata)
    assert (w.diagonal() == 0).all()
    assert np.allclose(w[:, :3].sum(axis=1), 3) and np.allclose(w[:, 3:].sum(axis=1), 2)


def test_a_stratum_of_one_paper_is_not_stratified_and_never_gives_zero_width() -> None:
    """Issue 36: three folders holding one paper each gave 49.8 [49.8, 49.8]."""
    gold, pred = fake_corpus(8, n_papers=3)
    strata = {k: f"folder{i}" for i, k in enumerate(gold)}
    table = stats.paper_table(gold, pred, strata)
    assert list(stats.usable_strata(table.strata)) == [0, 0, 0]
    found = stats.intervals(table)
    assert found["strata"] == 1 and "not stratified" in found["not_stratified"]
    assert found["df"] == 2 and found["caution"].startswith("caution: 3 papers")
    for key in ("accuracy", "macro_f1"):
        lo, hi = found["ci"][key]
        assert hi - lo > 0.01, key
    # two folders of two papers each are stratified
    strata = {k: f"folder{i // 2}" for i, k in enumerate(fake_corpus(8, n_papers=4)[0])}
    gold4, pred4 = fake_corpus(8, n_papers=4)
    found = stats.intervals(stats.paper_table(gold4, pred4, strata))
    assert found["strata"] == 2 and found["df"] == 2 and "not_stratified" not in found
    a, b = stats.paper_tables(gold, [pred, {k: [["Bac"]] * len(v) for k, v in gold.items()}],
                              {k: f"folder{i}" for i, k in enumerate(gold)})
    d = stats.paired(a, b)["difference_ci"]["accuracy"]
    assert d[1] - d[0] > 0.01


def test_one_paper_gives_no_interval() -> None:
    gold, pred = fake_corpus(4, n_papers=1)
    with pytest.raises(stats.TooFewPapers, match="at least 2"):
        stats.intervals(stats.paper_table(gold, pred))


def test_a_sentence_without_prediction_is_wrong_but_no_class() -> None:
    """Issue 36: blanking one prediction of 4,288 moved macro-F1 from 40.8 to 37.4 (the
    blank became a class of F1 0)."""
    gold, pred = fake_corpus(9, n_papers=6)
    blank = {k: [list(p) for p in v] for k, v in pred.items()}
    blank["paper0"][0] = [NO_PREDICTION]
    before, after = score_label_lists(gold, pred), score_label_lists(gold, blank)
    assert NO_PREDICTION not in after["primary"]["per_label"]
    n = after["n_sentences"]
    right = gold["paper0"][0][0] == pred["paper0"][0][0]
    assert after["primary"]["accuracy"] == pytest.approx(before["primary"]["accuracy"]
                                                         - right / n)
    assert abs(after["primary"]["macro_f1"] - before["primary"]["macro_f1"]) < 0.02
    table = stats.paper_table(gold, blank)
    assert NO_PREDICTION not in table.labels
    got = stats.scores(table, np.ones((1, 6)))
    assert got["macro_f1"][0] == pytest.approx(after["primary"]["macro_f1"])
    assert got["accuracy"][0] == pytest.approx(after["primary"]["accuracy"])


def test_macro_f1_averages_one_label_set_in_every_weighting() -> None:
    """Issue 36: one paper with 4 gold Mod sentences at F1 0 gave 0.626 [0.614, 0.849]:
    resamples without that paper dropped Mod from the average. Left out, the label
    counts F1 0 and the average keeps its eleven labels."""
    gold, pred = fake_corpus(10, n_papers=6)
    gold["paper0"] += [["Mod"]] * 4
    pred["paper0"] += [["Res"]] * 4
    table = stats.paper_table(gold, pred)
    weights = np.ones((1, 6))
    weights[0, 0] = 0.0  # paper0 left out: no Mod sentence at all
    got = stats.scores(table, weights)
    f1 = [got[f"f1/{lab}"][0] for lab in table.labels]
    assert got["macro_f1"][0] == pytest.approx(np.mean(f1))
    assert got["f1/Mod"][0] == 0.0 and len(f1) == int(table.scored.sum())
    found = stats.intervals(table)
    point = score_label_lists(gold, pred)["primary"]["macro_f1"]
    lo, hi = found["ci"]["macro_f1"]
    assert lo < point < hi


def test_holm_adjusts_a_family_of_p_values() -> None:
    got = stats.holm({"a": 0.01, "b": 0.04, "c": 0.03, "d": 0.5})
    assert got == pytest.approx({"a": 0.04, "b": 0.09, "c": 0.09, "d": 0.5})


def test_papers_needed_follows_the_spread() -> None:
    """A paper-level sd of 3 points (se 0.3 over 100 papers) needs about
    ((1.96 + 0.84) x 3 / d)^2 papers: ~71 for 1 point, ~18 for 2, ~5 for 5."""
    got = stats.papers_needed(0.003, 100)
    assert 70 <= got["1"] <= 74 and 18 <= got["2"] <= 21 and 5 <= got["5"] <= 6
    assert stats.papers_needed(0.0, 10) == {"1": None, "2": None, "5": None}


def test_signed_points_never_print_minus_zero() -> None:
    assert stats.signed(-0.0001) == "+0.0" and stats.signed(-0.02) == "-2.0"


def test_a_labelling_compared_with_itself_differs_by_zero_with_p_one() -> None:
    gold, pred = fake_corpus(5, n_papers=20)
    a, b = stats.paper_tables(gold, [pred, pred])
    result = stats.paired(a, b)
    for key in ("accuracy", "macro_f1", "kappa_micro/coresc1"):
        assert result["difference"][key] == 0.0
        assert result["difference_ci"][key] == [0.0, 0.0]
        assert result["p"][key] == 1.0
    assert stats.verdict(result).startswith("no difference in accuracy detectable")


def test_tables_made_apart_are_not_paired() -> None:
    gold, pred = fake_corpus(7, n_papers=5)
    other = {k: [["Hyp"] for _ in v] for k, v in pred.items()}
    with pytest.raises(ValueError, match="one paper_tables call"):
        stats.paired(stats.paper_table(gold, pred), stats.paper_table(gold, other))


def test_a_better_labelling_is_found_better() -> None:
    gold, worse = fake_corpus(6, n_papers=40, noise=0.6)
    better = {k: [list(g) if i % 2 else p
                  for i, (g, p) in enumerate(zip(gold[k], worse[k], strict=True))]
              for k in gold}
    a, b = stats.paper_tables(gold, [worse, better])
    result = stats.paired(a, b)
    assert result["difference"]["accuracy"] > 0.1
    assert result["difference_ci"]["accuracy"][0] > 0
    assert result["p"]["accuracy"] < 0.01
    assert set(result["p_holm"]) == {k for k in result["p"] if k.startswith("f1/")}
    assert all(result["p_holm"][k] >= result["p"][k] for k in result["p_holm"])
    assert stats.verdict(result).startswith("B is better than A in accuracy by")
    swapped = stats.paired(b, a)
    assert swapped["difference"]["accuracy"] == pytest.approx(-result["difference"]["accuracy"])
    assert stats.verdict(swapped).startswith("A is better than B")


# ---------------------------------------------------------------------------
# The interval method, checked by simulation (issue 36's targets)
# ---------------------------------------------------------------------------

LABELS = ["Res", "Bac", "Met", "Obs", "Con", "Exp", "Hyp", "Obj", "Goa", "Mot", "Mod"]
SHARES = np.array([0.20, 0.16, 0.13, 0.12, 0.10, 0.08, 0.07, 0.06, 0.045, 0.02, 0.015])
SHARES = SHARES / SHARES.sum()   # Mod, the rare label: 1.5% of sentences
MOVES = np.tile(SHARES, (len(SHARES), 1))
np.fill_diagonal(MOVES, 0.0)
MOVES /= MOVES.sum(axis=1, keepdims=True)   # where a wrong prediction of each label goes
DRAWS = 500                                 # corpora per seed and size


def side_counts(rng, gold: np.ndarray, acc: np.ndarray) -> dict[str, np.ndarray]:
    """tp / fp / fn (D, G, L), correct and n (D, G) of a labelling right with probability
    ``acc`` (D, G) in each paper of ``gold`` label counts (D, G, L)."""
    tp = rng.binomial(gold, acc[..., None])
    fp = rng.multinomial(gold - tp, MOVES).sum(axis=-2)
    return {"tp": tp, "fp": fp, "fn": gold - tp, "correct": tp.sum(-1), "n": gold.sum(-1)}


def simulated(rng, draws: int, n_papers: int, stratified: bool = False,
              paired: bool = False):
    """``draws`` clustered corpora of ``n_papers`` (benchmarks/interval_coverage.py's
    design): 15-120 sentences a paper, the paper's accuracy Beta(3, 2) (Beta(2, 2) in the
    second stratum), its label mix around SHARES; paired: two exchangeable labellings
    (the paper's accuracy moved by +/- u / 2, u ~ N(0, 0.05)), a true difference of 0.
    Returns one count dict per labelling and the papers' strata (G,)."""
    strata = np.zeros(n_papers, dtype=int)
    if stratified:
        strata[n_papers // 2:] = 1
    acc = rng.beta(np.where(strata == 1, 2.0, 3.0), 2.0, size=(draws, n_papers))
    gold = rng.multinomial(rng.integers(15, 121, (draws, n_papers)),
                           rng.dirichlet(20 * SHARES, (draws, n_papers)))
    if not paired:
        return [side_counts(rng, gold, acc)], strata
    u = rng.normal(0.0, 0.05, (draws, n_papers))
    return [side_counts(rng, gold, np.clip(acc + s * u / 2, 0, 1)) for s in (-1, 1)], strata


def count_table(side, strata) -> stats.PaperTable:
    """The counts of all draws as one primary-label table, draw after draw."""
    d, g = side["n"].shape
    flat = [side[k].reshape(d * g, *side[k].shape[2:]).astype(float)
            for k in ("n", "correct", "tp", "fp", "fn")]
    return stats.PaperTable([f"p{i}" for i in range(d * g)], np.tile(strata, d), LABELS,
                            np.ones(len(LABELS), bool), *flat)


def batch_scores(sides, strata) -> tuple[list[dict], list[dict], np.ndarray]:
    """Each draw's accuracy and macro-F1 (D,) and its left-out ones (D, G), per
    labelling, as stats.intervals and stats.paired make them (usable strata, jackknife
    weights, macro-F1 over the draw's labels with a gold or predicted sentence), but
    every draw in one weighted sum (sparse weights, one block of papers a draw)."""
    d, g = sides[0]["n"].shape
    used = stats.usable_strata(strata)
    scored = sum((s["tp"] + s["fp"] + s["fn"]).sum(1) for s in sides) > 0   # (D, L)
    point_w = sparse.kron(sparse.eye(d), np.ones((1, g)), format="csr")
    jack_w = sparse.kron(sparse.eye(d), stats.jackknife_weights(used), format="csr")
    points, lefts = [], []
    for side in sides:
        table = count_table(side, strata)
        point = stats.scores(table, point_w, scored)
        left = stats.scores(table, jack_w, np.repeat(scored, g, axis=0))
        points.append({k: point[k] for k in ("accuracy", "macro_f1")})
        lefts.append({k: left[k].reshape(d, g) for k in ("accuracy", "macro_f1")})
    return points, lefts, used


@functools.cache
def truth(stratified: bool) -> dict[str, float]:
    """The population's accuracy and macro-F1: 40,000 papers pooled (equal strata)."""
    (side,), _ = simulated(np.random.default_rng(99), 1, 40_000, stratified)
    tp, fp, fn = (side[k].sum((0, 1)) for k in ("tp", "fp", "fn"))
    return {"accuracy": side["correct"].sum() / side["n"].sum(),
            "macro_f1": float(np.mean(2 * tp / (2 * tp + fp + fn)))}


def coverage(n_papers: int, stratified: bool, seeds=(1, 2, 3)) -> dict[str, list[float]]:
    """Per seed, the share of DRAWS simulated corpora whose 95% interval holds the
    truth, accuracy and macro-F1."""
    want = truth(stratified)
    rates: dict[str, list[float]] = {k: [] for k in want}
    for seed in seeds:
        rng = np.random.default_rng([seed, n_papers, stratified])
        (point,), (left,), used = batch_scores(*simulated(rng, DRAWS, n_papers, stratified))
        for k in want:
            lo, hi, _, _ = stats.t_interval_arrays(point[k], left[k], used, low=0, high=1)
            rates[k].append(float(np.mean((lo <= want[k]) & (want[k] <= hi))))
    return rates


def test_the_batch_is_what_intervals_and_paired_give_each_corpus() -> None:
    """The simulation below scores all draws at once; draw by draw, stats.intervals and
    stats.paired give the same intervals and p."""
    rng = np.random.default_rng(5)
    sides, strata = simulated(rng, 3, 6, stratified=True, paired=True)
    points, lefts, used = batch_scores(sides, strata)
    for k in ("accuracy", "macro_f1"):
        lo, hi, se, df = stats.t_interval_arrays(points[1][k] - points[0][k],
                                                 lefts[1][k] - lefts[0][k], used,
                                                 low=-1, high=1)
        p = stats.t_test(points[1][k] - points[0][k], se, df)
        for d in range(3):
            one = [{key: v[d:d + 1] for key, v in side.items()} for side in sides]
            seen = sum((s["tp"] + s["fp"] + s["fn"]).sum(1)[0] for s in one) > 0
            tables = [count_table(s, strata) for s in one]
            for t in tables:
                t.scored = seen
            result = stats.paired(*tables)
            assert result["difference_ci"][k] == pytest.approx([lo[d], hi[d]])
            assert result["p"][k] == pytest.approx(p[d])
            single = stats.intervals(tables[0])["ci"][k]
            a_lo, a_hi, _, _ = stats.t_interval_arrays(points[0][k], lefts[0][k], used,
                                                       low=0, high=1)
            assert single == pytest.approx([a_lo[d], a_hi[d]])


@pytest.mark.parametrize("stratified", [False, True], ids=["one stratum", "two strata"])
def test_the_95_percent_interval_holds_the_truth_at_3_to_50_papers(stratified) -> None:
    """Issue 36's targets: coverage >= 90 / 93 / 93% at 5 / 10 / 20 papers, accuracy and
    macro-F1 (with a rare label), one stratum and two (at 3 papers, a stratum of one
    paper: pooled). 3 seeds x 500 corpora a size: binomial sd about 0.6 point pooled, 1
    a seed. The band: pooled at least 90% at 3 and 5 papers, 91% from 10 (the targets
    less 2 points, over 3 sd: benchmarks/interval_coverage.py measured 92.3-95.8% at
    1,000 corpora), each seed 2 points less, at most 98% (not an interval so wide it
    holds everything)."""
    for n_papers, low in ((3, 0.90), (5, 0.90), (10, 0.91), (20, 0.91), (50, 0.91)):
        for key, rates in coverage(n_papers, stratified).items():
            assert low <= float(np.mean(rates)) <= 0.98, (n_papers, key, rates)
            assert min(rates) >= low - 0.02, (n_papers, key, rates)


def test_a_true_null_is_rejected_about_5_percent_of_the_time_and_interval_agrees_with_p():
    """Paired, true difference 0: the interval excludes 0, exactly when p < 0.05, in at
    most 6% (+1.5 points: 2.5 sd) of 1,500 comparisons at 5, 10 and 20 papers, and at
    least 2% (a test that never rejects is no test)."""
    for n_papers in (5, 10, 20):
        rejected = {"accuracy": 0, "macro_f1": 0}
        for seed in (1, 2, 3):
            rng = np.random.default_rng([seed, n_papers, 7])
            points, lefts, used = batch_scores(*simulated(rng, DRAWS, n_papers, paired=True))
            for k in rejected:
                diff = points[1][k] - points[0][k]
                lo, hi, se, df = stats.t_interval_arrays(diff, lefts[1][k] - lefts[0][k],
                                                         used, low=-1, high=1)
                excludes = (lo > 0) | (hi < 0)
                assert (excludes == (stats.t_test(diff, se, df) < 0.05)).all()
                rejected[k] += int(excludes.sum())
        for k, hits in rejected.items():
            assert 0.02 <= hits / (3 * DRAWS) <= 0.075, (n_papers, k, hits)
