"""Rare labels under `coresc train --from` (issue 38): today's adaptation against ways of
keeping what the source knows about labels the reviewed papers barely show.

Set-up (the issue's): a source model trained without the target corpus (e.g. a CRF-only
ART model: `coresc train ../shared/data/art-corpus -o /tmp/art-src --c1 0.5 --c2 5.0
--no-secondary`); the target's papers sorted by id and shuffled with each --seed; the
first --held-out are scored, the rest are the pool; `coresc select` with the source (or a
seeded random order, --choose random) picks k of the pool, whose gold labels are the
reviewed papers; `adapt()` as `train --from` runs it, with `mix: false` (phase 2 mixes
as adapt() does) and no secondary layer (it does not change the primary label).

Phase 1 (slow, cached as JSON in --cache): per seed and k, the adapted CRF's marginals and
the source's marginals on the held-out papers, and on the reviewed papers the adapted
model's out-of-fold marginals from adapt()'s own inner folds (captured, not recomputed)
beside the source's. Phase 2 (fast): each method's primary labels from those, scored
with coresc's intervals over held-out papers (coresc.evaluation.score_label_lists).

Methods (T: reviewed sentences of a label at which both models weigh the same):
  today        the adapted CRF's largest marginal (adapt's decoding before issue 38)
  floor        today, but wherever the source's decoded label is Hyp, Goa, Mot or Mod,
               the source's label (adapt-evidence.md's fixed rule)
  count-T      per label l, p = w_l * adapted + (1 - w_l) * source marginals,
               w_l = n_l / (n_l + T), n_l the reviewed sentences labelled l; largest p
  count-cv     count-T with T chosen on the reviewed papers' out-of-fold marginals
               (accuracy + macro-F1, as the decoding biases are tuned)
  mix-T        count-T against the source as it decodes (its marginals times exp of its
               label biases, coresc.model.mixing); mix-30 was adapt()'s in issue 38
  absent-C     mix-30, with the source's view of each label the reviewed papers never
               show scaled by C / (e + C), e the sentences of it the source expected
               among their labelled ones (coresc.model.mixing.absent_scale); absent-10
               is adapt()'s since (the default of its source setting ``mix``)

Macro-F1 is coresc's (the labels in gold or predicted: predicting a label the held-out
papers lack adds a 0) and, in brackets in the summary, over the gold labels only.

examples:
  python experiments/adapt_rare.py --source /tmp/art-src --k 5 15 --seeds 0
  python experiments/adapt_rare.py --source /tmp/art-src --k 5 15 --seeds 0 1 2 \
      --methods today floor count-cv --labels
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from coresc.config import data_dir  # noqa: E402
from coresc.evaluation import score_label_lists  # noqa: E402
from coresc.labels import sort_key  # noqa: E402
from coresc.model import CoreSCClassifier  # noqa: E402
from coresc.model import training as _training  # noqa: E402
from coresc.model.adapt import adapt  # noqa: E402
from coresc.model.mixing import (  # noqa: E402
    ABSENT_C,
    MIX_T,
    absent_scale,
    decoding_view,
    expected_counts,
    label_counts,
    mix_marginals,
    mix_weights,
)
from coresc.readers import read_corpus  # noqa: E402
from coresc.selection import select_papers  # noqa: E402

RARE = ("Hyp", "Goa", "Mot", "Mod")
T_GRID = (0.0, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1000.0)


# ------------------------------------------------------------------ phase 1

def _capture_oof() -> None:
    """Keep adapt()'s inner-fold marginals on the model (read by phase 1)."""
    orig = _training.inner_cv

    def capture(model, X, labels, folds, grid):
        best, scores, oof = orig(model, X, labels, folds, grid)
        model._oof_capture = [None if o is None else o[1] for o in oof]
        return best, scores, oof

    _training.inner_cv = capture


def _as_matrix(marg: list[dict[str, float]], labels: list[str]) -> list[list[float]]:
    return [[round(float(m.get(lab, 0.0)), 6) for lab in labels] for m in marg]


def _cols(arr: np.ndarray, have: list[str], labels: list[str]) -> list[list[float]]:
    out = np.zeros((arr.shape[0], len(labels)))
    for j, lab in enumerate(have):
        out[:, labels.index(lab)] = arr[:, j]
    return np.round(out, 6).tolist()


def _gold(p) -> list[str]:
    return [s.gold[0].code if s.gold else "" for s in p.sentences()]


def _decoded(model, papers) -> list[list[str]]:
    model.annotate(papers)
    return [[s.pred_codes[0] if s.pred else "-" for s in p.sentences()] for p in papers]


def compute(args, source, labels, held, pool, seed: int, cache: Path) -> dict:
    path = cache / f"{args.choose}-seed{seed}.json"
    if path.exists():
        data = json.loads(path.read_text())
        if all(str(k) in data["k"] for k in args.k):
            return data
    else:
        data = {"labels": labels, "k": {}}
    if "held" not in data:
        t0 = time.monotonic()
        data["held"] = {
            "ids": [p.id for p in held], "gold": [_gold(p) for p in held],
            "source": [_cols(m, list(source.labels_), labels)
                       for m in source.marginals(held)],
            "source_decoded": _decoded(source, held)}
        print(f"seed {seed}: source on held-out ({time.monotonic() - t0:.0f}s)", flush=True)
    order = choose_order(args.choose, source, pool, max(args.k), seed)
    for k in args.k:
        if str(k) in data["k"]:
            continue
        reviewed = [pool[i] for i in order[:k]]
        t0 = time.monotonic()
        # unmixed (``mix: false``): phase 2 applies each method, mix-30 as adapt() does
        model = adapt(source, reviewed, secondary=False, verbose=False,
                      source_settings={"mix": False})
        took = time.monotonic() - t0
        oof = getattr(model, "_oof_capture", None) or [None] * len(reviewed)
        data["k"][str(k)] = {
            "seconds": round(took, 1), "reviewed": [p.id for p in reviewed],
            "adapted_labels": list(model.labels_),
            "held": [_cols(m, list(model.labels_), labels) for m in model.marginals(held)],
            "held_decoded": _decoded(model, held),
            "rev_gold": [_gold(p) for p in reviewed],
            "rev_source": [_cols(m, list(source.labels_), labels)
                           for m in source.marginals(reviewed)],
            "rev_oof": [None if o is None else _as_matrix(o, labels) for o in oof]}
        print(f"seed {seed} k={k}: adapted in {took:.0f}s", flush=True)
        path.write_text(json.dumps(data))
    path.write_text(json.dumps(data))
    return data


def choose_order(choose: str, source, pool, budget: int, seed: int) -> list[int]:
    """Pool indices in the order a rule reviews them."""
    if choose == "select":
        return [c.index for c in select_papers(source, pool, budget)]
    if choose == "random":
        return random.Random(f"{seed}/random").sample(range(len(pool)), len(pool))
    return rare_order(choose, source, pool, budget)


def rare_order(choose: str, source, pool, budget: int) -> list[int]:
    """Selection spending the budget where labels are weak: per sentence, each label's
    uncertainty p (1 - p) (``rare-unc``) or expected presence p (``rare-mass``) weighted by
    the inverse of the label's expected share of the pool (floored at 1%); per paper the
    mean over its sentences (``-rate``) or the sum; then coresc's greedy TF-IDF diversity."""
    from coresc.selection import Candidate, greedy_diverse, similarity_matrix

    margs = source.marginals(pool)
    share = np.concatenate(margs).mean(0)
    w = 1.0 / np.maximum(share, 0.01)
    w = w / w.sum()
    kind = choose.removesuffix("-rate")
    cands = []
    for i, (p, m) in enumerate(zip(pool, margs, strict=True)):
        per = m * (1 - m) if kind == "rare-unc" else m
        total = float((per * w).sum())
        n = max(len(m), 1)
        c = Candidate(i, p, total, n)
        c.utility = total / n if choose.endswith("-rate") else total
        cands.append(c)
    return [c.index for c in greedy_diverse(cands, similarity_matrix(pool), budget, 0.5)]


# ------------------------------------------------------------------ phase 2

def counts(gold: list[list[str]]) -> dict[str, int]:
    return label_counts(gold)


def weights(run: dict, labels: list[str], t: float) -> np.ndarray:
    w = mix_weights(counts(run["rev_gold"]), labels, labels, t)
    return np.array([w[lab] for lab in labels])


def objective(pred: np.ndarray, gold: np.ndarray, n_labels: int) -> float:
    """Accuracy + macro-F1 over the labels in ``gold`` (crf.tune_bias's objective)."""
    f1s = []
    for c in range(n_labels):
        n_gold = int(np.sum(gold == c))
        if n_gold:
            tp = int(np.sum((pred == c) & (gold == c)))
            f1s.append(2 * tp / (int(np.sum(pred == c)) + n_gold))
    return float(np.mean(pred == gold)) + float(np.mean(f1s))


def fit_t(run: dict, labels: list[str]) -> float:
    """count-cv: T chosen on adapt()'s out-of-fold marginals of the reviewed papers (ties:
    the larger T)."""
    a, s, y = [], [], []
    for oof, src, gold in zip(run["rev_oof"], run["rev_source"], run["rev_gold"],
                              strict=True):
        for j, g in enumerate(gold if oof is not None else []):
            if g in labels:
                a.append(oof[j])
                s.append(src[j])
                y.append(labels.index(g))
    if not y:
        return T_GRID[-1]
    a, s, y = np.array(a), np.array(s), np.array(y)
    best_t, best = T_GRID[-1], -1.0
    for t in sorted(T_GRID, reverse=True):
        score = objective(np.argmax(mix_marginals(a, s, weights(run, labels, t)), 1), y,
                          len(labels))
        if score > best + 1e-9:
            best_t, best = t, score
    return best_t


def predictions(method: str, data: dict, run: dict) -> tuple[list[list[str]], str]:
    """Each held-out paper's primary labels by ``method`` (see the module docstring)."""
    labels, held = data["labels"], data["held"]
    if method == "today":
        return run["held_decoded"], ""
    if method == "floor":
        return [[s if s in RARE else t for s, t in zip(src, ad, strict=True)]
                for src, ad in zip(held["source_decoded"], run["held_decoded"],
                                   strict=True)], ""
    name, _, t = method.partition("-")
    absent: dict[str, float] = {}
    if name == "absent" and t.replace(".", "", 1).isdigit():
        absent = absent_scale(counts(run["rev_gold"]), _expected(data, run), float(t))
        name, t = "mix", str(MIX_T)
    if name == "count" and t == "cv":
        t = fit_t(run, labels)
    elif name not in ("mix", "count") or not t.replace(".", "", 1).isdigit():
        raise SystemExit(f"unknown method {method}")
    w = weights(run, labels, float(t))
    bias = data["source_bias"] if name == "mix" else {}
    out = []
    for a, s in zip(run["held"], held["source"], strict=True):
        n = len(labels)
        view = decoding_view(np.array(s).reshape(-1, n), labels, bias, absent)
        p = mix_marginals(np.array(a).reshape(-1, n), view, w)
        out.append([labels[i] for i in np.argmax(p, 1)] if len(p) else [])
    return out, f"T={float(t):g}"


def _expected(data: dict, run: dict) -> dict[str, float]:
    """Sentences of each label the source expected among the reviewed labelled ones."""
    n = len(data["labels"])
    return expected_counts([np.array(s).reshape(-1, n) for s in run["rev_source"]],
                           run["rev_gold"], data["labels"], data["source_bias"])


def score(data: dict, pred: list[list[str]]) -> dict:
    gold_by, pred_by = {}, {}
    for pid, gold, pr in zip(data["held"]["ids"], data["held"]["gold"], pred, strict=True):
        gold_by[pid] = [[g] for g in gold if g]
        pred_by[pid] = [[p] for g, p in zip(gold, pr, strict=True) if g]
    return score_label_lists(gold_by, pred_by, intervals=True)["primary"]


def _ci(x, ci) -> str:
    return f"{100 * x:.1f} [{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]" if ci else f"{100 * x:.1f}"


def report(args, data: dict, seed: int, rows: list) -> None:
    labels = sorted(data["labels"], key=sort_key)
    src = score(data, data["held"]["source_decoded"])
    rows.append((seed, 0, "source", src))
    _print(seed, 0, "source", src, labels, "", args.labels)
    for k in args.k:
        run = data["k"][str(k)]
        for method in args.methods:
            pred, note = predictions(method, data, run)
            res = score(data, pred)
            rows.append((seed, k, method, res))
            _print(seed, k, method, res, labels, note, args.labels)


def _print(seed, k, method, res, labels, note, per_label) -> None:
    pl = res["per_label"]
    rare = " ".join(f"{lab} {100 * pl[lab]['f1']:.1f}" if lab in pl else f"{lab} -"
                    for lab in RARE)
    print(f"seed {seed}\tk={k}\t{method:10s}\tacc {_ci(res['accuracy'], res.get('accuracy_ci'))}"
          f"\tmacro-F1 {_ci(res['macro_f1'], res.get('macro_f1_ci'))}\t{rare}\t{note}",
          flush=True)
    if per_label:
        print("\t\t" + "  ".join(
            f"{lab} {_ci(pl[lab]['f1'], pl[lab].get('f1_ci'))}" for lab in labels if lab in pl))


def summary(args, rows: list) -> None:
    """Mean over seeds per k and method: accuracy, macro-F1 and each label's F1."""
    if len(args.seeds) < 2:
        return
    labels = sorted({lab for *_, r in rows for lab in r["per_label"]}, key=sort_key)
    print("\nmean over seeds " + ", ".join(map(str, args.seeds)))
    print("(a label's F1: mean over the splits whose held-out papers have it or where it "
          "is predicted; macro-F1 [over gold labels only])")
    print("k\tmethod\taccuracy\tmacro-F1\t" + "\t".join(labels))
    for k in [0, *args.k]:
        for method in ["source"] if k == 0 else args.methods:
            rs = [r for _, kk, m, r in rows if kk == k and m == method]
            f1 = [[r["per_label"][lab]["f1"] for r in rs if lab in r["per_label"]]
                  for lab in labels]
            print(f"{k}\t{method}\t{100 * np.mean([r['accuracy'] for r in rs]):.1f}\t"
                  f"{100 * np.mean([r['macro_f1'] for r in rs]):.1f} "
                  f"[{100 * np.mean([gold_macro(r) for r in rs]):.1f}]\t"
                  + "\t".join(f"{100 * np.mean(v):.1f}" if v else "-" for v in f1))


def gold_macro(res: dict) -> float:
    """Macro-F1 over the labels the held-out papers have."""
    return float(np.mean([s["f1"] for s in res["per_label"].values() if s["support"]]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", required=True, help="source model directory")
    ap.add_argument("--target", default=str(data_dir() / "cra-corpus"))
    ap.add_argument("--k", type=int, nargs="+", default=[5, 15])
    ap.add_argument("--held-out", type=int, default=20)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--choose", default="select",
                    choices=("select", "random", "rare-unc", "rare-unc-rate", "rare-mass",
                             "rare-mass-rate"))
    ap.add_argument("--methods", nargs="+",
                    default=["today", "floor", "count-30", "count-cv", f"mix-{MIX_T:g}",
                             f"absent-{ABSENT_C:g}"])
    ap.add_argument("--labels", action="store_true", help="every label's F1 with intervals")
    ap.add_argument("--cache", default="/tmp/adapt-rare-cache")
    args = ap.parse_args(argv)
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    _capture_oof()
    source = CoreSCClassifier.load(args.source)
    labels = sorted(source.labels_, key=sort_key)
    bias = dict(source.label_bias_) if source.decode == "balanced" else {}
    papers = sorted(read_corpus([args.target]), key=lambda p: p.id)
    rows: list = []
    for seed in args.seeds:
        order = list(papers)
        random.Random(seed).shuffle(order)
        held, pool = order[: args.held_out], order[args.held_out:]
        data = compute(args, source, labels, held, pool, seed, cache)
        data["source_bias"] = bias
        report(args, data, seed, rows)
    summary(args, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
