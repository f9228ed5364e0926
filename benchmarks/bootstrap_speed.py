"""Speed of the paper bootstrap (coresc/stats.py) at ART's size, on one core.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bootstrap_speed.py

Builds gold and predicted label lists for 225 papers / 35,000 sentences (synthetic: 11
CoreSC codes, a sixth of the sentences with a second label, 60% of primaries right), then
times building the per-paper table once and 2,000 resamples of every score (accuracy,
macro-F1, per-label F1, the five kappas micro and macro), and a paired comparison
(2,000 bootstrap resamples plus 2,000 randomizations). Issue 31's target: the resamples
in under 5 s. ``--coverage`` also prints the coverage of the 95% interval in the
simulation of tests/test_stats.py (the same function the test asserts on), resampling
papers and, for contrast, sentences.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import time
from pathlib import Path

from coresc import stats

CODES = ["Bac", "Con", "Exp", "Goa", "Hyp", "Met", "Mod", "Mot", "Obj", "Obs", "Res"]


def corpus(n_papers: int, n_sentences: int, seed: int = 0):
    rnd = random.Random(seed)
    per = n_sentences // n_papers
    gold, pred_a, pred_b = {}, {}, {}
    for i in range(n_papers):
        k = f"p{i}"
        gold[k], pred_a[k], pred_b[k] = [], [], []
        for _ in range(per + (1 if i < n_sentences % n_papers else 0)):
            g = rnd.sample(CODES, 2 if rnd.random() < 1 / 6 else 1)
            gold[k].append(g)
            for side in (pred_a, pred_b):
                side[k].append(list(g) if rnd.random() < 0.6 else [rnd.choice(CODES)])
    return gold, pred_a, pred_b


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--papers", type=int, default=225)
    ap.add_argument("--sentences", type=int, default=35000)
    ap.add_argument("--resamples", type=int, default=stats.N_RESAMPLES)
    ap.add_argument("--coverage", action="store_true")
    args = ap.parse_args(argv)
    if args.coverage:
        simulation_coverage()
    gold, pred_a, pred_b = corpus(args.papers, args.sentences)
    t0 = time.perf_counter()
    table_a, table_b = stats.paper_tables(gold, [pred_a, pred_b])
    t1 = time.perf_counter()
    result = stats.intervals(table_a, n_resamples=args.resamples)
    t2 = time.perf_counter()
    stats.paired(table_a, table_b, n_resamples=args.resamples)
    t3 = time.perf_counter()
    print(f"{args.papers} papers, {table_a.n_sentences} sentences, "
          f"{args.resamples} resamples, {len(result['ci'])} scores each")
    print(f"per-paper table (two labellings, once): {t1 - t0:.2f} s")
    print(f"intervals of every score: {t2 - t1:.2f} s")
    print(f"paired comparison (bootstrap + randomization, both sides): {t3 - t2:.2f} s")
    return 0


def simulation_coverage() -> None:
    path = Path(__file__).resolve().parents[1] / "tests" / "test_stats.py"
    spec = importlib.util.spec_from_file_location("test_stats", path)
    sim = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sim)
    for unit, draws, resamples in (("paper", 1000, 1000), ("sentence", 200, 400)):
        t0 = time.perf_counter()
        cov = sim.coverage(unit, draws=draws, n_resamples=resamples)
        print(f"coverage of the 95% interval, resampling {unit}s: {100 * cov:.1f}% of "
              f"{draws} simulated corpora ({resamples} resamples each; "
              f"{time.perf_counter() - t0:.1f} s)")


if __name__ == "__main__":
    raise SystemExit(main())
