"""Fold work: train and predict one fold (in this process or a forked worker), and how
many folds to run at once."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ._util import _progress
from .config import ExperimentConfig
from .folds import make_folds, read_corpora
from .splits import Fold

# Papers are shared with forked workers through this global (lxml trees do not pickle).
_STATE: dict[str, Any] = {}


@dataclass
class FoldResult:
    name: str
    predictions: dict[str, list[list[tuple[str, float]]]]  # paper key -> sentences -> ranked
    train_time: float
    predict_time: float
    model_dir: str | None


def _worker_init() -> None:
    # The parent handles Ctrl-C and terminates the pool; workers must not each print one.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def new_model(cfg: ExperimentConfig):
    """The untrained model every fold of ``cfg`` trains (a :class:`CoreSCClassifier`)."""
    from ..model import CoreSCClassifier

    return CoreSCClassifier(features=cfg.features, seed=cfg.seed, **cfg.model)


def train_source(cfg, papers: Mapping[str, Any]):
    """The source model: trained once on every paper of the source corpora."""
    from .curve import source_keys

    keys = source_keys(cfg, papers)
    _progress(f"source model: training on {len(keys)} papers of "
              f"{', '.join(cfg.folds['source'])}")
    start = time.perf_counter()
    model = new_model(cfg)
    model.fit([papers[k] for k in keys])
    return model, time.perf_counter() - start


def fold_papers(cfg: ExperimentConfig, number: int) -> tuple[Fold, list, list]:
    """Fold ``number`` of ``cfg`` (1-based, as the runner names them): the fold, its
    training papers and its test papers, read as the runner reads them."""
    papers = read_corpora(cfg)
    folds = make_folds(cfg, papers)
    if not 1 <= number <= len(folds):
        raise UsageError(f"{cfg.name}: no fold {number} (it has folds 1 to {len(folds)})")
    fold = folds[number - 1]
    return fold, [papers[k] for k in fold.train], [papers[k] for k in fold.test]


def run_fold(index: int) -> FoldResult:
    """Train on fold ``index``'s training papers, predict its test papers, save the model."""
    papers, fold, cfg = _STATE["papers"], _STATE["folds"][index], _STATE["config"]
    start = time.perf_counter()
    if "source" in _STATE:  # a learning curve: adapt the source model trained once
        from .curve import run_curve_fold

        model = run_curve_fold(fold, papers, _STATE["source"], cfg.folds["adapt"])
    else:
        model = new_model(cfg)
        model.fit([papers[k] for k in fold.train])
    train_time = time.perf_counter() - start
    test = [papers[k] for k in fold.test]
    start = time.perf_counter()
    preds = model.predict(test)
    predict_time = time.perf_counter() - start
    model_dir = None
    if _STATE.get("workdir"):
        model_dir = str(Path(_STATE["workdir"]) / f"model-{index}")
        model.save(model_dir)
    return FoldResult(
        name=fold.name,
        predictions={k: [[(p.label, float(p.score)) for p in ranked] for ranked in sent_preds]
                     for k, sent_preds in zip(fold.test, preds, strict=True)},
        train_time=train_time, predict_time=predict_time, model_dir=model_dir,
    )


def _warm_feature_cache(cfg: ExperimentConfig, papers: Mapping[str, Any]) -> None:
    """Tokenise and POS-tag every paper once, before the workers fork.

    The model caches these analyses per paper object, so forked workers inherit them
    instead of redoing them in every fold (ART's papers are each in 8 training folds).
    """
    from ..model import CoreSCClassifier

    t0 = time.perf_counter()
    CoreSCClassifier(features=cfg.features, verbose=False).featurize(list(papers.values()))
    _progress(f"analysed {len(papers)} papers ({time.perf_counter() - t0:.0f}s)")


def choose_jobs(requested: int | None, folds: Sequence[Fold], papers,
                encoder: bool = False) -> int:
    """Parallel folds: at most the cores, the folds, and what memory allows.

    Memory per fold is estimated generously from the training sentences (crfsuite and
    the feature dicts): 1.5 GB + 0.1 GB per 1,000 training sentences. Folds that
    fine-tune an encoder run one at a time unless asked otherwise: torch already uses
    every core, and two folds would only fight over them.
    """
    cores = os.cpu_count() or 1
    jobs = requested if requested else (1 if encoder else min(2, cores))
    biggest = max(sum(len(papers[k]) for k in f.train) for f in folds)
    need_gb = 1.5 + 0.1 * biggest / 1000
    avail_gb = _available_memory_gb()
    if avail_gb is not None:
        jobs = min(jobs, max(1, int(avail_gb // need_gb)))
    return max(1, min(jobs, len(folds)))


def _available_memory_gb() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / 1024 / 1024
    except OSError:
        return None
    return None
