"""Speed of the intervals over papers (coresc/stats.py) at ART's size, on one core.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bootstrap_speed.py

Builds gold and predicted label lists for 225 papers / 35,000 sentences (synthetic: 11
CoreSC codes, a sixth of the sentences with a second label, 60% of primaries right), then
times building the per-paper table once, the intervals of every score (accuracy,
macro-F1, per-label F1, the five kappas micro and macro: each paper left out in turn)
and a paired comparison. Issue 31's target: under 5 s. (Named for the bootstrap it timed
before issue 36; the coverage of the interval is benchmarks/interval_coverage.py's.)
"""

from __future__ import annotations

import argparse
import random
import time

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
    args = ap.parse_args(argv)
    t_import = time.perf_counter()
    import scipy.special  # noqa: F401  (the t quantiles; loaded once per process)

    print(f"loading scipy.special (once per process): {time.perf_counter() - t_import:.2f} s")
    gold, pred_a, pred_b = corpus(args.papers, args.sentences)
    t0 = time.perf_counter()
    table_a, table_b = stats.paper_tables(gold, [pred_a, pred_b])
    t1 = time.perf_counter()
    result = stats.intervals(table_a)
    t2 = time.perf_counter()
    stats.paired(table_a, table_b)
    t3 = time.perf_counter()
    print(f"{args.papers} papers, {table_a.n_sentences} sentences, "
          f"{len(result['ci'])} scores")
    print(f"per-paper table (two labellings, once): {t1 - t0:.2f} s")
    print(f"intervals of every score (each paper left out in turn): {t2 - t1:.2f} s")
    print(f"paired comparison (both sides and the difference): {t3 - t2:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
