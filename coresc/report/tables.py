"""Markdown tables of a report: the headline numbers, per-label scores side by side,
per-fold numbers, learning curves."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..labels import sort_key
from .published import PUBLISHED_ACCURACY, PUBLISHED_CRA_CRF_F1
from .runs import RunInfo, fold_metrics


def _fmt(v: float | None, pct: bool = True) -> str:
    if v is None:
        return "-"
    return f"{100 * v:.1f}" if pct else f"{v:.3f}"


def _with_ci(r: RunInfo, name: str, pct: bool = True) -> str:
    """A score with its 95% interval over papers when the run logged one."""
    low, high = r.metrics.get(f"{name}_ci_low"), r.metrics.get(f"{name}_ci_high")
    shown = _fmt(r.metrics.get(name), pct)
    return shown if low is None or high is None else \
        f"{shown} [{_fmt(low, pct)}, {_fmt(high, pct)}]"


def _spread(r: RunInfo, name: str) -> str:
    """Fold mean +- sd next to the interval (k-fold runs), and the spread over seeds of
    a config run with ``seeds: [...]``."""
    out = []
    for kind, what in (("fold", "folds"), ("seed", "seeds")):
        mean, sd = r.metrics.get(f"{kind}_mean_{name}"), r.metrics.get(f"{kind}_std_{name}")
        if kind == "fold" and r.params.get("n_folds") == "1":
            continue  # one fold: no spread to show
        if mean is not None and sd is not None:
            n = f" ({int(r.metrics['n_seeds'])})" if kind == "seed" else ""
            out.append(f"{what}{n}: {100 * mean:.1f} ± {100 * sd:.1f}")
    return "; ".join(out) or "-"


def headline_table(runs: Sequence[RunInfo]) -> list[str]:
    lines = ["| experiment | trained on | tested on | labels | accuracy / agreement % "
             "[95% CI] | mean ± sd over folds, seeds | papers | "
             "macro-F1 | CoreSC1 kappa | weighted kappa | ECE | wall time | run |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in runs:
        kind = "silver: agreement with SAPIENTA" if r.silver else "gold: accuracy"
        wall = r.metrics.get("wall_time_s")
        head = "silver_agreement" if r.silver else "accuracy"
        papers = r.metrics.get("n_papers")
        lines.append(
            f"| {r.label} | {r.train} | {r.test} | {kind} | {_with_ci(r, head)} | "
            f"{_spread(r, head)} | {'-' if papers is None else int(papers)} | "
            f"{_with_ci(r, r.prefix + 'macro_f1', False)} | "
            f"{_fmt(r.metrics.get(r.prefix + 'kappa_coresc1_micro'), False)} | "
            f"{_fmt(r.metrics.get(r.prefix + 'kappa_weighted_micro'), False)} | "
            f"{_fmt(r.metrics.get(r.prefix + 'ece_primary'), False)} | "
            f"{'-' if wall is None else f'{wall / 60:.1f} min'} | `{r.run_id[:8]}` |")
    for r in runs:
        if r.config in PUBLISHED_ACCURACY:
            acc, what = PUBLISHED_ACCURACY[r.config]
            lines.append(f"| published: {what} | | | gold: accuracy | {acc:.1f} | | | | | | "
                         "| | |")
    return lines


def side_by_side(test: str, runs: Sequence[RunInfo]) -> list[str]:
    """Table 8 layout: one row per label, P / R / F1 of each model on the same test set."""
    labels = sorted({lab for r in runs for lab in r.per_label()}, key=sort_key)
    published = test == "cra"
    head = "| label | " + " | ".join(f"{r.label} P | {r.label} R | {r.label} F1"
                                     for r in runs)
    sep = "| --- | " + " | ".join("--- | --- | ---" for _ in runs)
    if published:
        head += " | published CRF (CRA 3-fold) F1"
        sep += " | ---"
    lines = [head + " |", sep + " |"]
    for lab in labels:
        cells = []
        for r in runs:
            s = r.per_label().get(lab, {})
            cells += [_fmt(s.get("precision")), _fmt(s.get("recall")), _fmt(s.get("f1"))]
        row = f"| {lab} | " + " | ".join(cells)
        if published:
            pub = PUBLISHED_CRA_CRF_F1.get(lab)
            row += f" | {'-' if pub is None else f'{pub:.1f}'}"
        lines.append(row + " |")
    return lines


def per_fold_section(client, experiment_id: str, runs: Sequence[RunInfo]) -> list[str]:
    """Per-fold accuracy and macro-F1 of runs that share their folds, with the change
    against the first of them (e.g. ``cra-3fold`` and ``cra-3fold-encoder``)."""
    groups: dict[tuple, list[tuple[RunInfo, dict]]] = {}
    for r in runs:
        folds = fold_metrics(client, experiment_id, r)
        if len(folds) > 1:
            groups.setdefault((r.test, tuple(sorted(folds))), []).append((r, folds))
    md: list[str] = []
    for (test, names), group in groups.items():
        if len(group) < 2:
            continue
        head = "silver_agreement" if group[0][0].silver else "accuracy"
        f1 = "silver_macro_f1" if group[0][0].silver else "macro_f1"
        first = group[0][0].config
        md += ["", f"## Per fold on {test}: {' vs '.join(r.config for r, _ in group)}", "",
               f"{head.replace('_', ' ')} / macro-F1 per fold (percent / fraction); "
               f"change against {first} in points.", "",
               "| fold | " + " | ".join(r.config for r, _ in group)
               + " | " + " | ".join(f"change ({r.config})" for r, _ in group[1:]) + " |",
               "|---|" + "---|" * (2 * len(group) - 1)]
        for name in names:
            base = group[0][1][name]
            cells = [f"{_fmt(m[name].get(head))} / {_fmt(m[name].get(f1), pct=False)}"
                     for _, m in group]
            deltas = [_delta(m[name].get(head), base.get(head)) for _, m in group[1:]]
            md.append(f"| {name} | " + " | ".join(cells + deltas) + " |")
    return md


def curve_section(client, runs: Sequence[RunInfo]) -> list[str]:
    """Learning-curve runs: mean and spread per k and choice, then every run's figure
    (from the parent run's ``curve.json``)."""
    import json

    from ..experiments.curve import curve_f1_table, curve_runs_table, curve_table

    md: list[str] = []
    for r in runs:
        if r.params.get("fold_kind") != "learning-curve":
            continue
        path = client.download_artifacts(r.run_id, "curve.json")
        rows = json.loads(Path(path).read_text(encoding="utf-8"))["rows"]
        head = "agreement with SAPIENTA (silver)" if r.silver else "accuracy"
        md += ["", f"## Learning curve: {r.label}", "",
               f"{head} in percent on the held-out papers: mean ± sd (min-max) over the "
               "runs (test folds x repetitions) / mean macro-F1; k = reviewed target papers "
               "the source model was adapted to; the last columns: select minus random, "
               "in points.", "", *curve_table(rows), "", *curve_runs_table(rows), "",
               "Macro-F1 and each label's F1 in percent: the mean over the runs [the mean "
               "of the runs' 95% intervals, each a t interval over its test papers].", "",
               *curve_f1_table(rows)]
    return md


def _delta(value: float | None, base: float | None) -> str:
    return "n/a" if value is None or base is None else f"{(value - base) * 100:+.2f}"
