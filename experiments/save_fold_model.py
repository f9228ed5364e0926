"""Train and save the model of one fold of an experiment config, as the runner trains it.

    python experiments/save_fold_model.py OUT_DIR [--config cra-3fold-encoder] [--fold 1]

The same papers, folds and settings as ``coresc experiment CONFIG`` (so with an encoder
every fine-tuning is found in the encoder cache, ``$CORESC_CACHE_DIR``, after a run of
the config); used for the encoder tier's speed and trade-off figures in
docs/benchmarks.md (``benchmarks/encoder_speed.py``, ``benchmarks/encoder_tradeoff.py``),
which need a real trained model and its fold's held-out papers.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from coresc.errors import UsageError
from coresc.experiments import fold_papers, load_config, new_model
from coresc.model import log


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--config", default="cra-3fold-encoder")
    ap.add_argument("--fold", type=int, default=1, help="1-based, as the runner names them")
    args = ap.parse_args(argv)
    try:
        cfg = load_config(args.config)
        fold, train, test = fold_papers(cfg, args.fold)
    except UsageError as exc:
        ap.error(str(exc))
    log(f"{args.config} {fold.name}: training on {len(train)} papers ({len(test)} held out)")
    model = new_model(cfg)
    t0 = time.monotonic()
    model.fit(train)
    model.meta_["command"] = " ".join(["python", "experiments/save_fold_model.py",
                                       *(argv if argv is not None else sys.argv[1:])])
    model.save(args.out)
    log(f"saved {args.out} ({time.monotonic() - t0:.0f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
