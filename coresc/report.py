"""Comparison reports from logged MLflow runs: Markdown tables and PNG plots.

:func:`write_report` takes experiment runs (run ids, or config names meaning the latest
finished run of that config) and writes

* a headline table of every run (accuracy on gold labels, *agreement with SAPIENTA* on
  silver ones, macro-F1, kappas, wall time);
* per test set, the per-label precision / recall / F1 of every model tested on it side by
  side, in the layout of the CRA paper's Table 8 (ART-trained vs CRA-trained on CRA, and
  the reverse direction on ART), with the published numbers alongside and a bar chart;
* for a leave-one-domain-out run, per-label F1 in each OA-STM domain (table and plot);
* how far the scores can be trusted: expected calibration error, reliability diagram and
  the accuracy / coverage curve of ``annotate --min-score`` (from each run's
  ``calibration.json`` artefact, :mod:`coresc.reliability`).

A partial run (``coresc experiment --max-papers``) is marked as such wherever it appears.
Runs tested on the same papers are also paired: B - A with a 95% interval and p-value
over papers (:mod:`coresc.paired_runs`, from the runs' ``predictions.jsonl``); the
headline table gives each score's interval over papers and, for k-fold runs, the fold
spread. Everything is read from the runs' metrics, parameters and artefacts. A store
that does not exist is an error, and is not created.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import UsageError
from .labels import sort_key
from .paired_runs import paired_section

#: Published reference values (not our results). Source: the Multi-CoreSC CRA corpus paper,
#: section 4 and Table 8, as summarised in ../shared/docs/coresc-scheme.md
#: ("Reference results"). F1 in percent per label of a CRF trained and tested on CRA
#: (3-fold cross-validation, primary label only).
PUBLISHED_CRA_CRF_F1: dict[str, float] = {
    "Bac": 76.7, "Con": 53.9, "Exp": 83.4, "Goa": 54.2, "Hyp": 13.9, "Met": 58.3,
    "Mod": 0.0, "Mot": 43.9, "Obj": 27.0, "Obs": 43.0, "Res": 68.3,
}
#: Published accuracies (percent), same source.
PUBLISHED_ACCURACY: dict[str, tuple[float, str]] = {
    "art-9fold": (50.4, "SAPIENTA CRF, 9-fold CV on ART (265 papers)"),
    "art-to-cra": (51.9, "SAPIENTA trained on ART, run on CRA"),
}
PUBLISHED_SOURCE = ("Multi-CoreSC CRA corpus paper, section 4 / Table 8 "
                    "(../shared/docs/coresc-scheme.md)")


def parse_published_f1(doc_text: str) -> dict[str, float]:
    """The per-label F1 list of the scheme doc ("F1 per label: Bac 76.7, Con 53.9, ...")."""
    m = re.search(r"F1 per\s+label:\s*(.+?)\.\s*(?:\n\s*\n|\n-|$)", doc_text, re.S)
    if not m:
        return {}
    return {lab: float(v) for lab, v in re.findall(r"([A-Z][a-z]{2})\s+(\d+(?:\.\d+)?)",
                                                    m.group(1))}


@dataclass
class RunInfo:
    """What a report needs of one experiment run."""

    run_id: str
    config: str
    silver: bool
    test: str
    train: str
    metrics: dict[str, float]
    params: dict[str, str]
    partial: str | None = None  # what part of the data a --max-papers trial used

    @property
    def label(self) -> str:
        """The run's name in tables: its config, marked when it is a partial run."""
        return f"{self.config} (PARTIAL: {self.partial})" if self.partial else self.config

    @property
    def prefix(self) -> str:
        return "silver_" if self.silver else ""

    @property
    def headline(self) -> float | None:
        return self.metrics.get("silver_agreement" if self.silver else "accuracy")

    def per_label(self) -> dict[str, dict[str, float]]:
        out: dict[str, dict[str, float]] = {}
        pat = re.compile(rf"^{self.prefix}(precision|recall|f1)_(.+)$")
        for k, v in self.metrics.items():
            m = pat.match(k)
            if m and not (not self.silver and k.startswith("silver_")):
                out.setdefault(m.group(2), {})[m.group(1)] = v
        return out


def _client(tracking_uri: str | None):
    from mlflow.tracking import MlflowClient

    return MlflowClient(tracking_uri)


def resolve_runs(refs: Sequence[str], client, experiment_id: str) -> list[RunInfo]:
    """Run ids, or config names (latest FINISHED parent run of that config)."""
    from mlflow.exceptions import MlflowException

    out = []
    for ref in refs:
        run = None
        if re.fullmatch(r"[0-9a-f]{32}", ref):
            try:
                run = client.get_run(ref)
            except MlflowException:
                raise UsageError(f"{ref}: no such MLflow run") from None
        else:
            found = client.search_runs(
                [experiment_id],
                f"tags.`coresc.config` = '{ref}' and tags.`coresc.kind` = 'experiment' "
                f"and attributes.status = 'FINISHED'",
                order_by=["attributes.start_time DESC"], max_results=1)
            if not found:
                raise UsageError(f"{ref}: no finished experiment run of that name "
                                 f"(run `coresc experiment {ref}` first)")
            run = found[0]
        tags, params = run.data.tags, run.data.params
        out.append(RunInfo(
            run_id=run.info.run_id, config=tags.get("coresc.config", ref),
            silver=tags.get("coresc.reference_labels") == "silver",
            test=params.get("test_corpora", "?"), train=params.get("train_corpora", "?"),
            metrics=dict(run.data.metrics), params=dict(params),
            partial=tags.get("coresc.partial") or (
                f"first {params['max_papers']} papers of each corpus"
                if params.get("max_papers") else None)))
    return out


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


def plot_side_by_side(test: str, runs: Sequence[RunInfo], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = sorted({lab for r in runs for lab in r.per_label()}, key=sort_key)
    series = [(r.label, [100 * r.per_label().get(lab, {}).get("f1", 0.0)
                               for lab in labels]) for r in runs]
    if test == "cra":
        series.append(("published CRF (CRA 3-fold)",
                       [PUBLISHED_CRA_CRF_F1.get(lab, float("nan")) for lab in labels]))
    width = 0.8 / len(series)
    fig, ax = plt.subplots(figsize=(max(6, 0.8 * len(labels) + 2), 3.8))
    for i, (name, ys) in enumerate(series):
        ax.bar([x + i * width for x in range(len(labels))], ys, width, label=name)
    ax.set_xticks([x + 0.4 - width / 2 for x in range(len(labels))], labels)
    ax.set_ylabel("F1 (%)")
    silver = any(r.silver for r in runs)
    ax.set_title(f"Per-label F1 on {test}" + (" (silver: agreement with SAPIENTA)"
                                              if silver else " (gold)"), fontsize=10)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def domain_f1(client, run: RunInfo) -> dict[str, dict[str, float]]:
    """Per fold (domain) of a run: label -> F1, from its nested fold runs."""
    exp_id = client.get_run(run.run_id).info.experiment_id
    children = client.search_runs([exp_id], f"tags.`mlflow.parentRunId` = '{run.run_id}'")
    out = {}
    for c in children:
        info = RunInfo(c.info.run_id, run.config, run.silver, run.test, run.train,
                       dict(c.data.metrics), {})
        out[c.data.tags.get("coresc.fold", c.info.run_id)] = {
            lab: s.get("f1", 0.0) for lab, s in info.per_label().items()}
    return dict(sorted(out.items()))


def plot_domains(per_domain: Mapping[str, Mapping[str, float]], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    domains = list(per_domain)
    labels = sorted({lab for d in per_domain.values() for lab in d}, key=sort_key)
    grid = [[100 * per_domain[d].get(lab, float("nan")) for lab in labels] for d in domains]
    fig, ax = plt.subplots(figsize=(1.5 + 0.65 * len(labels), 1 + 0.42 * len(domains)))
    im = ax.imshow(grid, cmap="viridis", vmin=0, vmax=100, aspect="auto")
    ax.set_xticks(range(len(labels)), labels)
    ax.set_yticks(range(len(domains)), domains)
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            if v == v:  # not NaN
                ax.text(j, i, f"{v:.0f}", ha="center", va="center", fontsize=7,
                        color="white" if v < 55 else "black")
    fig.colorbar(im, ax=ax, label="F1 (%)")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _atomic_write(path: Path, data: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(data)
    os.replace(tmp, path)


def write_report(refs: Sequence[str], out: str | Path, tracking_uri: str | None = None,
                 experiment_name: str | None = None) -> list[Path]:
    """Write the Markdown report ``out`` and its PNGs beside it; return the files written."""
    from .tracking import load_settings

    settings = load_settings()
    uri = tracking_uri or settings.tracking_uri
    from .tracking import check_reachable, check_store_exists

    check_reachable(uri)
    check_store_exists(uri)  # opening a missing sqlite store would create it
    client = _client(uri)
    name = experiment_name or settings.experiment_name
    exp = client.get_experiment_by_name(name)
    if exp is None:
        raise UsageError(f"no MLflow experiment {name!r} at {uri}")
    runs = resolve_runs(refs, client, exp.experiment_id)
    load = _run_predictions(client)
    _fill_intervals(client, runs, load)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    stem = out.with_suffix("")
    written: list[Path] = []
    md = ["# coresc experiment report", "",
          "Gold labels are human annotation; silver labels are SAPIENTA's automatic output, "
          "so scores against them are *agreement with SAPIENTA (silver)*, not accuracy. "
          f"Published numbers are reference values from the {PUBLISHED_SOURCE}, "
          "not results of this project.", ""]
    partial = [r for r in runs if r.partial]
    if partial:
        md += ["**Partial runs** (`coresc experiment --max-papers`, a quick check on part of "
               "the data, not comparable with full runs or the published numbers): "
               + ", ".join(f"{r.config} ({r.partial})" for r in partial) + ".", ""]
    md += ["## Headline numbers", ""]
    md += headline_table(runs)
    by_test: dict[str, list[RunInfo]] = {}
    for r in runs:
        by_test.setdefault(r.test, []).append(r)
    for test, group in by_test.items():
        if not any(r.per_label() for r in group):
            continue
        png = Path(f"{stem}-{_slug(test)}.png")
        plot_side_by_side(test, group, png)
        written.append(png)
        kind = "silver (agreement with SAPIENTA)" if any(r.silver for r in group) else "gold"
        md += ["", f"## Per-label precision / recall / F1 on {test} ({kind})", "",
               "Models tested on the same set side by side (layout of the CRA paper's "
               "Table 8), in percent.", ""]
        md += side_by_side(test, group)
        md += ["", f"![per-label F1 on {test}]({png.name})"]
    md += paired_section(runs, _predictions(client, runs, load))
    md += per_fold_section(client, exp.experiment_id, runs)
    for r in runs:
        if r.params.get("fold_kind") == "leave-one-domain-out":
            per_domain = domain_f1(client, r)
            png = Path(f"{stem}-domains-{_slug(r.config)}.png")
            plot_domains(per_domain, png, f"{r.config}: per-label F1 per held-out domain"
                         + (" (silver)" if r.silver else ""))
            written.append(png)
            labels = sorted({lab for d in per_domain.values() for lab in d}, key=sort_key)
            md += ["", f"## Per-label F1 across domains: {r.config}"
                   + (" (silver: agreement with SAPIENTA)" if r.silver else ""), "",
                   "| domain | " + " | ".join(labels) + " |",
                   "| --- | " + " | ".join("---" for _ in labels) + " |"]
            for dom, f1s in per_domain.items():
                md.append(f"| {dom} | " + " | ".join(_fmt(f1s.get(lab)) for lab in labels)
                          + " |")
            md += ["", f"![per-label F1 per domain]({png.name})"]
    md += curve_section(client, runs)
    cal_md, cal_files = _calibration_section(client, runs, stem)
    md += cal_md
    written += cal_files
    _atomic_write(out, "\n".join(md) + "\n")
    return [out, *written]


def _run_predictions(client):
    """``load(run)``: the run's ``predictions.jsonl`` as (predictions, folds), downloaded
    and read once per run; None when it has none (runs logged before they were saved)."""
    from .paired_runs import PREDICTIONS, read_run

    loaded: dict[str, Any] = {}

    def load(r: RunInfo):
        if r.run_id not in loaded:
            try:
                loaded[r.run_id] = read_run(client.download_artifacts(r.run_id, PREDICTIONS))
            except Exception:  # no predictions artefact: no interval, never a guess
                loaded[r.run_id] = None
        return loaded[r.run_id]
    return load


def _fill_intervals(client, runs: Sequence[RunInfo], load=None) -> None:
    """Runs logged before intervals were (no ``accuracy_ci_low``): recompute them from the
    run's saved predictions, as the runner now logs them; nothing when it saved none
    (``load``: :func:`_run_predictions`, shared with :func:`_predictions`)."""
    from .paired_runs import run_intervals

    load = load or _run_predictions(client)
    for r in runs:
        head = "silver_agreement" if r.silver else "accuracy"
        if f"{head}_ci_low" in r.metrics or (saved := load(r)) is None:
            continue
        try:
            found = run_intervals(*saved)
        except Exception:  # too few papers (or unreadable): no interval, never a guess
            continue
        for key, name in (("accuracy", head), ("macro_f1", r.prefix + "macro_f1")):
            r.metrics[f"{name}_ci_low"], r.metrics[f"{name}_ci_high"] = found["ci"][key]
        r.metrics.setdefault("n_papers", found["n_papers"])


def _predictions(client, runs: Sequence[RunInfo], load=None) -> dict[str, Any]:
    """Each run's held-out predictions (None when it logged none), for runs that share a
    test corpus with another."""
    load = load or _run_predictions(client)
    tests = [r.test for r in runs]
    return {r.run_id: (None if (saved := load(r)) is None else saved[0])
            for r in runs if tests.count(r.test) >= 2}


def fold_metrics(client, experiment_id: str, run: RunInfo) -> dict[str, dict[str, float]]:
    """The metrics of each fold run of an experiment run, by fold name."""
    children = client.search_runs(
        [experiment_id], f"tags.`mlflow.parentRunId` = '{run.run_id}'", max_results=1000)
    return {c.data.tags.get("coresc.fold", c.info.run_name): dict(c.data.metrics)
            for c in children}


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

    from .experiments.curve import curve_runs_table, curve_table

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
               "in points.", "", *curve_table(rows), "", *curve_runs_table(rows)]
    return md


def _delta(value: float | None, base: float | None) -> str:
    return "n/a" if value is None or base is None else f"{(value - base) * 100:+.2f}"


def _calibration_section(client, runs: Sequence[RunInfo], stem: Path) -> tuple[list[str],
                                                                           list[Path]]:
    """ECE table, reliability diagram and accuracy / coverage curve of the runs that
    logged a ``calibration.json`` artefact."""
    import json

    from . import reliability as rel

    series = []
    for r in runs:
        try:
            path = client.download_artifacts(r.run_id, rel.ARTIFACT)
        except Exception:  # runs logged before calibration was measured have none
            continue
        series.append((r.label, json.loads(Path(path).read_text(encoding="utf-8"))))
    if not series:
        return [], []
    reliability_png = Path(f"{stem}-reliability.png")
    coverage_png = Path(f"{stem}-coverage.png")
    rel.plot_reliability(series, reliability_png, "Reliability of the primary label's score")
    rel.plot_coverage(series, coverage_png, "Accuracy / coverage as --min-score rises")
    silver = any(r.silver for r in runs)
    md = ["", "## Scores: calibration and the accuracy / coverage curve", "",
          "A score is meant as the probability that the label is one of the sentence's "
          "reference labels. ECE: expected calibration error of the primary label's score "
          f"over {len(series[0][1]['primary']['bins'])} equal-width bins, against that event "
          "(and against the stricter \"is the primary reference label\"); ECE secondary: of "
          "the emitted 2nd/3rd labels (their number in brackets). The last columns show "
          "what `coresc annotate --min-score X` keeps: the share of sentences left with a "
          "label and the accuracy of their primary label."
          + (" On silver runs, accuracy means agreement with SAPIENTA." if silver else ""),
          "", *rel.summary_table(series), "",
          f"![reliability diagram]({reliability_png.name})",
          f"![accuracy / coverage]({coverage_png.name})"]
    return md, [reliability_png, coverage_png]


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9+.-]+", "_", text).strip("_") or "x"
