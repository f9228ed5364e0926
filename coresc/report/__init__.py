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
from collections.abc import Sequence
from pathlib import Path

from ..errors import UsageError
from ..labels import sort_key
from ..paired_runs import paired_section
from .plots import _calibration_section, plot_domains, plot_side_by_side
from .published import (
    PUBLISHED_ACCURACY,
    PUBLISHED_CRA_CRF_F1,
    PUBLISHED_SOURCE,
    parse_published_f1,
)
from .runs import (
    RunInfo,
    _client,
    _fill_intervals,
    _predictions,
    _run_predictions,
    domain_f1,
    fold_metrics,
    resolve_runs,
)
from .tables import _fmt, curve_section, headline_table, per_fold_section, side_by_side

__all__ = [
    "PUBLISHED_ACCURACY", "PUBLISHED_CRA_CRF_F1", "PUBLISHED_SOURCE", "RunInfo",
    "curve_section", "domain_f1", "fold_metrics", "headline_table", "parse_published_f1",
    "per_fold_section", "plot_domains", "plot_side_by_side", "resolve_runs", "side_by_side",
    "write_report",
]


def _atomic_write(path: Path, data: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(data)
    os.replace(tmp, path)


def write_report(refs: Sequence[str], out: str | Path, tracking_uri: str | None = None,
                 experiment_name: str | None = None) -> list[Path]:
    """Write the Markdown report ``out`` and its PNGs beside it; return the files written."""
    from ..tracking import load_settings

    settings = load_settings()
    uri = tracking_uri or settings.tracking_uri
    from ..tracking import check_reachable, check_store_exists

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


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9+.-]+", "_", text).strip("_") or "x"
