"""Plots of a report (PNG, matplotlib loaded only here and late): per-label F1 side by
side, per-label F1 per held-out domain, and the calibration section's reliability diagram
and accuracy / coverage curve."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from ..labels import sort_key
from .published import PUBLISHED_CRA_CRF_F1
from .runs import RunInfo


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


def _calibration_section(client, runs: Sequence[RunInfo], stem: Path) -> tuple[list[str],
                                                                           list[Path]]:
    """ECE table, reliability diagram and accuracy / coverage curve of the runs that
    logged a ``calibration.json`` artefact."""
    import json

    from .. import reliability as rel

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
