"""Run an experiment config (cross-validation, cross-corpus ...) and record it in MLflow.

CONFIG is a YAML file or the name of a config: one in ./experiments/ of the working
directory, else one shipped with coresc (art-9fold, cra-3fold, art-to-cra, cra-to-art,
art+cra-to-oa-stm, oa-stm-leave-one-domain-out, csabstruct, ...).
The config is checked before any training. Runs go where mlflow.yaml says (default: a
local sqlite store, no server needed); MLFLOW_TRACKING_URI overrides it. Progress goes to
stderr; the headline numbers go to stdout. Ctrl-C ends the MLflow runs as KILLED.

Examples:
  coresc experiment cra-3fold
  coresc experiment my-experiment.yaml --jobs 1
  MLFLOW_TRACKING_URI=http://127.0.0.1:5000 coresc experiment art-to-cra --local-fallback
"""

from __future__ import annotations

import argparse

from ..errors import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", nargs="+", metavar="CONFIG",
                        help="config file or name (several run one by one)")
    parser.add_argument("--jobs", "-j", type=int, default=None,
                        help="folds run at the same time (default 2, fewer if memory is short)")
    parser.add_argument("--local-fallback", action="store_true",
                        help="if the tracking server is unreachable, use the local store")
    parser.add_argument("--no-models", action="store_true",
                        help="do not log the trained fold models as MLflow models")
    parser.add_argument("--max-papers", type=int, default=None, metavar="N",
                        help="use only the first N papers of each corpus (quick checks)")
    parser.add_argument("--check", action="store_true",
                        help="validate the config(s) and the folds, train nothing")


def run(args: argparse.Namespace) -> int:
    from ..extras import require

    # Before any work, not after the folds have trained. --check reads the configs (YAML)
    # and the corpora but trains and logs nothing, so it needs no MLflow or matplotlib.
    require("experiments", ("yaml",) if args.check else None)
    from ..experiments import load_config, make_folds, read_corpora, run_experiment, summary_line

    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if args.max_papers is not None and args.max_papers < 1:
        raise UsageError("--max-papers must be at least 1")
    # Validate every config first, so a typo in the third fails before the first trains.
    configs = [load_config(c) for c in args.config]
    if args.check:
        for cfg in configs:
            folds = make_folds(cfg, read_corpora(cfg, args.max_papers))
            print(f"{cfg.name}: ok, {len(folds)} fold(s): "
                  + ", ".join(f"{f.name} ({len(f.train)} train / {len(f.test)} test papers)"
                              for f in folds))
        return 0
    for cfg in configs:
        result = run_experiment(cfg, jobs=args.jobs, local_fallback=args.local_fallback,
                                log_models=not args.no_models, max_papers=args.max_papers)
        print(summary_line(result), flush=True)
    return 0
