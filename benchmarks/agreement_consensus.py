"""Agreement and consensus on the CRA gold: sanity, simulated annotators, speed.

The CRA corpus ships only its consensus gold (the three annotators' own files are not
distributed), so the annotators are simulated: each is the gold with ``--redraw`` of
its sentences given a random primary label and ``--add`` given one extra label (seeded,
deterministic). Printed, for each noise level:

* the pairwise agreement of the simulated annotators (five kappas, micro and macro),
  to compare with the paper's Table 5 for the real annotators;
* the consensus rule counts (how each sentence was decided);
* how much of the gold the consensus recovers (exact label lists, first label) and its
  five kappas against the gold, next to the best single annotator's;

then the time to compute all five measures on the whole corpus (gold vs itself, which
must give 1.0 everywhere). Labels compared: CRA gold (human consensus) vs simulated.

    python benchmarks/agreement_consensus.py [--data ../shared/data] [--noise 0.15 0.3]
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

from coresc.agreement import AnnotationSet, compare, load_set
from coresc.config import data_dir
from coresc.consensus import RULES, build_consensus
from coresc.document import Label
from coresc.metrics import MEASURES

LABELS = ("Bac", "Met", "Res", "Exp", "Obs", "Con", "Obj", "Mot", "Goa", "Hyp", "Mod")


def simulated(cra: Path, name: str, redraw: float, add: float, seed: int) -> AnnotationSet:
    annotator = load_set(cra, name=name)
    rng = random.Random(seed)
    for paper in annotator.papers.values():
        for s in paper.sentences():
            if not s.gold:
                continue
            if rng.random() < redraw:
                s.gold = [Label(rng.choice(LABELS)), *s.gold[1:]]
                s.gold = [lab for i, lab in enumerate(s.gold)
                          if lab.code not in [x.code for x in s.gold[:i]]]
            if rng.random() < add and len(s.gold) < 3:
                s.gold = [*s.gold, Label(rng.choice([x for x in LABELS
                                                      if x not in s.gold_codes]))]
    return annotator


def row(name: str, result: dict, avg: str = "micro") -> str:
    return f"  {name:<24}{avg:<7}" + "".join(f"{result[avg][m]:>9.3f}" for m in MEASURES)


def header() -> str:
    return f"  {'':<24}{'':<7}" + "".join(f"{m:>9}" for m in MEASURES)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--noise", type=float, nargs="+", default=[0.15, 0.30],
                        help="share of sentences whose primary label is redrawn")
    parser.add_argument("--add", type=float, default=0.10,
                        help="share of sentences given an extra label")
    args = parser.parse_args()
    cra = (args.data or data_dir()) / "cra-corpus"
    gold = load_set(cra, name="gold")
    for noise in args.noise:
        print(f"\n== simulated annotators: {noise:.0%} primary labels redrawn, "
              f"{args.add:.0%} given an extra label (seeds 1, 2, 3)")
        anns = [simulated(cra, f"A{i}", noise, args.add, seed=i) for i in (1, 2, 3)]
        print(header())
        for i, a in enumerate(anns):
            for b in anns[i + 1:]:
                r = compare(a, b)
                print(row(f"{a.name} - {b.name}", r))
                print(row("", r, "macro"))
        truth = {pid: [s.gold_codes for s in p.sentences()] for pid, p in gold.papers.items()}
        n_gold = sum(bool(t) for lists in truth.values() for t in lists)
        # before the consensus, which writes its result into the first set's papers
        singles = [compare(gold, a) for a in anns]
        single_exact = [sum(t == s.gold_codes for p in a.papers.values()
                            for t, s in zip(truth[p.id], p.sentences(), strict=True) if t)
                        / n_gold for a in anns]
        result = build_consensus(anns)
        print(f"  consensus (reliable {result.reliable}): " + ", ".join(
            f"{rule} {result.counts.get(rule, 0)}" for rule in RULES))
        pairs = [(t, s.gold_codes) for p in result.papers
                 for t, s in zip(truth[p.id], p.sentences(), strict=True) if t]
        exact = sum(t == g for t, g in pairs) / len(pairs)
        first = sum(bool(g) and t[0] == g[0] for t, g in pairs) / len(pairs)
        print(f"  consensus recovers {exact:.1%} of gold label lists exactly, {first:.1%} "
              f"of first labels (single annotators: "
              + ", ".join(f"{x:.1%}" for x in single_exact) + " exact)")
        cons = AnnotationSet("consensus", {p.id: p for p in result.papers})
        print(header())
        print(row("gold - consensus", compare(gold, cons)))
        best = max(singles, key=lambda r: r["micro"]["weighted"])
        print(row(f"gold - best single ({best['b']})", best))
    same = load_set(cra, name="gold again")
    t0 = time.perf_counter()
    r = compare(gold, same)
    elapsed = time.perf_counter() - t0
    ok = all(r[avg][m] == 1.0 for avg in ("micro", "macro") for m in MEASURES)
    print(f"\n== CRA gold vs itself: {r['n_papers']} papers, {r['n_sentences']} sentences, "
          f"all ten kappas 1.0: {ok}; alignment + five measures micro and macro in "
          f"{elapsed:.2f} s")


if __name__ == "__main__":
    main()
