"""Folds: read a config's corpora and split their papers into train/test folds."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..config import data_dir
from ..errors import UsageError
from .config import ExperimentConfig
from .splits import Fold, balanced_kfold, n_labelled


def read_corpora(cfg: ExperimentConfig, max_papers: int | None = None) -> dict[str, Any]:
    """Every corpus of the config, as ``{"corpus/paper_id": Paper}`` in reading order.

    ``max_papers``: read only the first N files of each corpus (quick checks, tests).
    """
    from ..readers import iter_input_files, read_corpus

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


def make_folds(cfg: ExperimentConfig, papers: Mapping[str, Any], source=None) -> list[Fold]:
    """The config's folds over the papers read by :func:`read_corpora` (``source``: the
    trained source model of a learning curve, see :mod:`.curve`)."""
    spec = cfg.folds
    kind = spec["kind"]
    if kind == "learning-curve":
        from .curve import curve_folds

        return curve_folds(cfg, papers, source)
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
            **f.curve_fields(),
        } for f in folds],
    }
