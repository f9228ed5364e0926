"""Learning curves: a source model adapted to k reviewed papers of a target corpus.

``folds: {kind: learning-curve, source: [art], target: cra, ...}``:

* the *source model* is trained once, on the source corpora (``model`` settings);
* the target corpus is split into ``target_folds`` folds by paper (balanced like
  ``kfold``); each fold named in ``test_folds`` (1-based, default all) is a held-out test
  set in turn, the papers of the other folds are the *pool* the reviewed papers come from
  (test papers are never in the pool);
* for each size k in ``sizes`` and each way of choosing in ``choose``, k pool papers are
  chosen and :func:`coresc.model.adapt.adapt` turns the source model into an adapted one
  (``adapt``: its keyword arguments); k = 0 is the source model alone.
  ``random``: ``repeats`` random orders of the pool per test fold (seeded by ``seed``, the
  fold and the repetition; the first k papers of an order, so a repetition's smaller sets
  are part of its larger ones); ``select``: :func:`coresc.selection.select_papers` with
  the source model (expected wrong labels per paper, ``diversity``), deterministic, so one
  repetition; ``select-rate``: the same ranked by the expected share of wrong labels;
  ``select-weak``: by the uncertainty about each label weighted towards the rare labels,
  per sentence (``coresc select``'s default since issue 38).

Every (test fold, k, choice, repetition) is one fold run of the runner, named
``fold1-k05-random-r2``; the parent run logs, per choice and k, the mean, standard
deviation, minimum and maximum of the runs' accuracy and macro-F1
(``curve_random_k5_accuracy_mean`` ...), and ``curve.md`` / ``curve.json``.

A runner over the splits of :mod:`.splits`: it imports them, never ``folds`` or
``workers`` (which call it); the source model is trained by
:func:`coresc.experiments.workers.train_source`, beside ``new_model``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import UsageError
from ..labels import sort_key
from ._util import _progress
from .splits import Fold, balanced_kfold, n_labelled

KIND = "learning-curve"
CHOICES = ("random", "select", "select-rate", "select-weak")
DEFAULT_SIZES = (0, 3, 5, 10, 15, 30)
#: The measures whose spread over repetitions the parent run logs.
CURVE_MEASURES = ("accuracy", "macro_f1", "kappa_coresc1_micro")


def check_curve_folds(spec: Mapping[str, Any], corpus_ref, fail) -> dict[str, Any]:
    """The validated ``learning-curve`` fold definition (see the module docstring)."""
    from ..selection import DEFAULT_DIVERSITY

    source = spec.get("source")
    source = [source] if isinstance(source, str) else source
    if not source or not isinstance(source, list):
        raise fail("learning-curve folds need 'source' corpora")
    target = corpus_ref(spec.get("target"))
    source = [corpus_ref(c) for c in source]
    if target in source:
        raise fail("learning-curve: the target corpus cannot also be a source corpus")
    sizes = spec.get("sizes", list(DEFAULT_SIZES))
    if not isinstance(sizes, list) or not sizes or not all(_count(s, 0) for s in sizes):
        raise fail(f"learning-curve 'sizes' must list whole numbers >= 0, got {sizes!r}")
    n_folds = spec.get("target_folds", 3)
    if not _count(n_folds, 2):
        raise fail(f"bad fold count: target_folds must be an integer >= 2, got {n_folds!r}")
    tests = spec.get("test_folds", list(range(1, n_folds + 1)))
    if not isinstance(tests, list) or not tests or \
            not all(_count(t, 1) and t <= n_folds for t in tests):
        raise fail(f"learning-curve 'test_folds' must list fold numbers 1..{n_folds}")
    repeats = spec.get("repeats", 3)
    if not _count(repeats, 1):
        raise fail(f"learning-curve 'repeats' must be an integer >= 1, got {repeats!r}")
    choose = spec.get("choose", ["random", "select"])
    choose = [choose] if isinstance(choose, str) else choose
    if not isinstance(choose, list) or not choose or set(choose) - set(CHOICES):
        raise fail(f"learning-curve 'choose' must list some of {', '.join(CHOICES)}")
    diversity = spec.get("diversity", DEFAULT_DIVERSITY)
    if not isinstance(diversity, (int, float)) or not 0 <= diversity <= 1:
        raise fail(f"learning-curve 'diversity' must be between 0 and 1, got {diversity!r}")
    adapt = spec.get("adapt") or {}
    if not isinstance(adapt, dict):
        raise fail("learning-curve 'adapt' must be a mapping of adapt() arguments")
    _check_adapt_params(adapt, fail)
    return {"kind": KIND, "source": source, "target": target,
            "sizes": sorted(set(sizes)), "target_folds": n_folds,
            "test_folds": sorted(set(tests)), "repeats": repeats, "choose": list(choose),
            "diversity": float(diversity), "adapt": dict(adapt)}


def _check_adapt_params(params: Mapping[str, Any], fail) -> None:
    import inspect

    from ..model.adapt import adapt

    sig = inspect.signature(adapt).parameters
    if any(p.kind is p.VAR_KEYWORD for p in sig.values()):
        return  # takes any keyword: adapt() itself checks them
    known = set(sig) - {"source", "papers"}
    unknown = sorted(set(params) - known)
    if unknown:
        raise fail(f"learning-curve 'adapt': unknown argument(s) {', '.join(unknown)} "
                   f"(known: {', '.join(sorted(known))})")


def _count(value: Any, least: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


def source_keys(cfg, papers: Mapping[str, Any]) -> list[str]:
    return [k for k, p in papers.items() if p.meta["corpus"] in cfg.folds["source"]]


def curve_folds(cfg, papers: Mapping[str, Any], source=None) -> list:
    """One fold per (test fold, k, choice, repetition). ``source``: the source model,
    which ``select`` needs; without it (``coresc experiment --check``), ``select`` runs
    are listed with their papers left to choose (``Fold.adapt`` None)."""
    spec = cfg.folds
    target = sorted(k for k, p in papers.items() if p.meta["corpus"] == spec["target"])
    sizes = {k: n_labelled(papers[k]) for k in target}
    groups = balanced_kfold(sizes, spec["target_folds"])
    train = source_keys(cfg, papers)
    if not train:
        raise UsageError(f"{cfg.source}: the source corpora hold no paper")
    out = []
    for t in spec["test_folds"]:
        test = groups[t - 1]
        held = set(test)
        pool = [k for k in target if k not in held]  # target is sorted
        fold = f"fold{t}"
        too_big = [k for k in spec["sizes"] if k > len(pool)]
        if too_big:
            _progress(f"{fold}: sizes {too_big} left out: the pool holds {len(pool)} papers")
        for k, choice, rep, chosen in _runs(cfg, papers, fold, pool, source):
            if k > len(pool):
                continue
            name = f"{fold}-k{k:02d}-{choice}" + (f"-r{rep}" if choice == "random" else "")
            out.append(Fold(name, train, list(test),
                            adapt=None if chosen is None else chosen[:k],
                            info={"test_fold": fold, "k": k, "choose": choice, "rep": rep}))
    return out


def _runs(cfg, papers, fold: str, pool: list[str], source):
    """(k, choice, repetition, ordered pool or None) of every run on one test fold."""
    spec = cfg.folds
    if 0 in spec["sizes"]:
        yield 0, "source", 1, []
    sizes = [k for k in spec["sizes"] if k > 0]
    for choice in spec["choose"]:
        if choice == "random":
            for rep in range(1, spec["repeats"] + 1):
                order = random.Random(f"{cfg.seed}/{fold}/{rep}").sample(pool, len(pool))
                for k in sizes:
                    yield k, choice, rep, order
            continue
        order = None
        if source is not None and sizes:
            order = select_order(source, papers, pool, min(max(sizes), len(pool)),
                                 _UTILITY[choice],
                                 spec["diversity"])
        for k in sizes:
            yield k, choice, 1, order


#: The ``coresc select`` utility of each ``select*`` choice.
_UTILITY = {"select": "total", "select-rate": "rate", "select-weak": "weak"}


def select_order(source, papers, pool: list[str], budget: int, utility: str,
                 diversity: float) -> list[str]:
    """The pool keys ``coresc select`` would choose with the source model, in order."""
    from ..selection import select_papers

    chosen = select_papers(source, [papers[k] for k in pool], budget, utility, diversity)
    return [pool[c.index] for c in chosen]


def run_curve_fold(fold, papers: Mapping[str, Any], source, adapt_params: Mapping[str, Any]):
    """The model of one curve run: the source alone (k = 0), else adapted to its papers."""
    if not fold.adapt:
        return source
    from ..model.adapt import adapt

    return adapt(source, [papers[k] for k in fold.adapt], **adapt_params)


def curve_summary(folds: Sequence, fold_metrics: Mapping[str, Mapping[str, float]],
                  silver: bool) -> tuple[dict[str, float], list[dict[str, Any]]]:
    """Per choice and k: mean, sd, min, max of each measure over the runs; and the rows
    (one per choice and k, with every run's value) for ``curve.json`` and the report."""
    pre = "silver_" if silver else ""
    groups: dict[tuple[str, int], list] = {}
    for f in folds:
        groups.setdefault((f.info["choose"], f.info["k"]), []).append(f)
    metrics: dict[str, float] = {}
    rows = []
    for (choice, k), group in sorted(groups.items(), key=lambda g: (g[0][1], g[0][0])):
        row: dict[str, Any] = {"choose": choice, "k": k, "runs": {}}
        for measure in CURVE_MEASURES:
            name = pre + ("agreement" if silver and measure == "accuracy" else measure)
            vals = [fold_metrics[f.name][name] for f in group if name in fold_metrics[f.name]]
            if not vals:
                continue
            stats = spread(vals)
            row[measure] = stats
            metrics.update({f"curve_{_safe(choice)}_k{k}_{name}_{s}": v
                            for s, v in stats.items()})
        row["runs"] = {f.name: fold_metrics[f.name].get(pre + ("agreement" if silver
                                                                 else "accuracy"))
                       for f in group}
        row["f1"] = label_f1s([fold_metrics[f.name] for f in group], pre)
        rows.append(row)
    return metrics, rows


def label_f1s(runs: Sequence[Mapping[str, float]], pre: str = "") -> dict[str, Any]:
    """Macro-F1 and each label's F1 over a cell's runs: the mean, and the mean of the runs'
    95% interval bounds (each a t interval over that run's test papers), for the labels
    scored in any run (a label's mean over the runs that scored it)."""
    names = {k[len(pre):] for m in runs for k in m
             if k.startswith(pre + "f1_") and not k.endswith(("_ci_low", "_ci_high"))}
    out: dict[str, Any] = {}
    for name in ["macro_f1", *sorted(names, key=lambda n: sort_key(n[len("f1_"):]))]:
        found = [m for m in runs if pre + name in m]
        if not found:
            continue
        cell: dict[str, Any] = {"mean": sum(m[pre + name] for m in found) / len(found),
                                "n": len(found)}
        bounds = [(m[f"{pre}{name}_ci_low"], m[f"{pre}{name}_ci_high"]) for m in found
                  if f"{pre}{name}_ci_low" in m]
        if bounds:
            cell["ci"] = [sum(b[0] for b in bounds) / len(bounds),
                          sum(b[1] for b in bounds) / len(bounds)]
        out["macro" if name == "macro_f1" else name[len("f1_"):]] = cell
    return out


def curve_f1_table(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Markdown: per k and choice, macro-F1 and each label's F1 in percent, mean over the
    runs [the runs' mean 95% interval]."""
    labels: list[str] = []
    for row in rows:
        labels += [lab for lab in row.get("f1", {}) if lab != "macro" and lab not in labels]
    labels.sort(key=sort_key)
    lines = ["| k | choice | macro-F1 | " + " | ".join(labels) + " |",
             "|---" * (3 + len(labels)) + "|"]
    for row in rows:
        f1 = row.get("f1", {})
        cells = [_f1_cell(f1.get(lab)) for lab in ["macro", *labels]]
        lines.append(f"| {row['k']} | {row['choose']} | " + " | ".join(cells) + " |")
    return lines


def _f1_cell(cell: Mapping[str, Any] | None) -> str:
    if not cell:
        return "-"
    text = f"{100 * cell['mean']:.1f}"
    if "ci" in cell:
        text += f" [{100 * cell['ci'][0]:.0f}-{100 * cell['ci'][1]:.0f}]"
    return text


def spread(values: Sequence[float]) -> dict[str, float]:
    """Mean, population standard deviation, minimum, maximum and count."""
    mean = sum(values) / len(values)
    return {"mean": mean, "sd": math.sqrt(sum((v - mean) ** 2 for v in values) / len(values)),
            "min": min(values), "max": max(values), "n": float(len(values))}


def _safe(choice: str) -> str:
    return choice.replace("-", "_")


def curve_table(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Markdown: one line per k, mean +- sd (min-max, runs) of each choice, in percent,
    and select minus random in points."""
    choices = [c for c in ("source", *CHOICES) if any(r["choose"] == c for r in rows)]
    by = {(r["choose"], r["k"]): r for r in rows if "accuracy" in r}
    ks = sorted({r["k"] for r in rows})
    diffs = [c for c in choices if c.startswith("select") and "random" in choices]
    lines = ["| k | " + " | ".join(choices) + "".join(f" | {c} - random" for c in diffs)
             + " |", "|---" * (1 + len(choices) + len(diffs)) + "|"]
    for k in ks:
        cells = [_cell(by.get((c, k))) for c in choices]
        for c in diffs:
            a, b = by.get((c, k)), by.get(("random", k))
            cells.append(f"{100 * (a['accuracy']['mean'] - b['accuracy']['mean']):+.1f}"
                         if a and b else "")
        lines.append(f"| {k} | " + " | ".join(cells) + " |")
    return lines


def curve_runs_table(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Markdown: every run's figure (percent) per k and choice, as ``fold1/r2 63.1``."""
    lines = ["| k | choice | runs |", "|---|---|---|"]
    for row in rows:
        cells = []
        for name, value in sorted(row["runs"].items()):
            fold, _, rest = name.partition("-")
            rep = rest.rsplit("-", 1)[-1]
            where = fold + (f"/{rep}" if rep[:1] == "r" and rep[1:].isdigit() else "")
            cells.append(f"{where} {'-' if value is None else f'{100 * value:.1f}'}")
        lines.append(f"| {row['k']} | {row['choose']} | {', '.join(cells)} |")
    return lines


def _cell(row: Mapping[str, Any] | None) -> str:
    if not row:
        return ""
    a = row["accuracy"]
    text = f"{100 * a['mean']:.1f}"
    if a["n"] > 1:
        text += f" ± {100 * a['sd']:.1f} ({100 * a['min']:.1f}-{100 * a['max']:.1f})"
    return text + f" / {row['macro_f1']['mean']:.3f}" if "macro_f1" in row else text


def curve_line(metrics: Mapping[str, float], silver: bool) -> str:
    """One line for stdout: the mean of each choice at each k."""
    name = "silver_agreement" if silver else "accuracy"
    parts: dict[int, list[str]] = {}
    for key, value in metrics.items():
        if key.startswith("curve_") and key.endswith(f"_{name}_mean"):
            choice, k = key[len("curve_"):-len(f"_{name}_mean")].rsplit("_k", 1)
            parts.setdefault(int(k), []).append(f"{choice} {100 * value:.1f}")
    what = "agreement with SAPIENTA (silver)" if silver else "accuracy"
    return f"learning curve, mean {what}: " + "; ".join(
        f"k={k}: {', '.join(sorted(v))}" for k, v in sorted(parts.items()))
