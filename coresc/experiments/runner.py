"""The runner: an experiment config end to end, folds in a process pool, every MLflow run
it opens ended FINISHED, FAILED or KILLED."""

from __future__ import annotations

import contextlib
import multiprocessing
import signal
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._util import _fmt_duration, _progress, _write_json
from .config import ExperimentConfig, load_config
from .curve import curve_line
from .folds import fold_assignment, make_folds, read_corpora
from .mlflow_log import _log_curve_parent, _log_fold, _log_metrics, _log_params, _log_parent
from .splits import Fold
from .workers import _STATE, FoldResult, _warm_feature_cache, _worker_init, choose_jobs, run_fold


@dataclass
class ExperimentResult:
    """What :func:`run_experiment` returns: the MLflow ids and the pooled metrics."""

    config: str
    run_id: str
    experiment_id: str
    tracking_uri: str
    metrics: dict[str, float]
    fold_metrics: dict[str, dict[str, float]]
    fold_run_ids: dict[str, str]
    wall_time: float
    silver: bool
    partial: str | None = None  # what part of the data a --max-papers trial used
    #: with ``seeds`` in the config: per headline metric, its value under each seed
    seed_spread: dict[str, list[float]] | None = None


class Terminated(KeyboardInterrupt):
    """SIGTERM, handled like Ctrl-C: runs end KILLED."""


@contextlib.contextmanager
def _sigterm_raises() -> Iterator[None]:
    if multiprocessing.current_process().name != "MainProcess" or \
            not _is_main_thread():
        yield
        return

    def handler(signum, frame):
        raise Terminated()

    old = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def _is_main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def run_experiment(config: str | Path | Mapping[str, Any] | ExperimentConfig, *,
                   jobs: int | None = None, local_fallback: bool = False,
                   settings=None, log_models: bool = True,
                   max_papers: int | None = None,
                   extra_tags: Mapping[str, str] | None = None) -> ExperimentResult:
    """Run an experiment config end to end and record it in MLflow.

    ``config``: a path, a config name (:func:`resolve_config_path`), a mapping or a loaded
    config.
    ``jobs``: folds run at the same time (default: 2, fewer when memory is short).
    ``local_fallback``: use the local sqlite store when the tracking server is down.
    ``settings``: :class:`coresc.tracking.TrackingSettings` (default: ``mlflow.yaml``).
    ``log_models``: log each fold's model as an MLflow pyfunc model.
    ``max_papers``: keep only the first N papers of every corpus (smoke tests).
    ``extra_tags``: more MLflow tags for the parent run.
    A config with ``seeds: [...]`` runs once per seed (one parent run each, tagged
    ``coresc.seed``); every one of them then logs the spread over the seeds
    (``seed_mean_*``, ``seed_std_*``, ``n_seeds``) and the result carries it.
    """
    from .. import tracking

    t0 = time.perf_counter()
    cfg = config if isinstance(config, ExperimentConfig) else load_config(config)
    if len(cfg.seeds) > 1:
        return _run_seeds(cfg, jobs=jobs, local_fallback=local_fallback, settings=settings,
                          log_models=log_models, max_papers=max_papers)
    # The tracking store first: an unreachable server should fail in seconds, not after
    # the corpora have been read.
    client, exp_id, settings = tracking.connect(settings, local_fallback=local_fallback)
    papers = read_corpora(cfg, max_papers)
    source, source_time = _curve_source(cfg, papers)
    folds = make_folds(cfg, papers, source)
    assignment = fold_assignment(cfg, folds, papers)
    test_corpora = {p.meta["corpus"] for f in folds for k in f.test for p in [papers[k]]}
    silver = any(cfg.corpora[c].labels == "silver" for c in test_corpora)
    jobs = choose_jobs(jobs, folds, papers, cfg.model.get("encoder") is not None)
    _progress(f"{cfg.name}: {len(folds)} fold(s), {len(papers)} papers, {jobs} job(s), "
              f"tracking {settings.tracking_uri}")

    tags = {"coresc.config": cfg.name, "coresc.kind": "experiment",
            "coresc.reference_labels": "silver" if silver else "gold",
            "mlflow.note.content": cfg.description or cfg.name, **(extra_tags or {})}
    if max_papers:  # a trial on part of the data must never pass for the real experiment
        tags["coresc.partial"] = f"first {max_papers} papers of each corpus"
        tags["mlflow.note.content"] = (f"PARTIAL RUN ({tags['coresc.partial']}). "
                                       + tags["mlflow.note.content"])
    seed_note = f" (seed {cfg.seed})" if "coresc.seed" in tags else ""
    parent = client.create_run(exp_id, tags=tags, run_name=cfg.name + seed_note
                               + (" (partial)" if max_papers else ""))
    pid = parent.info.run_id
    open_runs: dict[str, str] = {pid: "RUNNING"}
    fold_ids: dict[str, str] = {}
    params = cfg.params()
    params.update({"code_version": tracking.code_version(), "jobs": str(jobs),
                   "source_hash": tracking.source_hash(),
                   "reference_labels": "silver (SAPIENTA)" if silver else "gold",
                   "n_folds": str(len(folds)), "test_corpora": ",".join(sorted(test_corpora)),
                   "train_corpora": ",".join(sorted({papers[k].meta["corpus"]
                                                     for f in folds for k in f.train}))})
    if max_papers:
        params["max_papers"] = str(max_papers)
    status = "FAILED"
    try:
        with _sigterm_raises(), tempfile.TemporaryDirectory(prefix="coresc-exp-") as work:
            _log_params(client, pid, params)
            work_path = Path(work)
            (work_path / "parent").mkdir()
            _write_json(work_path / "parent" / "folds.json", assignment)
            _write_json(work_path / "parent" / "config.json", cfg.raw)
            for i, f in enumerate(folds):
                run = client.create_run(exp_id, run_name=f"{cfg.name}/{f.name}", tags={
                    "mlflow.parentRunId": pid, "coresc.config": cfg.name,
                    "coresc.kind": "fold", "coresc.fold": f.name,
                    "coresc.reference_labels": "silver" if silver else "gold"})
                fold_ids[f.name] = run.info.run_id
                open_runs[run.info.run_id] = "RUNNING"
                _log_params(client, run.info.run_id, {
                    **params, "fold": f.name, "fold_index": str(i),
                    "n_train_papers": str(len(f.train)), "n_test_papers": str(len(f.test)),
                    "train_sentences": str(assignment["folds"][i]["train_sentences"]),
                    "test_sentences": str(assignment["folds"][i]["test_sentences"]),
                    **{f"curve_{k}": str(v) for k, v in f.info.items()}})
            if source is None:  # a learning curve's source training analysed them
                _warm_feature_cache(cfg, papers)
            else:
                _STATE["source"] = source
            _STATE.update(papers=papers, folds=folds, config=cfg,
                          workdir=str(work_path) if log_models else None)
            results: dict[str, FoldResult] = {}
            fold_metrics: dict[str, dict[str, float]] = {}
            for res in _execute(folds, jobs, open_runs, fold_ids):
                run_id = fold_ids[res.name]
                fold = next(f for f in folds if f.name == res.name)
                fold_metrics[res.name] = _log_fold(client, run_id, cfg, fold, res, papers,
                                                   silver, work_path)
                results[res.name] = res
                client.set_terminated(run_id, "FINISHED")
                open_runs.pop(run_id)
            if source is None:
                metrics = _log_parent(client, pid, cfg, folds, results, fold_metrics, papers,
                                      silver, work_path)
            else:
                metrics = _log_curve_parent(client, pid, cfg, folds, fold_metrics, silver,
                                            work_path, source_time)
            metrics["wall_time_s"] = time.perf_counter() - t0
            client.log_metric(pid, "wall_time_s", metrics["wall_time_s"])
        status = "FINISHED"
    except KeyboardInterrupt:
        status = "KILLED"
        raise
    finally:
        _STATE.clear()
        from ..model import clear_cache

        clear_cache()  # the analyses hold references to every paper
        # Never leave a run RUNNING: a fold that raised is FAILED, the others share the
        # experiment's fate (KILLED on interrupt, FAILED on error).
        for run_id, run_status in list(open_runs.items()):
            with contextlib.suppress(Exception):
                client.set_terminated(run_id, status if run_status == "RUNNING" else run_status)
    _progress(f"{cfg.name}: done in {_fmt_duration(metrics['wall_time_s'])}; run {pid}")
    return ExperimentResult(cfg.name, pid, exp_id, settings.tracking_uri, metrics,
                            fold_metrics, fold_ids, metrics["wall_time_s"], silver,
                            tags.get("coresc.partial"))


def _curve_source(cfg: ExperimentConfig, papers) -> tuple[Any, float]:
    """A learning curve's source model (trained once, after every paper is analysed, so
    the forked workers inherit the analyses) and its training time; else (None, 0)."""
    if cfg.folds["kind"] != "learning-curve":
        return None, 0.0
    from .workers import train_source

    _warm_feature_cache(cfg, papers)
    return train_source(cfg, papers)


#: The metrics whose spread over seeds is logged and reported.
SEED_METRICS = ("accuracy", "macro_f1", "kappa_coresc1_micro", "silver_agreement",
                "silver_macro_f1")


def _run_seeds(cfg: ExperimentConfig, **kwargs: Any) -> ExperimentResult:
    """The experiment once per seed of ``cfg.seeds``; the spread logged on every run."""
    import dataclasses
    import statistics

    from .. import tracking

    group = ",".join(map(str, cfg.seeds))
    results = [run_experiment(dataclasses.replace(cfg, seed=s, seeds=()), **kwargs,
                              extra_tags={"coresc.seed": str(s), "coresc.seeds": group})
               for s in cfg.seeds]
    spread = {m: [r.metrics[m] for r in results] for m in SEED_METRICS
              if all(m in r.metrics for r in results)}
    logged = {"n_seeds": float(len(results))}
    for m, values in spread.items():
        logged[f"seed_mean_{m}"] = statistics.fmean(values)
        logged[f"seed_std_{m}"] = statistics.stdev(values)  # sample sd over the seeds
    # the store the runs went to (the local one when they fell back to it)
    settings = dataclasses.replace(kwargs.get("settings") or tracking.load_settings(),
                                   tracking_uri=results[0].tracking_uri)
    client, _, _ = tracking.connect(settings)
    for r in results:
        _log_metrics(client, r.run_id, logged)
        r.metrics.update(logged)
    last = results[-1]
    last.seed_spread = {"seeds": [float(s) for s in cfg.seeds], **spread}
    return last


def _execute(folds: Sequence[Fold], jobs: int, open_runs: dict[str, str],
             fold_ids: Mapping[str, str]) -> Iterator[FoldResult]:
    """Run the folds (in a fork pool when ``jobs > 1``), yielding results as they finish.

    A fold that raises marks its run FAILED before the error propagates.
    """
    done = 0
    fold_seconds: list[float] = []

    def report(res: FoldResult) -> None:
        nonlocal done
        done += 1
        fold_seconds.append(res.train_time + res.predict_time)
        # Remaining folds share the jobs; folds already under way make this an upper bound.
        mean = sum(fold_seconds) / len(fold_seconds)
        left = mean * (len(folds) - done) / jobs
        _progress(f"fold {done}/{len(folds)} done ({res.name}, train {res.train_time:.0f}s), "
                  f"{_fmt_duration(left)} left")

    if jobs <= 1:
        for i, f in enumerate(folds):
            _progress(f"fold {f.name}: training on {len(f.train)} papers")
            try:
                res = run_fold(i)
            except Exception:
                _mark(open_runs, fold_ids[f.name], "FAILED")
                raise
            report(res)
            yield res
        return
    ctx = multiprocessing.get_context("fork")
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_worker_init)
    try:
        pending = {pool.submit(run_fold, i): f for i, f in enumerate(folds)}
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in finished:
                f = pending.pop(fut)
                try:
                    res = fut.result()
                except Exception:
                    _mark(open_runs, fold_ids[f.name], "FAILED")
                    raise
                report(res)
                yield res
    finally:
        # On error or interrupt, stop the workers now instead of waiting for their folds.
        for proc in list(getattr(pool, "_processes", {}).values()):
            with contextlib.suppress(Exception):
                proc.terminate()
        pool.shutdown(wait=True, cancel_futures=True)


def _mark(open_runs: dict[str, str], run_id: str, status: str) -> None:
    open_runs[run_id] = status


def _ci(metrics: Mapping[str, float], name: str) -> str:
    low, high = metrics.get(f"{name}_ci_low"), metrics.get(f"{name}_ci_high")
    return "" if low is None or high is None else \
        f" [95% CI {low:.4f}-{high:.4f}, {int(metrics.get('n_papers', 0))} papers]"


def summary_line(result: ExperimentResult) -> str:
    """One line for stdout: the headline numbers of an experiment."""
    m = result.metrics
    if any(k.startswith("curve_") for k in m):
        head = curve_line(m, result.silver)
    elif result.silver:
        head = f"agreement with SAPIENTA (silver) {m['silver_agreement']:.4f}" \
               f"{_ci(m, 'silver_agreement')}, " \
               f"macro-F1 {m['silver_macro_f1']:.4f}"
    else:
        head = f"accuracy {m['accuracy']:.4f}{_ci(m, 'accuracy')}, " \
               f"macro-F1 {m['macro_f1']:.4f}, " \
               f"CoreSC1 kappa {m.get('kappa_coresc1_micro', float('nan')):.3f}, " \
               f"weighted kappa {m.get('kappa_weighted_micro', float('nan')):.3f}"
    if "ece_primary" in m:
        head += f", ECE {m['ece_primary']:.3f}"
    partial = f" PARTIAL RUN ({result.partial})," if result.partial else ""
    line = (f"{result.config}:{partial} {head}; {_fmt_duration(result.wall_time)}; "
            f"run {result.run_id}")
    spread = result.seed_spread
    if spread:
        name = "silver_agreement" if result.silver else "accuracy"
        seeds = ",".join(str(int(s)) for s in spread["seeds"])
        line += (f" (the last of seeds {seeds}: {name.replace('_', ' ')} mean "
                 f"{m[f'seed_mean_{name}']:.4f}, sd {m[f'seed_std_{name}']:.4f} over the "
                 "seeds)")
    return line
