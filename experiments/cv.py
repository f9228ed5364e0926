"""Cross-validation of the CoreSC classifier on the gold corpora (interim runner).

Setups (all labels gold):

* ``cra3``    CRA, 3 folds by paper, balanced by sentence count (largest first, greedy);
* ``art9``    ART, 9 folds = the release folders ann1..ann9;
* ``art9p``   ART, 9 folds by paper, balanced by sentence count (each mixes the release
  folders): how much of art9's difficulty is the folders' differing label habits;
* ``art2cra`` train on all of ART, test on all of CRA;
* ``cra3+art`` as cra3, with all of ART added to every training fold;
* ``art9+cra`` as art9, with all of CRA added to every training fold.

``--domains corpus,folder`` turns on domain feature augmentation
(``CoreSCClassifier.domains``): per-corpus copies for the ``+`` setups, per-release-folder
copies for ART (a test folder is never among its training folders, so it is decoded
with the shared weights).

Prints coresc.evaluation.format_report per setup, the per-label table next to the CRA
paper's Table 8 for cra3, and with ``--json FILE`` writes all results.
``--ablation`` runs cra3 once per feature group switched off (primary label only);
``--grid`` runs cra3 / art9 / art9p once per (c1, c2) pair (primary label only; Viterbi
unless ``--decode posterior``).

    nice -n 10 python experiments/cv.py cra3 art9 art2cra --json /tmp/cv.json
    nice -n 10 python experiments/cv.py --ablation --c1 0.05 --c2 0.3
    nice -n 10 python experiments/cv.py cra3 art9 --grid 0.05:0.3,0.1:1,0.5:5,1:5
    nice -n 10 python experiments/cv.py art9+cra --domains corpus,folder --c1 0.5 --c2 5
    nice -n 10 python experiments/cv.py art9 art9p --grid 0.5:5,2:20 --decode posterior
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from coresc.config import data_dir
from coresc.evaluation import evaluate_papers, format_report
from coresc.features import DEFAULT_FEATURES
from coresc.metrics import secondary_scores
from coresc.model import DECODINGS, CoreSCClassifier, balanced_folds, log
from coresc.readers import read_corpus

#: F1 per label of the CRA paper's CRF (3-fold CV on CRA, primary label), Table 8.
TABLE8_F1 = {"Bac": 76.7, "Con": 53.9, "Exp": 83.4, "Goa": 54.2, "Hyp": 13.9, "Met": 58.3,
             "Mod": 0.0, "Mot": 43.9, "Obj": 27.0, "Obs": 43.0, "Res": 68.3}


def load(name: str):
    root = data_dir()
    folder = {"cra": "cra-corpus", "art": "art-corpus"}[name]
    papers = read_corpus([root / folder])
    for p in papers:
        p.meta["corpus"] = name
    return papers


def cra_folds(papers) -> list[int]:
    return balanced_folds([len(p) for p in papers], 3)


def art_folds(papers) -> list[int]:
    names = sorted({Path(p.source_path).parent.name for p in papers})
    return [names.index(Path(p.source_path).parent.name) for p in papers]


def paper_folds(papers) -> list[int]:
    return balanced_folds([len(p) for p in papers], 9)


#: The cross-validations of one corpus: setup -> (corpus, fold of each paper).
SPLITS = {"cra3": ("cra", cra_folds), "art9": ("art", art_folds), "art9p": ("art", paper_folds)}


def crossval(papers, folds, params: dict, label: str, extra=()) -> dict:
    """Train on k-1 folds, annotate the held-out fold; score the pooled predictions.

    Also scores the unthresholded top-3 ranking (``result["ranking"]``: top-2/top-3
    recall of gold second labels). ``extra`` papers are added to every training fold.
    """
    k = max(folds) + 1
    t0 = time.monotonic()
    gold, ranked = [], []
    for f in range(k):
        train = [p for p, g in zip(papers, folds, strict=True) if g != f]
        test = [p for p, g in zip(papers, folds, strict=True) if g == f]
        model = CoreSCClassifier(**params).fit(train + list(extra))
        model.annotate(test)
        for paper, ranks in zip(test, model.rank(test), strict=True):
            for s, r in zip(paper.sentences(), ranks, strict=True):
                if s.gold:
                    gold.append(s.gold_codes)
                    ranked.append([p.label for p in r])
        left = (time.monotonic() - t0) / (f + 1) * (k - f - 1)
        log(f"{label}: fold {f + 1}/{k} done, {int(left) // 60}m{int(left) % 60:02d}s left")
    result = evaluate_papers(papers)
    result["ranking"] = secondary_scores(gold, ranked)
    return result


def run_setup(setup: str, params: dict) -> dict:
    t0 = time.monotonic()
    if setup in SPLITS:
        corpus, folds_of = SPLITS[setup]
        papers = load(corpus)
        result = crossval(papers, folds_of(papers), params, setup)
    elif setup == "cra3+art":
        papers = load("cra")
        result = crossval(papers, cra_folds(papers), params, setup, extra=load("art"))
    elif setup == "art9+cra":
        papers = load("art")
        result = crossval(papers, art_folds(papers), params, setup, extra=load("cra"))
    elif setup == "art2cra":
        train, test = load("art"), load("cra")
        model = CoreSCClassifier(**params).fit(train)
        model.annotate(test)
        result = evaluate_papers(test)
    else:
        raise SystemExit(f"unknown setup {setup!r} "
                         "(cra3, cra3+art, art9, art9p, art9+cra, art2cra)")
    result["seconds"] = round(time.monotonic() - t0, 1)
    return result


def sweep(setups: list[str], grid: str, params: dict) -> dict:
    """Accuracy and macro-F1 per (c1, c2) pair, primary label only."""
    pairs = [tuple(float(v) for v in item.split(":")) for item in grid.split(",")]
    results = {}
    print(f"{'setup':<8}{'c1':>6}{'c2':>6}{'accuracy':>10}{'macro F1':>10}")
    for setup in setups:
        if setup not in SPLITS:
            raise SystemExit(f"--grid runs {', '.join(SPLITS)}, not {setup!r}")
        corpus, folds_of = SPLITS[setup]
        papers = load(corpus)
        folds = folds_of(papers)
        for c1, c2 in pairs:
            name = f"{setup} c1={c1} c2={c2}"
            r = results[name] = primary_only(papers, folds, {**params, "c1": c1, "c2": c2},
                                             name)
            print(f"{setup:<8}{c1:>6}{c2:>6}{r['accuracy']:>10.4f}{r['macro_f1']:>10.4f}",
                  flush=True)
    return results


def primary_only(papers, folds, params: dict, label: str) -> dict:
    """Accuracy and macro-F1 of a cross-validation without the secondary layer.

    Decoding is ``params["decode"]`` unless that is "balanced", whose biases need an inner
    CV: then Viterbi.
    """
    decode = "viterbi" if params["decode"] == "balanced" else params["decode"]
    r = crossval(papers, folds, {**params, "secondary": False, "decode": decode}, label)
    return {"accuracy": r["primary"]["accuracy"], "macro_f1": r["primary"]["macro_f1"]}


def table8(result: dict) -> str:
    lines = ["label    P      R      F1     F1 (paper's Table 8)"]
    for lab, s in sorted(result["primary"]["per_label"].items()):
        lines.append(f"{lab:<6} {s['precision']:.3f}  {s['recall']:.3f}  {s['f1']:.3f}  "
                     f"{TABLE8_F1.get(lab, float('nan')) / 100:.3f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("setups", nargs="*", default=["cra3"])
    ap.add_argument("--c1", type=float)
    ap.add_argument("--c2", type=float)
    ap.add_argument("--max-iterations", type=int, default=150)
    ap.add_argument("--features", default=",".join(DEFAULT_FEATURES))
    ap.add_argument("--no-secondary", action="store_true")
    ap.add_argument("--decode", choices=DECODINGS, default="balanced",
                    help="primary-label decoding; 'posterior' and 'viterbi' need no inner "
                         "CV when c1/c2 are given and there is no secondary layer")
    ap.add_argument("--stack", action="store_true",
                    help="a second CRF on the first one's out-of-fold marginals in context")
    ap.add_argument("--inner-folds", type=int, default=3)
    ap.add_argument("--domains", default="",
                    help="domain feature augmentation by 'corpus' and/or 'folder'")
    ap.add_argument("--ablation", action="store_true",
                    help="cra3 with each feature group off in turn (and n-grams only)")
    ap.add_argument("--drop", help="with --ablation: only these bundles off, e.g. "
                                   "'verbs+verbclass+syntax,context' (default: each group, "
                                   "plus the all / ngrams-only rows)")
    ap.add_argument("--grid", help="regularisation sweep: the setups (cra3, art9, art9p) once "
                                   "per c1:c2 pair, e.g. '0.1:1,0.5:5' (primary only)")
    ap.add_argument("--json", help="write all results to this file")
    args = ap.parse_args(argv)
    params = {"c1": args.c1, "c2": args.c2, "max_iterations": args.max_iterations,
              "features": tuple(args.features.split(",")),
              "secondary": not args.no_secondary, "decode": args.decode, "stack": args.stack,
              "inner_folds": args.inner_folds, "verbose": False,
              "domains": tuple(d for d in args.domains.split(",") if d)}
    results = {}
    if args.ablation:
        papers = load("cra")
        folds = cra_folds(papers)
        if args.drop:
            bundles = [b.split("+") for b in args.drop.split(",")]
            configs = [("- " + "+".join(b), tuple(x for x in params["features"] if x not in b))
                       for b in bundles]
        else:
            configs = [("all groups", params["features"]), ("ngrams only", ("ngrams",))]
            configs += [(f"- {g}", tuple(x for x in params["features"] if x != g))
                        for g in params["features"]]
        print(f"{'features':<28}{'accuracy':>10}{'macro F1':>10}")
        for name, groups in configs:
            r = results[name] = primary_only(papers, folds, {**params, "features": groups},
                                             name)
            print(f"{name:<28}{r['accuracy']:>10.4f}{r['macro_f1']:>10.4f}", flush=True)
    elif args.grid:
        results = sweep(args.setups, args.grid, params)
    else:
        for setup in args.setups:
            r = run_setup(setup, params)
            results[setup] = r
            print(f"== {setup} ({r['seconds']}s) params {json.dumps(params)}")
            print(format_report(r))
            if setup.startswith("cra3"):
                print(table8(r))
                rk = r["ranking"]
                print(f"ranking (no thresholds): top-2 recall {rk['top2_recall']:.3f}, "
                      f"top-3 recall {rk['top3_recall']:.3f} of {rk['n_gold_second']}")
            sys.stdout.flush()
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
