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

  the ``dirs``, ``kfold`` and ``leave-one-domain-out`` kinds take ``also_train: [art]``:
  corpora added whole to every fold's training papers (never tested on), e.g. ART as
  auxiliary data for CRA folds, with ``model: {domains: [corpus]}`` so the two corpora
  keep their own feature copies;

* ``features``: ``default`` (:data:`coresc.features.DEFAULT_FEATURES`, also when the key
  is absent), ``all``, a list of :data:`coresc.features.FEATURE_GROUPS`, or
  ``{exclude: [...]}``;
* ``model``: keyword arguments of :class:`coresc.model.CoreSCClassifier`;
* ``seed``.

Everything is validated before any training. :func:`run_experiment` runs the folds
(in a process pool when memory allows), logs one MLflow parent run with a nested run per
fold, and always ends every run it opened: ``FINISHED``, ``FAILED`` (an exception) or
``KILLED`` (Ctrl-C / SIGTERM).
"""

from __future__ import annotations

import contextlib
import csv
import json
import math
import multiprocessing
import os
import signal
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .config import data_dir
from .errors import CorescError, UsageError

#: The configs shipped with the package (found after any kind of install).
CONFIGS_DIR = Path(__file__).resolve().parent / "configs"
#: Where a user's own named configs are looked up first, relative to the working directory.
LOCAL_CONFIGS = Path("experiments")
FOLD_KINDS = ("dirs", "kfold", "train-test", "leave-one-domain-out")
_TOP_KEYS = {"name", "description", "corpora", "folds", "features", "model", "seed"}


# --------------------------------------------------------------------------- config

@dataclass
class Corpus:
    name: str
    path: Path
    labels: str  # "gold" | "silver"


@dataclass
class ExperimentConfig:
    """A validated experiment configuration (see the module docstring)."""

    name: str
    source: str
    corpora: dict[str, Corpus]
    folds: dict[str, Any]
    features: tuple[str, ...]
    model: dict[str, Any]
    seed: int = 0
    description: str = ""
    raw: dict[str, Any] = field(default_factory=dict)

    def params(self) -> dict[str, str]:
        """Flat MLflow parameters describing this experiment."""
        out = {
            "config": self.name,
            "corpora": ", ".join(f"{c.name}={_rel(c.path)} ({c.labels})"
                                 for c in self.corpora.values()),
            "folds": json.dumps(self.folds, sort_keys=True),
            "fold_kind": self.folds["kind"],
            "features": ",".join(self.features),
            "seed": str(self.seed),
        }
        out.update({f"model.{k}": str(v) for k, v in sorted(self.model.items())})
        return out


def _rel(path: Path) -> str:
    try:
        return str(path.relative_to(data_dir()))
    except ValueError:
        return str(path)


def config_dirs() -> tuple[Path, ...]:
    """Where named configs are looked up, in order: ``./experiments/``, then the package's."""
    return (Path.cwd() / LOCAL_CONFIGS, CONFIGS_DIR)


def known_configs() -> list[str]:
    """The names ``coresc experiment NAME`` finds (``cra-3fold``, ...)."""
    return sorted({p.stem for d in config_dirs() for p in d.glob("*.yaml")})


def resolve_config_path(name_or_path: str | Path) -> Path:
    """A config file path, or the name of a config (``cra-3fold``): one in
    ``./experiments/`` of the working directory first, else one shipped with coresc."""
    p = Path(name_or_path)
    if p.is_file():
        return p
    for d in config_dirs():
        for candidate in (d / f"{name_or_path}.yaml", d / str(p)):
            if candidate.is_file():
                return candidate
    raise UsageError(f"{name_or_path}: no such config file or experiment "
                     f"(known: {', '.join(known_configs())})")


def load_config(name_or_path: str | Path | Mapping[str, Any],
                data: Path | None = None) -> ExperimentConfig:
    """Read and validate a config; raises :class:`UsageError` with one clear line.

    Checks, before anything is trained: the keys, that every corpus exists, the fold
    definition (kind, corpora it names, sub-folders, ``k``), the feature groups and the
    model's hyper-parameter names.
    """
    import yaml

    if isinstance(name_or_path, Mapping):
        raw, where = dict(name_or_path), str(name_or_path.get("name", "<config>"))
        default_name = where
    else:
        path = resolve_config_path(name_or_path)
        where, default_name = str(path), path.stem
        try:
            raw = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
            raise UsageError(f"{where}: cannot read config: {str(exc).splitlines()[0]}") from None
    if not isinstance(raw, dict):
        raise UsageError(f"{where}: a config is a YAML mapping")

    def fail(msg: str) -> UsageError:
        return UsageError(f"{where}: {msg}")

    unknown = set(raw) - _TOP_KEYS
    if unknown:
        raise fail(f"unknown key(s) {', '.join(sorted(unknown))} "
                   f"(known: {', '.join(sorted(_TOP_KEYS))})")
    base = Path(data) if data else data_dir()
    corpora = _check_corpora(raw.get("corpora"), base, fail)
    folds = _check_folds(raw.get("folds"), corpora, base, fail)
    features = _check_features(raw.get("features", "all"), fail)
    model = raw.get("model") or {}
    if not isinstance(model, dict):
        raise fail("'model' must be a mapping of hyper-parameters")
    _check_model_params(model, fail)
    seed = raw.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise fail(f"'seed' must be an integer, not {seed!r}")
    return ExperimentConfig(
        name=str(raw.get("name") or default_name), source=where, corpora=corpora,
        folds=folds, features=features, model=dict(model), seed=seed,
        description=str(raw.get("description") or ""), raw=raw,
    )


def _check_corpora(spec: Any, base: Path, fail) -> dict[str, Corpus]:
    if not isinstance(spec, dict) or not spec:
        raise fail("'corpora' must map corpus names to paths")
    out = {}
    for name, entry in spec.items():
        if isinstance(entry, str):
            entry = {"path": entry}
        if not isinstance(entry, dict) or "path" not in entry:
            raise fail(f"corpus {name!r}: give a path (relative to the data folder)")
        path = base / str(entry["path"])
        if not path.exists():
            raise fail(f"corpus {name!r} not found: {path}")
        labels = entry.get("labels") or ("silver" if "coresc-auto" in str(entry["path"])
                                         else "gold")
        if labels not in ("gold", "silver"):
            raise fail(f"corpus {name!r}: labels must be gold or silver, not {labels!r}")
        out[str(name)] = Corpus(str(name), path, labels)
    return out


def _check_folds(spec: Any, corpora: dict[str, Corpus], base: Path, fail) -> dict[str, Any]:
    if not isinstance(spec, dict) or spec.get("kind") not in FOLD_KINDS:
        raise fail(f"'folds' needs a kind, one of {', '.join(FOLD_KINDS)}")
    kind = spec["kind"]

    def corpus_ref(name: Any) -> str:
        if name not in corpora:
            raise fail(f"folds name corpus {name!r}, which 'corpora' does not define")
        return str(name)

    if kind == "train-test":
        train = spec.get("train")
        train = [train] if isinstance(train, str) else train
        test = spec.get("test")
        test = [test] if isinstance(test, str) else test
        if not train or not test:
            raise fail("train-test folds need 'train' and 'test' corpora")
        if "also_train" in spec:
            raise fail("train-test folds take no 'also_train': list the corpora in 'train'")
        return {"kind": kind, "train": [corpus_ref(c) for c in train],
                "test": [corpus_ref(c) for c in test]}
    corpus = corpus_ref(spec.get("corpus"))
    extra = spec.get("also_train") or []
    extra = [extra] if isinstance(extra, str) else extra
    if not isinstance(extra, list) or corpus in extra:
        raise fail("'also_train' must list corpora other than the one the folds split")
    extra = [corpus_ref(c) for c in extra]
    out = _check_fold_kind(spec, kind, corpus, corpora, base, fail)
    if extra:
        out["also_train"] = extra
    return out


def _check_fold_kind(spec, kind: str, corpus: str, corpora: dict[str, Corpus], base: Path,
                     fail) -> dict[str, Any]:
    if kind == "dirs":
        dirs = spec.get("dirs")
        if not isinstance(dirs, list) or len(dirs) < 2:
            raise fail(f"bad fold count: 'dirs' must list at least 2 sub-folders, got {dirs!r}")
        for d in dirs:
            if not (corpora[corpus].path / str(d)).is_dir():
                raise fail(f"fold folder not found: {corpora[corpus].path / str(d)}")
        return {"kind": kind, "corpus": corpus, "dirs": [str(d) for d in dirs]}
    if kind == "kfold":
        k = spec.get("k")
        if not isinstance(k, int) or isinstance(k, bool) or k < 2:
            raise fail(f"bad fold count: k must be an integer >= 2, got {k!r}")
        return {"kind": kind, "corpus": corpus, "k": k}
    cats = base / str(spec.get("categories", "oa-stm/categories.tsv"))
    if not cats.is_file():
        raise fail(f"categories file not found: {cats}")
    return {"kind": kind, "corpus": corpus, "categories": str(spec.get("categories",
                                                                       "oa-stm/categories.tsv"))}


def _check_features(spec: Any, fail) -> tuple[str, ...]:
    from .features import DEFAULT_FEATURES, FEATURE_GROUPS

    if spec in (None, "default"):
        return tuple(DEFAULT_FEATURES)
    if spec == "all":
        return tuple(FEATURE_GROUPS)
    if isinstance(spec, dict) and set(spec) == {"exclude"}:
        excluded = spec["exclude"] or []
        unknown = sorted(set(excluded) - set(FEATURE_GROUPS))
        chosen = tuple(g for g in FEATURE_GROUPS if g not in excluded)
    elif isinstance(spec, list):
        unknown = sorted(set(map(str, spec)) - set(FEATURE_GROUPS))
        chosen = tuple(g for g in FEATURE_GROUPS if g in spec)
    else:
        raise fail("'features' must be 'default', 'all', a list of groups, or {exclude: [...]}")
    if unknown:
        raise fail(f"unknown feature group(s) {', '.join(unknown)} "
                   f"(known: {', '.join(FEATURE_GROUPS)})")
    if not chosen:
        raise fail("no feature group left")
    return chosen


def _check_model_params(model: dict[str, Any], fail) -> None:
    from .model import CoreSCClassifier

    known = set(CoreSCClassifier().get_params())
    unknown = sorted(set(model) - known)
    if unknown:
        raise fail(f"unknown model hyper-parameter(s) {', '.join(unknown)} "
                   f"(known: {', '.join(sorted(known))})")
    for reserved in ("features", "seed"):
        if reserved in model:
            raise fail(f"set {reserved!r} at the top level of the config, not under 'model'")
    try:
        CoreSCClassifier(**model)._validate()
    except (TypeError, ValueError) as exc:
        raise fail(f"bad model hyper-parameter: {exc}") from None


# --------------------------------------------------------------------------- data and folds

@dataclass
class Fold:
    """One train/test split: paper keys (``corpus/paper_id``) on each side."""

    name: str
    train: list[str]
    test: list[str]


def read_corpora(cfg: ExperimentConfig, max_papers: int | None = None) -> dict[str, Any]:
    """Every corpus of the config, as ``{"corpus/paper_id": Paper}`` in reading order.

    ``max_papers``: read only the first N files of each corpus (quick checks, tests).
    """
    from .readers import iter_input_files, read_corpus

    papers: dict[str, Any] = {}
    for corpus in cfg.corpora.values():
        files: list[Any] = [corpus.path]
        if max_papers:
            files = list(iter_input_files(files))[:max_papers]
        for paper in read_corpus(files)[:max_papers]:
            key = f"{corpus.name}/{paper.id}"
            if key in papers:
                raise UsageError(f"{corpus.path}: two papers with the id {paper.id!r}")
            paper.meta["corpus"] = corpus.name
            papers[key] = paper
    return papers


def n_labelled(paper) -> int:
    return sum(1 for s in paper.sentences() if s.gold)


def balanced_kfold(sizes: Mapping[str, int], k: int) -> list[list[str]]:
    """Split items into ``k`` folds with sentence totals as equal as greedy gets.

    Largest item first (ties by key, so the result is deterministic), each into the fold
    with the smallest total so far (ties: lowest fold index). Returns sorted key lists.
    """
    from .model import balanced_folds

    if not 2 <= k <= len(sizes):
        raise UsageError(f"bad fold count: k={k} needs 2 <= k <= {len(sizes)} (the papers)")
    keys = sorted(sizes)  # balanced_folds breaks ties by position: here, by key
    folds: list[list[str]] = [[] for _ in range(k)]
    for key, i in zip(keys, balanced_folds([sizes[x] for x in keys], k), strict=True):
        folds[i].append(key)
    return folds


def make_folds(cfg: ExperimentConfig, papers: Mapping[str, Any]) -> list[Fold]:
    """The config's folds over the papers read by :func:`read_corpora`."""
    spec = cfg.folds
    kind = spec["kind"]
    of = {name: [k for k, p in papers.items() if p.meta["corpus"] == name]
          for name in cfg.corpora}
    if kind == "train-test":
        train = [k for c in spec["train"] for k in of[c]]
        test = [k for c in spec["test"] for k in of[c]]
        overlap = set(train) & set(test)
        if overlap:
            raise UsageError(f"{cfg.source}: a corpus is both trained and tested on")
        return [Fold(f"{'+'.join(spec['train'])}-to-{'+'.join(spec['test'])}", train, test)]
    keys = of[spec["corpus"]]
    if kind == "kfold":
        sizes = {k: n_labelled(papers[k]) for k in keys}
        groups = [(f"fold{i + 1}", g) for i, g in enumerate(balanced_kfold(sizes, spec["k"]))]
    elif kind == "dirs":
        by_dir: dict[str, list[str]] = {d: [] for d in spec["dirs"]}
        for k in keys:
            d = Path(papers[k].source_path or "").parent.name
            if d in by_dir:
                by_dir[d].append(k)
        groups = list(by_dir.items())
    else:
        groups = _domains(cfg, keys, papers)
    empty = [name for name, g in groups if not g]
    if empty:
        raise UsageError(f"{cfg.source}: bad fold count: fold(s) {', '.join(empty)} hold no paper")
    keys_in_folds = {k for _, g in groups for k in g}
    extra = [k for c in spec.get("also_train", []) for k in of[c]]
    return [Fold(name, [k for k in keys if k in keys_in_folds and k not in set(g)] + extra,
                 sorted(g))
            for name, g in groups]


def _domains(cfg: ExperimentConfig, keys: list[str], papers) -> list[tuple[str, list[str]]]:
    path = data_dir() / cfg.folds["categories"]
    domain_of: dict[str, str] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) != 2:
            raise UsageError(f"{path}: line {n}: expected 'paper id<TAB>domain'")
        domain_of[parts[0].strip()] = parts[1].strip()
    groups: dict[str, list[str]] = {}
    for k in keys:
        domain = domain_of.get(papers[k].id)
        if domain is not None:
            groups.setdefault(domain, []).append(k)
    if len(groups) < 2:
        raise UsageError(f"{path}: bad fold count: {len(groups)} domain(s) match the corpus")
    return sorted(groups.items())


def fold_assignment(cfg: ExperimentConfig, folds: Sequence[Fold], papers) -> dict[str, Any]:
    """The fold assignment as saved with the run (JSON-ready)."""
    return {
        "config": cfg.name,
        "kind": cfg.folds["kind"],
        "folds": [{
            "name": f.name,
            "test": f.test,
            "train": f.train,
            "test_sentences": sum(n_labelled(papers[k]) for k in f.test),
            "train_sentences": sum(n_labelled(papers[k]) for k in f.train),
        } for f in folds],
    }


# --------------------------------------------------------------------------- fold work

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
    from .model import CoreSCClassifier

    return CoreSCClassifier(features=cfg.features, seed=cfg.seed, **cfg.model)


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
    model = new_model(cfg)
    start = time.perf_counter()
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
    from .model import CoreSCClassifier

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


# --------------------------------------------------------------------------- scoring

def score_predictions(gold_by: Mapping[str, list[list[str]]],
                      pred_by: Mapping[str, list[list[str]]]) -> dict[str, Any]:
    """Primary scores, the five kappas and secondary-label scores for aligned lists.

    ``gold_by`` / ``pred_by``: paper key -> ranked label list per sentence. Sentences
    without gold are left out (as :func:`coresc.metrics.evaluate_papers` does).
    """
    from .metrics import NO_PREDICTION, score_label_lists

    g_by, p_by = {}, {}
    for key, golds in gold_by.items():
        keep = [(g, p) for g, p in zip(golds, pred_by[key], strict=True) if g]
        g_by[key] = [g for g, _ in keep]
        p_by[key] = [p or [NO_PREDICTION] for _, p in keep]
    try:
        return score_label_lists(g_by, p_by)
    except ValueError:
        raise CorescError("no sentence with a gold label in the test set") from None


def flat_metrics(scores: Mapping[str, Any], silver: bool) -> dict[str, float]:
    """MLflow metric names: ``accuracy`` ... or, on silver labels, ``silver_agreement`` ..."""
    pre = "silver_" if silver else ""
    prim = scores["primary"]
    out = {
        (pre + "agreement" if silver else "accuracy"): prim["accuracy"],
        pre + "macro_f1": prim["macro_f1"],
        pre + "micro_f1": prim["micro_f1"],
        "n_sentences": scores["n_sentences"],
    }
    for lab, s in prim["per_label"].items():
        for m in ("precision", "recall", "f1"):
            out[f"{pre}{m}_{_metric_safe(lab)}"] = s[m]
        out[f"support_{_metric_safe(lab)}"] = s["support"]
    for avg in ("micro", "macro"):
        for measure, value in scores["agreement"][avg].items():
            out[f"{pre}kappa_{measure}_{avg}"] = value
    for k, v in scores["secondary"].items():
        if v is not None and k not in ("n",):
            out[pre + ("secondary_" + k if k.startswith("n_") else k)] = v
    return {k: float(v) for k, v in out.items() if v is not None and not math.isnan(v)}


def _metric_safe(label: str) -> str:
    return "".join(c if c.isalnum() or c in "_-." else "_" for c in label)


# --------------------------------------------------------------------------- artefacts

def write_artifacts(out: Path, title: str, scores: Mapping[str, Any], silver: bool,
                    records: list[dict], extra: Mapping[str, float]) -> dict[str, float]:
    """confusion.png, per_label.csv, report.md, predictions.jsonl and the scores'
    calibration (calibration.json, reliability.png, coverage.png) into ``out``; returns
    the calibration metrics (:func:`coresc.reliability.calibration_metrics`)."""
    from . import reliability as rel

    out.mkdir(parents=True, exist_ok=True)
    calibration = rel.calibration_summary(records)
    cal_metrics = rel.calibration_metrics(calibration, silver) if calibration else {}
    if calibration:
        _write_json(out / rel.ARTIFACT, calibration)
        ref = "silver: SAPIENTA" if silver else "gold"
        rel.plot_reliability([(title, calibration)], out / "reliability.png",
                             f"{title}: reliability of the primary score ({ref})")
        rel.plot_coverage([(title, calibration)], out / "coverage.png",
                          f"{title}: accuracy / coverage by --min-score ({ref})")
        extra = {**extra, **cal_metrics}
    prim = scores["primary"]
    with open(out / "per_label.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["label", "precision", "recall", "f1", "support"])
        for lab, s in prim["per_label"].items():
            w.writerow([lab, f"{s['precision']:.4f}", f"{s['recall']:.4f}", f"{s['f1']:.4f}",
                        s["support"]])
    plot_confusion(prim["confusion"], out / "confusion.png",
                   f"{title} ({'silver: SAPIENTA' if silver else 'gold'})")
    (out / "report.md").write_text(markdown_summary(title, scores, silver, extra),
                                   encoding="utf-8")
    with open(out / "predictions.jsonl", "w", encoding="utf-8") as fh:
        for rec in records:
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return cal_metrics


def plot_confusion(confusion: Mapping[str, Any], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels, matrix = confusion["labels"], confusion["matrix"]
    rows = [[v / max(1, sum(r)) for v in r] for r in matrix]
    fig, ax = plt.subplots(figsize=(1 + 0.6 * len(labels), 0.8 + 0.55 * len(labels)))
    ax.imshow(rows, cmap="Blues", vmin=0, vmax=1)
    ax.set_xticks(range(len(labels)), labels, rotation=45, ha="right")
    ax.set_yticks(range(len(labels)), labels)
    ax.set_xlabel("predicted")
    ax.set_ylabel("reference")
    for i, r in enumerate(matrix):
        for j, v in enumerate(r):
            if v:
                ax.text(j, i, str(v), ha="center", va="center", fontsize=7,
                        color="white" if rows[i][j] > 0.5 else "black")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def markdown_summary(title: str, scores: Mapping[str, Any], silver: bool,
                     extra: Mapping[str, float]) -> str:
    """The per-run Markdown report (also an MLflow artefact)."""
    prim, agr, sec = scores["primary"], scores["agreement"], scores["secondary"]
    head = "agreement with SAPIENTA (silver)" if silver else "accuracy (gold)"
    lines = [f"# {title}", "",
             f"Reference labels: {'silver (SAPIENTA output)' if silver else 'gold'}; "
             f"{scores['n_sentences']} sentences.", "",
             "| measure | value |", "| --- | --- |",
             f"| {head} | {prim['accuracy']:.4f} |",
             f"| macro F1 | {prim['macro_f1']:.4f} |",
             f"| micro F1 | {prim['micro_f1']:.4f} |"]
    for k, v in extra.items():
        lines.append(f"| {k} | {v:.4g} |")
    lines += ["", "| label | P | R | F1 | support |", "| --- | --- | --- | --- | --- |"]
    for lab, s in prim["per_label"].items():
        lines.append(f"| {lab} | {s['precision']:.3f} | {s['recall']:.3f} | {s['f1']:.3f} | "
                     f"{s['support']} |")
    lines += ["", "| kappa | micro | macro |", "| --- | --- | --- |"]
    for m in agr["micro"]:
        lines.append(f"| {m} | {agr['micro'][m]:.4f} | {agr['macro'][m]:.4f} |")
    lines += ["", "| secondary labels | value |", "| --- | --- |"]
    for k, v in sec.items():
        shown = "-" if v is None else (f"{v:.4f}" if isinstance(v, float) else str(v))
        lines.append(f"| {k} | {shown} |")
    return "\n".join(lines) + "\n"


def prediction_records(keys: Sequence[str], papers, predictions, fold: str) -> list[dict]:
    """JSONL records (the writers' fields plus ``fold`` and ``corpus``)."""
    recs = []
    for key in keys:
        paper = papers[key]
        sents = [(sec, s) for sec in paper.sections for s in sec.sentences()]
        for (sec, s), ranked in zip(sents, predictions[key], strict=True):
            recs.append({
                "fold": fold, "corpus": paper.meta.get("corpus"), "paper": paper.id,
                "sid": s.sid, "section": sec.heading, "section_type": sec.type,
                "zone": s.zone, "text": s.text, "gold": s.gold_codes,
                "pred": [{"label": lab, "score": round(sc, 4)} for lab, sc in ranked],
            })
    return recs


# --------------------------------------------------------------------------- the runner

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


def _progress(msg: str) -> None:
    print(f"[coresc] {msg}", file=sys.stderr, flush=True)


def _fmt_duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    if seconds >= 60:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds}s"


def run_experiment(config: str | Path | Mapping[str, Any] | ExperimentConfig, *,
                   jobs: int | None = None, local_fallback: bool = False,
                   settings=None, log_models: bool = True,
                   max_papers: int | None = None) -> ExperimentResult:
    """Run an experiment config end to end and record it in MLflow.

    ``config``: a path, a config name (:func:`resolve_config_path`), a mapping or a loaded
    config.
    ``jobs``: folds run at the same time (default: 2, fewer when memory is short).
    ``local_fallback``: use the local sqlite store when the tracking server is down.
    ``settings``: :class:`coresc.tracking.TrackingSettings` (default: ``mlflow.yaml``).
    ``log_models``: log each fold's model as an MLflow pyfunc model.
    ``max_papers``: keep only the first N papers of every corpus (smoke tests).
    """
    from . import tracking

    t0 = time.perf_counter()
    cfg = config if isinstance(config, ExperimentConfig) else load_config(config)
    # The tracking store first: an unreachable server should fail in seconds, not after
    # the corpora have been read.
    client, exp_id, settings = tracking.connect(settings, local_fallback=local_fallback)
    papers = read_corpora(cfg, max_papers)
    folds = make_folds(cfg, papers)
    assignment = fold_assignment(cfg, folds, papers)
    test_corpora = {p.meta["corpus"] for f in folds for k in f.test for p in [papers[k]]}
    silver = any(cfg.corpora[c].labels == "silver" for c in test_corpora)
    jobs = choose_jobs(jobs, folds, papers, cfg.model.get("encoder") is not None)
    _progress(f"{cfg.name}: {len(folds)} fold(s), {len(papers)} papers, {jobs} job(s), "
              f"tracking {settings.tracking_uri}")

    tags = {"coresc.config": cfg.name, "coresc.kind": "experiment",
            "coresc.reference_labels": "silver" if silver else "gold",
            "mlflow.note.content": cfg.description or cfg.name}
    if max_papers:  # a trial on part of the data must never pass for the real experiment
        tags["coresc.partial"] = f"first {max_papers} papers of each corpus"
        tags["mlflow.note.content"] = (f"PARTIAL RUN ({tags['coresc.partial']}). "
                                       + tags["mlflow.note.content"])
    parent = client.create_run(exp_id, run_name=cfg.name + (" (partial)" if max_papers else ""),
                               tags=tags)
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
                    "test_sentences": str(assignment["folds"][i]["test_sentences"])})
            _warm_feature_cache(cfg, papers)
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
            metrics = _log_parent(client, pid, cfg, folds, results, fold_metrics, papers,
                                  silver, work_path)
            metrics["wall_time_s"] = time.perf_counter() - t0
            client.log_metric(pid, "wall_time_s", metrics["wall_time_s"])
        status = "FINISHED"
    except KeyboardInterrupt:
        status = "KILLED"
        raise
    finally:
        _STATE.clear()
        from .model import clear_cache

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


def _write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False, default=str) + "\n",
                    encoding="utf-8")


def _log_params(client, run_id: str, params: Mapping[str, str]) -> None:
    from mlflow.entities import Param

    client.log_batch(run_id, params=[Param(k, str(v)[:6000]) for k, v in params.items()])


def _log_metrics(client, run_id: str, metrics: Mapping[str, float]) -> None:
    from mlflow.entities import Metric

    now = int(time.time() * 1000)
    items = [Metric(k, float(v), now, 0) for k, v in metrics.items()]
    for i in range(0, len(items), 900):  # MLflow caps a batch at 1000 metrics
        client.log_batch(run_id, metrics=items[i:i + 900])


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


def _gold_pred(keys: Sequence[str], papers, predictions):
    gold_by = {k: [s.gold_codes for s in papers[k].sentences()] for k in keys}
    pred_by = {k: [[lab for lab, _ in ranked] for ranked in predictions[k]] for k in keys}
    return gold_by, pred_by


def _log_fold(client, run_id: str, cfg: ExperimentConfig, fold: Fold, res: FoldResult,
              papers, silver: bool, work: Path) -> dict[str, float]:
    from . import tracking

    gold_by, pred_by = _gold_pred(fold.test, papers, res.predictions)
    scores = score_predictions(gold_by, pred_by)
    timing = {"train_time_s": res.train_time, "predict_time_s": res.predict_time}
    records = prediction_records(fold.test, papers, res.predictions, fold.name)
    out = work / f"fold-{fold.name}"
    calibration = write_artifacts(out, f"{cfg.name} / {fold.name}", scores, silver, records,
                                  timing)
    metrics = {**flat_metrics(scores, silver), **timing, **calibration}
    _log_metrics(client, run_id, metrics)
    _write_json(out / "fold.json", {"name": fold.name, "train": fold.train, "test": fold.test})
    client.log_artifacts(run_id, str(out))
    if res.model_dir:
        mlflow_model = work / f"mlflow-model-{fold.name}"
        tracking.save_pyfunc_model(res.model_dir, mlflow_model)
        client.log_artifacts(run_id, str(mlflow_model), "model")
    return metrics


def _log_parent(client, run_id: str, cfg: ExperimentConfig, folds: Sequence[Fold],
                results: Mapping[str, FoldResult], fold_metrics, papers, silver: bool,
                work: Path) -> dict[str, float]:
    """Pooled metrics over all folds' test predictions, plus fold mean and spread."""
    gold_by: dict[str, list] = {}
    pred_by: dict[str, list] = {}
    records: list[dict] = []
    for f in folds:
        res = results[f.name]
        g, p = _gold_pred(f.test, papers, res.predictions)
        gold_by.update(g)
        pred_by.update(p)
        records += prediction_records(f.test, papers, res.predictions, f.name)
    scores = score_predictions(gold_by, pred_by)
    metrics = flat_metrics(scores, silver)
    head = "silver_agreement" if silver else "accuracy"
    pre = "silver_" if silver else ""
    for name in (head, pre + "macro_f1", pre + "kappa_coresc1_micro",
                 pre + "kappa_weighted_micro"):
        vals = [m[name] for m in fold_metrics.values() if name in m]
        if vals:
            mean = sum(vals) / len(vals)
            metrics[f"fold_mean_{name}"] = mean
            metrics[f"fold_std_{name}"] = math.sqrt(sum((v - mean) ** 2 for v in vals)
                                                    / len(vals))
    metrics["train_time_s"] = sum(r.train_time for r in results.values())
    metrics["predict_time_s"] = sum(r.predict_time for r in results.values())
    out = work / "parent"
    extra = {k: v for k, v in metrics.items() if k.startswith("fold_") or k.endswith("_time_s")}
    metrics.update(write_artifacts(out, f"{cfg.name} (all folds pooled)", scores, silver,
                                   records, extra))
    _log_metrics(client, run_id, metrics)
    client.log_artifacts(run_id, str(out))
    return metrics


def summary_line(result: ExperimentResult) -> str:
    """One line for stdout: the headline numbers of an experiment."""
    m = result.metrics
    if result.silver:
        head = f"agreement with SAPIENTA (silver) {m['silver_agreement']:.4f}, " \
               f"macro-F1 {m['silver_macro_f1']:.4f}"
    else:
        head = f"accuracy {m['accuracy']:.4f}, macro-F1 {m['macro_f1']:.4f}, " \
               f"CoreSC1 kappa {m.get('kappa_coresc1_micro', float('nan')):.3f}, " \
               f"weighted kappa {m.get('kappa_weighted_micro', float('nan')):.3f}"
    if "ece_primary" in m:
        head += f", ECE {m['ece_primary']:.3f}"
    partial = f" PARTIAL RUN ({result.partial})," if result.partial else ""
    return (f"{result.config}:{partial} {head}; {_fmt_duration(result.wall_time)}; "
            f"run {result.run_id}")


__all__ = [
    "ExperimentConfig", "ExperimentResult", "Fold", "balanced_kfold", "load_config",
    "make_folds", "read_corpora", "run_experiment", "score_predictions", "flat_metrics",
]
