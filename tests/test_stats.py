"""Intervals and paired tests over papers (coresc/stats.py)."""

from __future__ import annotations

import functools
import random

import numpy as np
import pytest

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


def side_counts(rng, gold: np.ndarray, acc: np.ndarray) -> dict[str, np.ndarray]:
    """tp / fp / fn (P, L), correct and n (P,) of a labelling right with probability
    ``acc`` (P,) in each paper of ``gold`` label counts (P, L)."""
    tp = rng.binomial(gold, acc[:, None])
    fp = rng.multinomial(gold - tp, MOVES).sum(axis=1)
    return {"tp": tp, "fp": fp, "fn": gold - tp, "correct": tp.sum(1), "n": gold.sum(1)}


def simulated(rng, n_papers: int, stratified: bool = False, paired: bool = False):
    """Per-paper counts of a clustered corpus (benchmarks/interval_coverage.py's design):
    15-120 sentences a paper, the paper's accuracy Beta(3, 2) (Beta(2, 2) in the second
    stratum), its label mix around SHARES; paired: two exchangeable labellings (the
    paper's accuracy moved by +/- u / 2, u ~ N(0, 0.05)), a true difference of 0."""
    strata = np.zeros(n_papers, dtype=int)
    if stratified:
        strata[n_papers // 2:] = 1
    acc = rng.beta(np.where(strata == 1, 2.0, 3.0), 2.0)
    gold = rng.multinomial(rng.integers(15, 121, n_papers),
                           rng.dirichlet(20 * SHARES, n_papers))
    if not paired:
        return [side_counts(rng, gold, acc)], strata
    u = rng.normal(0.0, 0.05, n_papers)
    return [side_counts(rng, gold, np.clip(acc + s * u / 2, 0, 1)) for s in (-1, 1)], strata


def count_tables(sides, strata) -> list[stats.PaperTable]:
    """Primary-label tables of the counts, one per labelling, on one label set (the
    labels with a gold or predicted sentence on either side: the point estimate's)."""
    seen = sum((s["tp"] + s["fp"] + s["fn"]).sum(0) for s in sides) > 0
    return [stats.PaperTable([f"p{i}" for i in range(len(strata))], strata, LABELS, seen,
                             *(s[k].astype(float) for k in ("n", "correct", "tp", "fp",
                                                             "fn")))
            for s in sides]


@functools.cache
def truth(stratified: bool) -> dict[str, float]:
    """The population's accuracy and macro-F1: 40,000 papers pooled (equal strata)."""
    (side,), _ = simulated(np.random.default_rng(99), 40_000, stratified)
    tp, fp, fn = (side[k].sum(0) for k in ("tp", "fp", "fn"))
    return {"accuracy": side["correct"].sum() / side["n"].sum(),
            "macro_f1": float(np.mean(2 * tp / (2 * tp + fp + fn)))}


def coverage(n_papers: int, stratified: bool, seeds=(1, 2, 3), draws: int = 250):
    """Share of simulated corpora whose 95% interval (stats.intervals) holds the truth,
    accuracy and macro-F1, pooled over ``seeds`` (one rate per seed too)."""
    want = truth(stratified)
    rates = {k: [] for k in want}
    for seed in seeds:
        rng = np.random.default_rng([seed, n_papers, stratified])
        hits = {k: 0 for k in want}
        for _ in range(draws):
            (table,) = count_tables(*simulated(rng, n_papers, stratified))
            ci = stats.intervals(table)["ci"]
            for k in want:
                hits[k] += ci[k][0] <= want[k] <= ci[k][1]
        for k in want:
            rates[k].append(hits[k] / draws)
    return rates


@pytest.mark.parametrize("stratified", [False, True], ids=["one stratum", "two strata"])
def test_the_95_percent_interval_holds_the_truth_at_3_to_50_papers(stratified) -> None:
    """Issue 36's targets: coverage >= 90 / 93 / 93% at 5 / 10 / 20 papers, accuracy and
    macro-F1 (with a rare label). Here over 3 seeds x 250 corpora (binomial sd about 0.9
    point pooled, 1.5 a seed), so the pooled rate may fall 1.5 points under the target
    and each seed 4.5; at most 98%: not an interval so wide it holds everything. At 3
    papers (none at 2 in one stratum of a two-stratum design) the pooled floor is 88.5."""
    for n_papers, low in ((3, 0.885), (5, 0.885), (10, 0.915), (20, 0.915), (50, 0.915)):
        for key, rates in coverage(n_papers, stratified).items():
            pooled = float(np.mean(rates))
            assert low <= pooled <= 0.98, (n_papers, key, rates)
            assert min(rates) >= low - 0.03, (n_papers, key, rates)


def test_a_true_null_is_rejected_about_5_percent_of_the_time_and_interval_agrees_with_p():
    """Paired, true difference 0: the interval excludes 0 (and p < 0.05: the same event)
    in at most 6% (+1.5 points of band) of 750 comparisons at 5, 10 and 20 papers, and
    at least 1% (a test that never rejects is no test)."""
    for n_papers in (5, 10, 20):
        rejected = {"accuracy": 0, "macro_f1": 0}
        for seed in (1, 2, 3):
            rng = np.random.default_rng([seed, n_papers, 7])
            for _ in range(250):
                result = stats.paired(*count_tables(*simulated(rng, n_papers, paired=True)))
                for k in rejected:
                    lo, hi = result["difference_ci"][k]
                    excludes = lo > 0 or hi < 0
                    assert excludes == (result["p"][k] < 0.05), (n_papers, k, result)
                    rejected[k] += excludes
        for k, hits in rejected.items():
            assert 0.01 <= hits / 750 <= 0.075, (n_papers, k, hits)
