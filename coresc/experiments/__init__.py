"""Experiments: a YAML config -> folds -> trained models -> metrics, tracked in MLflow.

A config names (the shipped ones are ``coresc/configs/*.yaml``; a bare name is looked up
in ``./experiments/`` first, then among them, see :func:`resolve_config_path`)

* ``corpora``: ``name: {path, labels}``, paths relative to :func:`coresc.config.data_dir`;
  ``labels`` is ``gold`` or ``silver`` (default: silver under ``oa-stm/coresc-auto``,
  else gold). Scores on silver labels are *agreement with SAPIENTA*, never accuracy,
  and their metric names say so (``silver_agreement``, ``silver_macro_f1`` ...);
* ``folds``: one of

  - ``{kind: dirs, corpus: art, dirs: [ann1, ..., ann9]}``: each sub-folder is a test fold;
  - ``{kind: kfold, corpus: cra, k: 3}``: folds by paper, balanced by sentence count
    (largest paper first, into the fold with fewest sentences so far);
  - ``{kind: train-test, train: [art, cra], test: oa}``: one fold;
  - ``{kind: leave-one-domain-out, corpus: oa, categories: oa-stm/categories.tsv}``;
  - ``{kind: learning-curve, source: [art], target: cra, target_folds: 3, sizes: [0, 5],
    repeats: 3, choose: [random, select], adapt: {...}}``: a source model trained once,
    adapted (:func:`coresc.model.adapt.adapt`) to k target papers chosen at random or by
    ``coresc select``, scored on a held-out target fold; mean and spread per k
    (:mod:`coresc.experiments.curve`);

  the ``dirs``, ``kfold`` and ``leave-one-domain-out`` kinds take ``also_train: [art]``:
  corpora added whole to every fold's training papers (never tested on), e.g. ART as
  auxiliary data for CRA folds, with ``model: {domains: [corpus]}`` so the two corpora
  keep their own feature copies;

* ``features``: ``default`` (:data:`coresc.features.DEFAULT_FEATURES`, also when the key
  is absent), ``all``, a list of :data:`coresc.features.FEATURE_GROUPS`, or
  ``{exclude: [...]}``;
* ``model``: keyword arguments of :class:`coresc.model.CoreSCClassifier`;
* ``seed``, or ``seeds: [0, 1, 2]``: the whole experiment once per seed (one parent run
  each, tagged ``coresc.seed``), every run then logging the spread over the seeds
  (``seed_mean_accuracy``, ``seed_std_accuracy`` (sample sd), ``n_seeds`` ...), which
  ``coresc report`` shows beside the fold spread; for encoder runs, whose fine-tuning
  depends on the seed.

Every score of a fold and of all folds pooled is logged with its 95% interval from a
bootstrap over papers, stratified by fold (``accuracy_ci_low``, ``accuracy_ci_high``,
``macro_f1_ci_low`` ..., ``n_papers``; :mod:`coresc.stats`).

Everything is validated before any training. :func:`run_experiment` runs the folds
(in a process pool when memory allows), logs one MLflow parent run with a nested run per
fold, and always ends every run it opened: ``FINISHED``, ``FAILED`` (an exception) or
``KILLED`` (Ctrl-C / SIGTERM).
"""

from __future__ import annotations

# The package's files name its ideas; every name stays importable from coresc.experiments.
from .artifacts import markdown_summary, plot_confusion, prediction_records, write_artifacts
from .config import (
    CONFIGS_DIR,
    FOLD_KINDS,
    LOCAL_CONFIGS,
    Corpus,
    ExperimentConfig,
    _check_features,  # noqa: F401  (experiments/model_card.py uses it)
    config_dirs,
    known_configs,
    load_config,
    resolve_config_path,
)
from .folds import fold_assignment, make_folds, read_corpora
from .runner import (
    ExperimentResult,
    Terminated,
    _sigterm_raises,  # noqa: F401  (tests drive it directly)
    run_experiment,
    summary_line,
)
from .scoring import flat_metrics, score_predictions
from .splits import Fold, balanced_kfold, n_labelled
from .workers import FoldResult, choose_jobs, fold_papers, new_model, run_fold

__all__ = [
    "CONFIGS_DIR", "FOLD_KINDS", "LOCAL_CONFIGS", "Corpus", "ExperimentConfig",
    "ExperimentResult", "Fold", "FoldResult", "Terminated", "balanced_kfold", "choose_jobs",
    "config_dirs", "flat_metrics", "fold_assignment", "fold_papers", "known_configs",
    "load_config", "make_folds", "markdown_summary", "n_labelled", "new_model",
    "plot_confusion", "prediction_records", "read_corpora", "resolve_config_path",
    "run_experiment", "run_fold", "score_predictions", "summary_line", "write_artifacts",
]
