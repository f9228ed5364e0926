"""Experiment configs: find one by name, read it, validate it before any training."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config import data_dir
from ..errors import UsageError

#: The configs shipped with the package (found after any kind of install).
CONFIGS_DIR = Path(__file__).resolve().parent.parent / "configs"
#: Where a user's own named configs are looked up first, relative to the working directory.
LOCAL_CONFIGS = Path("experiments")
FOLD_KINDS = ("dirs", "kfold", "train-test", "leave-one-domain-out", "learning-curve")
_TOP_KEYS = {"name", "description", "corpora", "folds", "features", "model", "seed", "seeds"}



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
    #: ``seeds: [0, 1, 2]``: the whole experiment once per seed, and the spread reported
    seeds: tuple[int, ...] = ()

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
    seeds = _check_seeds(raw, fail)
    return ExperimentConfig(
        name=str(raw.get("name") or default_name), source=where, corpora=corpora,
        folds=folds, features=features, model=dict(model), seed=seeds[0] if seeds else seed,
        description=str(raw.get("description") or ""), raw=raw, seeds=seeds,
    )


def _check_seeds(raw: Mapping[str, Any], fail) -> tuple[int, ...]:
    """``seeds``: two or more distinct integers, instead of ``seed``."""
    if "seeds" not in raw:
        return ()
    seeds = raw["seeds"]
    if "seed" in raw:
        raise fail("give 'seed' or 'seeds', not both")
    if (not isinstance(seeds, list) or len(seeds) < 2 or len(set(seeds)) != len(seeds)
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in seeds)):
        raise fail(f"'seeds' must be a list of two or more distinct integers, not {seeds!r}")
    return tuple(seeds)


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
    if kind == "learning-curve":
        from .curve import check_curve_folds

        return check_curve_folds(spec, corpus_ref, fail)
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
    from ..features import DEFAULT_FEATURES, FEATURE_GROUPS

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
    from ..model import CoreSCClassifier

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
