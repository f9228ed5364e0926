"""Coverage of candidate 95% intervals over papers at the sizes users have (issue 36).

    python benchmarks/interval_coverage.py [--draws 1000] [--resamples 1000] [--seed 0]

Synthetic clustered corpora (no real data): each paper has 15-120 gold sentences, its own
accuracy drawn from Beta(3, 2) (mean 0.6, sd 0.2), its own label mix drawn around eleven
CoreSC-like label shares (``Mod`` the rare one, 1.5% of sentences); a wrong prediction
goes to another label in proportion to the shares. Macro-F1 is over the eleven labels of
the population ("truth": the score of 200,000 papers pooled). Paired draws are true
nulls: both labellings have the paper's accuracy moved by +/- u/2, u ~ N(0, 0.05), so
that A and B are exchangeable and the true difference is 0.

Candidates, each a 95% interval over papers (a paper is a cluster):

* ``percentile``: today's percentile bootstrap over papers (coresc/stats.py before 36);
* ``t-linear``: estimate +/- t(G-1) x the linearised (cluster-robust, CR1) standard
  error (Cameron, Gelbach and Miller 2008);
* ``t-jackknife``: estimate +/- t(G-1) x the delete-one-paper jackknife standard error
  (MacKinnon and Webb's CV3, better with few, unequal clusters);
* ``bootstrap-t``: studentized bootstrap with the linearised standard error;
* ``bca``: bias-corrected and accelerated percentile bootstrap (jackknife acceleration).

Stratified draws (two strata of G/2 papers with different accuracies, Beta(3, 2) and
Beta(2, 2)) use the stratified versions: variance summed over strata, t with G - H df.
Paired draws add approximate randomization over papers (p = (1 + hits) / (1 + R)) and
count how often an interval excludes 0 while p > 0.1. Prints Markdown tables.
"""

from __future__ import annotations

import argparse
import time
from datetime import datetime, timezone

import numpy as np
from scipy import stats as st

LABELS = ["Res", "Bac", "Met", "Obs", "Con", "Exp", "Hyp", "Obj", "Goa", "Mot", "Mod"]
SHARES = np.array([0.20, 0.16, 0.13, 0.12, 0.10, 0.08, 0.07, 0.06, 0.045, 0.02, 0.015])
SHARES = SHARES / SHARES.sum()
SIZES = (3, 5, 10, 20, 50)
METHODS = ("percentile", "t-linear", "t-jackknife", "t-jackknife-welch", "bootstrap-t", "bca")
LEVEL = 0.95


# ---------------------------------------------------------------------------
# Synthetic corpora: per-paper sufficient statistics (draws D, papers G, labels L)
# ---------------------------------------------------------------------------

def _confusion() -> np.ndarray:
    """Where a wrong prediction of each gold label goes: other labels by their shares."""
    m = np.tile(SHARES, (len(SHARES), 1))
    np.fill_diagonal(m, 0.0)
    return m / m.sum(axis=1, keepdims=True)


def side_stats(rng, gold: np.ndarray, acc: np.ndarray) -> dict[str, np.ndarray]:
    """tp / fp / fn (D, G, L) and correct / n (D, G) of one labelling of ``gold``
    (D, G, L) label counts, each paper right with probability ``acc`` (D, G)."""
    tp = rng.binomial(gold, acc[..., None]).astype(float)
    wrong = (gold - tp).astype(np.int64)
    moved = rng.multinomial(wrong, _confusion())        # (D, G, L gold, L predicted)
    fp = moved.sum(axis=-2).astype(float)
    return {"tp": tp, "fp": fp, "fn": gold - tp, "correct": tp.sum(-1),
            "n": gold.sum(-1).astype(float)}


def draw(rng, d: int, g: int, stratified: bool = False, paired: bool = False):
    """``d`` corpora of ``g`` papers: one side's statistics, or (A, B) when paired, and
    the stratum of each paper (G,)."""
    n = rng.integers(15, 121, size=(d, g))
    strata = np.zeros(g, dtype=int)
    alpha = np.full(g, 3.0)
    if stratified:
        strata[g // 2:] = 1
        alpha[g // 2:] = 2.0
    acc = rng.beta(alpha, 2.0, size=(d, g))
    mix = rng.dirichlet(20 * SHARES, size=(d, g))
    gold = rng.multinomial(n, mix)
    if not paired:
        return side_stats(rng, gold, acc), strata
    u = rng.normal(0.0, 0.05, size=(d, g))
    a = side_stats(rng, gold, np.clip(acc - u / 2, 0, 1))
    b = side_stats(rng, gold, np.clip(acc + u / 2, 0, 1))
    return (a, b), strata


def truths(rng, g: int, stratified: bool) -> dict[str, float]:
    """Population accuracy and macro-F1 of ``g`` papers' design (stratum sizes as
    :func:`draw` makes them): each stratum's mean paper statistics over 100,000 papers,
    summed with the stratum's number of papers."""
    strata = draw(rng, 1, g, stratified)[1]
    sums: dict[str, np.ndarray] = {}
    for h in np.unique(strata):
        big = 100_000
        s, st_big = draw(rng, 1, big, stratified)
        m = st_big == (h if stratified else 0)
        for k, v in s.items():
            per_paper = v[0, m].mean(axis=0)
            sums[k] = sums.get(k, 0) + (strata == h).sum() * per_paper
    f1 = 2 * sums["tp"] / (2 * sums["tp"] + sums["fp"] + sums["fn"])
    return {"accuracy": float(sums["correct"] / sums["n"]), "macro_f1": float(f1.mean())}


# ---------------------------------------------------------------------------
# Scores of weighted papers and their linearisation
# ---------------------------------------------------------------------------

def _div(a, b):
    return np.divide(a, b, out=np.zeros(np.broadcast(a, b).shape), where=b > 0)


def wsum(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Weighted sums over papers: w (D or 1, R, G), x (D, G[, L]) -> (D, R[, L])."""
    return np.einsum("drg,dg...->dr...", w, x)


def score(metric: str, s, w, labels) -> np.ndarray:
    """Accuracy, or macro-F1 over the fixed ``labels`` mask (D, L) (an absent label: F1
    0), of the papers weighted by ``w`` (D|1, R, G) -> (D, R)."""
    if metric == "accuracy":
        return _div(wsum(w, s["correct"]), wsum(w, s["n"]))
    tp, fp, fn = (wsum(w, s[k]) for k in ("tp", "fp", "fn"))
    f1 = _div(2 * tp, 2 * tp + fp + fn)
    return (f1 * labels[:, None, :]).sum(-1) / labels.sum(-1)[:, None]


def influence(metric: str, s, w, labels) -> np.ndarray:
    """Each paper's linearised contribution to the score of weights ``w`` -> (D, R, G);
    sums (weighted) to zero."""
    if metric == "accuracy":
        r = score(metric, s, w, labels)
        tot = wsum(w, s["n"])
        return _div(s["correct"][:, None, :] - r[..., None] * s["n"][:, None, :],
                    tot[..., None])
    tp, fp, fn = (wsum(w, s[k]) for k in ("tp", "fp", "fn"))
    den = 2 * tp + fp + fn                                   # (D, R, L)
    f1 = _div(2 * tp, den)
    ptp = s["tp"][:, None]                                    # (D, 1, G, L)
    pden = (2 * s["tp"] + s["fp"] + s["fn"])[:, None]
    e = _div(2 * ptp - f1[:, :, None, :] * pden, den[:, :, None, :])
    return (e * labels[:, None, None, :]).sum(-1) / labels.sum(-1)[:, None, None]


def stat(metric, s, w, labels, paired):
    if paired:
        a, b = s
        return score(metric, b, w, labels) - score(metric, a, w, labels)
    return score(metric, s, w, labels)


def infl(metric, s, w, labels, paired):
    if paired:
        a, b = s
        return influence(metric, b, w, labels) - influence(metric, a, w, labels)
    return influence(metric, s, w, labels)


def strat_var(e: np.ndarray, w: np.ndarray, strata: np.ndarray) -> np.ndarray:
    """Stratified CR1 variance of a linearised statistic: sum over strata of
    G_h / (G_h - 1) * sum_i w_i (e_i - mean_h)^2. e, w (D, R, G)."""
    v = 0.0
    for h in np.unique(strata):
        m = strata == h
        gh = m.sum()
        eh, wh = e[..., m], w[..., m]
        mean = (wh * eh).sum(-1, keepdims=True) / gh
        v = v + gh / (gh - 1) * (wh * (eh - mean) ** 2).sum(-1)
    return v


def jack_var(theta_loo: np.ndarray, strata: np.ndarray, parts: bool = False):
    """Stratified delete-one jackknife variance: theta_loo (D, G); ``parts``: also
    Satterthwaite's degrees of freedom (each stratum's share with G_h - 1 df)."""
    v, denom = 0.0, 0.0
    for h in np.unique(strata):
        m = strata == h
        gh = m.sum()
        t = theta_loo[:, m]
        vh = (gh - 1) / gh * ((t - t.mean(-1, keepdims=True)) ** 2).sum(-1)
        v = v + vh
        denom = denom + vh ** 2 / (gh - 1)
    if parts:
        return v, _div(v ** 2, denom)
    return v


def jack_weights(strata: np.ndarray) -> np.ndarray:
    """(G, G) delete-one weights: paper i left out, the rest of its stratum weighted up
    by G_h / (G_h - 1) so that each stratum keeps its share."""
    g = len(strata)
    w = 1.0 - np.eye(g)
    for i in range(g):
        same = strata == strata[i]
        gh = same.sum()
        w[i, same] *= gh / (gh - 1)
    return w


def boot_weights(rng, strata: np.ndarray, r: int) -> np.ndarray:
    w = np.zeros((r, len(strata)))
    for h in np.unique(strata):
        idx = np.flatnonzero(strata == h)
        k = len(idx)
        draws = rng.integers(0, k, size=(r, k)) + k * np.arange(r)[:, None]
        w[:, idx] = np.bincount(draws.ravel(), minlength=r * k).reshape(r, k)
    return w


def intervals(metric, s, strata, labels, r, rng, paired) -> dict[str, np.ndarray]:
    """(D, 2) intervals of every candidate, and the estimate (D,)."""
    d, g = s[0]["n"].shape if paired else s["n"].shape
    if np.bincount(strata).min() < 2:  # a stratum of one paper has no variance: pool
        strata = np.zeros_like(strata)
    df = g - len(np.unique(strata))
    tq = st.t.ppf(0.5 + LEVEL / 2, df)
    ones = np.ones((1, 1, g))
    est = stat(metric, s, ones, labels, paired)[:, 0]
    se_lin = np.sqrt(strat_var(infl(metric, s, ones, labels, paired), ones, strata))[:, 0]
    loo = jack_weights(strata)[None]
    theta_loo = stat(metric, s, loo, labels, paired)
    var_j, df_w = jack_var(theta_loo, strata, parts=True)
    se_j = np.sqrt(var_j)
    tw = st.t.ppf(0.5 + LEVEL / 2, np.where(df_w > 0, np.minimum(df_w, df), df))
    w = boot_weights(rng, strata, r)[None]
    boot = stat(metric, s, w, labels, paired)                         # (D, R)
    se_b = np.sqrt(strat_var(infl(metric, s, w, labels, paired), w, strata))
    out = {"estimate": est}
    tail = (1 - LEVEL) / 2
    out["percentile"] = np.quantile(boot, [tail, 1 - tail], axis=1).T
    out["t-linear"] = np.stack([est - tq * se_lin, est + tq * se_lin], 1)
    out["t-jackknife"] = np.stack([est - tq * se_j, est + tq * se_j], 1)
    out["t-jackknife-welch"] = np.stack([est - tw * se_j, est + tw * se_j], 1)
    tstar = _div(boot - est[:, None], se_b)
    tstar = np.where(se_b > 0, tstar, 0.0)
    qlo, qhi = np.quantile(tstar, [tail, 1 - tail], axis=1)
    out["bootstrap-t"] = np.stack([est - qhi * se_lin, est - qlo * se_lin], 1)
    out["bca"] = bca(boot, est, theta_loo, tail)
    return out


def bca(boot, est, theta_loo, tail) -> np.ndarray:
    below = (boot < est[:, None]).mean(1) + 0.5 * (boot == est[:, None]).mean(1)
    z0 = st.norm.ppf(np.clip(below, 1e-6, 1 - 1e-6))
    dev = theta_loo.mean(1, keepdims=True) - theta_loo
    acc = _div((dev ** 3).sum(1), 6 * ((dev ** 2).sum(1)) ** 1.5)
    out = []
    for z in (st.norm.ppf(tail), st.norm.ppf(1 - tail)):
        q = st.norm.cdf(z0 + (z0 + z) / (1 - acc * (z0 + z)))
        out.append(np.array([np.quantile(b, qq) for b, qq in zip(boot, q, strict=True)]))
    return np.stack(out, 1)


def randomization_p(metric, s, labels, r, rng) -> np.ndarray:
    """Two-sided approximate randomization over papers (each paper's sides swapped with
    probability 1/2) of a paired draw -> p (D,)."""
    a, b = s
    d, g = a["n"].shape
    ones = np.ones((1, 1, g))
    obs = np.abs(stat(metric, s, ones, labels, True)[:, 0])
    mask = rng.integers(0, 2, size=(1, r, g)).astype(float)

    def mixed(x, y):  # per paper: x where mask is 0, y where it is 1
        return {k: wsum(1 - mask, x[k]) + wsum(mask, y[k]) for k in x}
    sb, sa = mixed(b, a), mixed(a, b)
    null = np.abs(_score_sums(metric, sb, labels) - _score_sums(metric, sa, labels))
    hits = (null >= obs[:, None] - 1e-12).sum(1)
    return (1 + hits) / (1 + r)


def _score_sums(metric, sums, labels):
    if metric == "accuracy":
        return _div(sums["correct"], sums["n"])
    f1 = _div(2 * sums["tp"], 2 * sums["tp"] + sums["fp"] + sums["fn"])
    return (f1 * labels[:, None, :]).sum(-1) / labels.sum(-1)[:, None]


# ---------------------------------------------------------------------------
# The study
# ---------------------------------------------------------------------------

def present_labels(s, paired) -> np.ndarray:
    """The point estimate's label set (D, L): labels with a gold or predicted sentence."""
    sides = s if paired else (s,)
    seen = sum((x["tp"] + x["fp"] + x["fn"]).sum(1) for x in sides)
    return (seen > 0).astype(float)


def run_cell(rng, g, draws, r, stratified, paired, truth, chunk=50):
    """Coverage (single) or null rejection (paired) of every method for one size."""
    res = {m: {mt: [] for mt in METHODS} for m in ("accuracy", "macro_f1")}
    extra = {m: {"rand": [], "disagree": [], "width": []} for m in res}
    for start in range(0, draws, chunk):
        s, strata = draw(rng, min(chunk, draws - start), g, stratified, paired)
        labels = present_labels(s, paired)
        for metric in res:
            ci = intervals(metric, s, strata, labels, r, rng, paired)
            target = 0.0 if paired else truth[metric]
            for mt in METHODS:
                lo, hi = ci[mt][:, 0], ci[mt][:, 1]
                res[metric][mt].append((lo <= target) & (target <= hi))
            extra[metric]["width"].append(ci["t-jackknife"][:, 1] - ci["t-jackknife"][:, 0])
            if paired:
                p = randomization_p(metric, s, labels, r, rng)
                lo, hi = ci["t-jackknife"][:, 0], ci["t-jackknife"][:, 1]
                extra[metric]["rand"].append(p < 0.05)
                extra[metric]["disagree"].append(((lo > 0) | (hi < 0)) & (p > 0.1))
    cov = {m: {mt: float(np.concatenate(v).mean()) for mt, v in d.items()}
           for m, d in res.items()}
    more = {m: {k: float(np.concatenate(v).mean()) for k, v in d.items() if v}
            for m, d in extra.items()}
    return cov, more


def _paired_accuracy(rng, d: int, g: int, delta: float):
    """Per-paper correct counts of A and B and sentences (D, G): B better by ``delta``
    on average (each paper's accuracy moved by delta + u / 2 and - u / 2)."""
    n = rng.integers(15, 121, size=(d, g))
    acc = rng.beta(3.0, 2.0, size=(d, g))
    u = rng.normal(0.0, 0.05, size=(d, g))
    a = rng.binomial(n, np.clip(acc - u / 2, 0, 1))
    b = rng.binomial(n, np.clip(acc + delta + u / 2, 0, 1))
    return a.astype(float), b.astype(float), n.astype(float)


def _jackknife_diff(a, b, n):
    """B - A accuracy, its delete-one-paper jackknife se and t df (D,)."""
    g = n.shape[1]
    est = (b.sum(1) - a.sum(1)) / n.sum(1)
    loo = ((b.sum(1, keepdims=True) - b) - (a.sum(1, keepdims=True) - a)) / (
        n.sum(1, keepdims=True) - n)
    se = np.sqrt((g - 1) / g * ((loo - loo.mean(1, keepdims=True)) ** 2).sum(1))
    return est, se, g - 1


def power_check(seed: int, draws: int) -> None:
    """The papers :func:`coresc.stats.papers_needed` asks for, from pilots of 20 papers,
    and how often that many papers then detect the difference (target: 80%)."""
    from coresc.stats import papers_needed

    rng = np.random.default_rng([seed, 36])
    print("\npaired accuracy, planning: papers needed from a pilot of 20 papers (median of "
          f"{draws}), and the share of {draws} comparisons of that many papers with the "
          "true difference that detect it (t interval excludes 0)\n")
    print("| true difference (points) | papers needed (median, pilots' 10-90%) | "
          "detected |\n| --- | --- | --- |")
    for delta in (0.02, 0.05):
        a, b, n = _paired_accuracy(rng, draws, 20, delta)
        _, se, _ = _jackknife_diff(a, b, n)
        need = np.array([papers_needed(s, 20, deltas=(delta,))[f"{100 * delta:g}"]
                         for s in se])
        n_star = int(np.median(need))
        a, b, n = _paired_accuracy(rng, draws, n_star, delta)
        est, se, df = _jackknife_diff(a, b, n)
        detected = float((est - st.t.ppf(0.975, df) * se > 0).mean())
        lo, hi = np.percentile(need, [10, 90])
        print(f"| {100 * delta:g} | {n_star} ({lo:.0f}-{hi:.0f}) | {100 * detected:.1f}% |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--draws", type=int, default=1000)
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    ap.add_argument("--designs", nargs="+",
                    default=["single", "stratified", "paired", "planning"])
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    print(f"<!-- {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {args.draws} draws, "
          f"{args.resamples} resamples, seed {args.seed} -->")
    for design in args.designs:
        if design == "planning":
            power_check(args.seed, args.draws)
            continue
        stratified, paired = design == "stratified", design == "paired"
        what = "rejects a true 0 (%)" if paired else "coverage (%)"
        cells = {}
        for g in args.sizes:
            t0 = time.time()
            truth = truths(rng, g, stratified) if not paired else {}
            if truth:
                print(f"<!-- {design} {g} papers: truth accuracy {truth['accuracy']:.4f}, "
                      f"macro-F1 {truth['macro_f1']:.4f} -->")
            cells[g] = run_cell(np.random.default_rng([args.seed, g, len(design)]), g,
                                args.draws, args.resamples, stratified, paired, truth)
            print(f"<!-- {design} {g} papers: {time.time() - t0:.0f} s -->", flush=True)
        for metric in ("accuracy", "macro_f1"):
            head = "| papers | " + " | ".join(METHODS) + (
                " | randomization p < 0.05 | t-jackknife excludes 0, p > 0.1 |" if paired
                else " | t-jackknife width (points) |")
            print(f"\n{design}, {metric}: {what}\n\n{head}")
            print("|" + " --- |" * (head.count("|") - 1))
            for g, (cov, more) in cells.items():
                m = cov[metric]
                vals = [100 * (1 - m[x]) if paired else 100 * m[x] for x in METHODS]
                row = f"| {g} | " + " | ".join(f"{v:.1f}" for v in vals)
                if paired:
                    row += (f" | {100 * more[metric]['rand']:.1f} | "
                            f"{100 * more[metric]['disagree']:.1f} |")
                else:
                    row += f" | {100 * more[metric]['width']:.1f} |"
                print(row, flush=True)

if __name__ == "__main__":
    main()
