"""Probe of `coresc train --from` (coresc.model.adapt): a source model adapted to k
reviewed papers of another corpus, scored on held-out papers of that corpus (gold).

The source is a model directory trained without the target corpus (e.g. a CRF-only ART
model: `coresc train ../shared/data/art-corpus -o /tmp/art-src --c1 0.5 --c2 5.0
--no-secondary`). The target's papers are shuffled with --seed; the first --held-out are
scored, the first k of the rest are the reviewed papers. Rows: the source alone (k = 0), a
CRF trained on the k papers alone (as the issue's probe: c1 0.5, c2 5.0, no secondary), and
each adaptation variant. Prints accuracy and macro-F1 of the primary label on the held-out
papers and the seconds each adaptation took (features of the reviewed papers, the source's
probabilities for them, the inner folds and the final fit; not reading files).

examples:
  python experiments/adapt_probe.py --source /tmp/art-src --k 5 15
  python experiments/adapt_probe.py --source /tmp/art-src --k 5 --variants default scale3
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from coresc.config import data_dir  # noqa: E402
from coresc.evaluation import evaluate_papers  # noqa: E402
from coresc.model import CoreSCClassifier  # noqa: E402
from coresc.model.adapt import adapt  # noqa: E402
from coresc.readers import read_corpus  # noqa: E402

#: The c1/c2 grid the first variants chose from (coresc's DEFAULT_GRID).
GRID2 = ((0.1, 1.0), (0.5, 5.0))


def _v(grid=GRID2, **source) -> dict:
    settings = {"scale": 1.0, "context": False, "decoded": False, "neighbours": 1}
    return {"source_settings": {**settings, **source}, "c_grid": grid, "decode": "balanced"}


#: Adaptation variants: keyword arguments of :func:`adapt`, spelt out in full so that a
#: row of docs/benchmarks.md reruns as it ran whatever the defaults become. ``default``
#: is adapt's defaults (scale 3, context, c1/c2 0.5/5.0, posterior decoding).
VARIANTS: dict[str, dict] = {
    "default": {},
    "scale1": _v(),
    "scale3": _v(scale=3.0),
    "scale5": _v(scale=5.0),
    "scale3-strong": _v(((0.5, 5.0), (1.0, 10.0), (2.0, 20.0)), scale=3.0),
    "scale3-neighbours0": _v(scale=3.0, neighbours=0),
    "scale1-min-freq1": {**_v(), "min_freq": 1},
    "scale3-context-decoded": _v(scale=3.0, context=True, decoded=True),
    "scale5-context-decoded": _v(scale=5.0, context=True, decoded=True),
    "scale3-context-grid2": _v(scale=3.0, context=True),
    "few-groups": {"features": ("location", "section", "cues", "heading", "zone"),
                   "decode": "balanced"},
    "balanced": {"decode": "balanced"},
    "balanced-scale5": {"source_settings": {"scale": 5.0}, "decode": "balanced"},
}


def score(model: CoreSCClassifier, papers) -> tuple[float, float]:
    model.annotate(papers)
    primary = evaluate_papers(papers)["primary"]
    return primary["accuracy"], primary["macro_f1"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", required=True, help="source model directory")
    ap.add_argument("--target", default=str(data_dir() / "cra-corpus"),
                    help="gold-labelled target corpus (default: the CRA corpus)")
    ap.add_argument("--k", type=int, nargs="+", default=[5, 15])
    ap.add_argument("--held-out", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--variants", nargs="+", default=["default"], choices=list(VARIANTS))
    ap.add_argument("--alone", action="store_true",
                    help="also a CRF trained on the k papers alone")
    args = ap.parse_args(argv)
    source = CoreSCClassifier.load(args.source)
    papers = sorted(read_corpus([args.target]), key=lambda p: p.id)
    random.Random(args.seed).shuffle(papers)
    held, pool = papers[: args.held_out], papers[args.held_out:]
    print(f"source {args.source}; target {args.target}: {len(held)} held-out papers, "
          f"pool {len(pool)}, seed {args.seed}")
    print("variant\tk\taccuracy\tmacro_f1\tseconds")
    acc, f1 = score(source, held)
    print(f"source alone\t0\t{acc:.4f}\t{f1:.4f}\t-", flush=True)
    for k in args.k:
        reviewed = pool[:k]
        if args.alone:
            t0 = time.monotonic()
            alone = CoreSCClassifier(features=source.features, c1=0.5, c2=5.0,
                                     secondary=False, verbose=False).fit(reviewed)
            took = time.monotonic() - t0
            acc, f1 = score(alone, held)
            print(f"alone\t{k}\t{acc:.4f}\t{f1:.4f}\t{took:.1f}", flush=True)
        for name in args.variants:
            t0 = time.monotonic()
            model = adapt(source, reviewed, verbose=False, **VARIANTS[name])
            took = time.monotonic() - t0
            acc, f1 = score(model, held)
            print(f"{name}\t{k}\t{acc:.4f}\t{f1:.4f}\t{took:.1f}\t"
                  f"c1={model.c1_} c2={model.c2_}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
