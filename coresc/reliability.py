"""How far an experiment's scores can be trusted: calibration and the accuracy/coverage curve.

From an experiment's held-out prediction records (``predictions.jsonl``: ``gold`` codes and
ranked ``pred`` with scores) :func:`calibration_summary` computes

* the reliability table and expected calibration error (ECE) of the primary label's
  score, against the event the score stands for: the label is one of the sentence's gold
  labels (:mod:`coresc.model.calibration`); also the ECE against the stricter event "the
  label is the gold primary label";
* the same for the emitted secondary labels' scores;
* the accuracy / coverage curve of ``annotate --min-score``: per threshold, the share of
  sentences that keep a label and the accuracy of their primary label (the primary label
  is the gold primary label, as the runs' ``accuracy`` counts it, so the curve starts at
  the run's accuracy).

On silver reference labels (SAPIENTA's) the same numbers measure agreement with SAPIENTA,
and the metric names say so. :func:`plot_reliability` and :func:`plot_coverage` draw the
diagrams for the run's artefacts and for ``coresc report``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .model.calibration import coverage_curve, reliability

#: The name of the artefact holding :func:`calibration_summary`'s result.
ARTIFACT = "calibration.json"


def calibration_summary(records: Iterable[Mapping[str, Any]]) -> dict[str, Any] | None:
    """Reliability of primary and secondary scores and the coverage curve (see module).

    Records without gold labels or without predictions are left out; ``None`` when no
    record is left.
    """
    first: list[float] = []
    hit: list[bool] = []
    strict: list[bool] = []
    second: list[float] = []
    second_hit: list[bool] = []
    for rec in records:
        gold, pred = rec.get("gold") or [], rec.get("pred") or []
        if not gold or not pred:
            continue
        first.append(float(pred[0]["score"]))
        hit.append(pred[0]["label"] in gold)
        strict.append(pred[0]["label"] == gold[0])
        for p in pred[1:]:
            second.append(float(p["score"]))
            second_hit.append(p["label"] in gold)
    if not first:
        return None
    return {
        "target": "label is one of the sentence's reference labels",
        "primary": reliability(first, hit),
        "primary_strict_ece": reliability(first, strict)["ece"],
        "secondary": reliability(second, second_hit) if second else None,
        "coverage": coverage_curve(first, strict),
    }


def calibration_metrics(summary: Mapping[str, Any], silver: bool) -> dict[str, float]:
    """Flat MLflow metrics of a summary (``silver_`` prefix on silver labels)."""
    pre = "silver_" if silver else ""
    out = {pre + "ece_primary": summary["primary"]["ece"],
           pre + "ece_primary_strict": summary["primary_strict_ece"]}
    if summary["secondary"]:
        out[pre + "ece_secondary"] = summary["secondary"]["ece"]
    for point in summary["coverage"]:
        if point["threshold"] in (0.5, 0.7, 0.9) and point["accuracy"] is not None:
            t = f"{point['threshold']:.1f}"
            out[f"{pre}coverage_at_{t}"] = point["coverage"]
            out[pre + ("agreement" if silver else "accuracy") + f"_at_{t}"] = point["accuracy"]
    return out


def _axes():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4.6, 4.2))
    return plt, fig, ax


def _save(plt, fig, ax, path: Path, xlabel: str, ylabel: str, title: str,
          legend: str) -> None:
    ax.set_xlim(0, 1.02)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, loc=legend)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_reliability(series: Sequence[tuple[str, Mapping[str, Any]]], path: Path,
                     title: str) -> None:
    """Reliability diagram: per bin, share of hits against mean score, one line per
    ``(name, summary)``, the diagonal for perfect calibration; the legend gives ECEs."""
    plt, fig, ax = _axes()
    ax.plot([0, 1], [0, 1], color="grey", linestyle=":", linewidth=1, label="calibrated")
    for name, summary in series:
        rows = [b for b in summary["primary"]["bins"] if b["n"]]
        ax.plot([b["confidence"] for b in rows], [b["accuracy"] for b in rows], marker="o",
                markersize=3, label=f"{name} (ECE {summary['primary']['ece']:.3f})")
    _save(plt, fig, ax, path, "primary label's score (mean per bin)",
          "share right (label among the reference labels)", title, "upper left")


def plot_coverage(series: Sequence[tuple[str, Mapping[str, Any]]], path: Path,
                  title: str) -> None:
    """Accuracy of the primary label against coverage as ``--min-score`` rises, one line
    per ``(name, summary)``, thresholds 0.5 / 0.7 / 0.9 marked."""
    plt, fig, ax = _axes()
    for name, summary in series:
        pts = [p for p in summary["coverage"] if p["accuracy"] is not None]
        line = ax.plot([p["coverage"] for p in pts], [p["accuracy"] for p in pts],
                       marker=".", label=name)[0]
        for p in pts:
            if p["threshold"] in (0.5, 0.7, 0.9):
                ax.annotate(f"{p['threshold']:.1f}", (p["coverage"], p["accuracy"]),
                            fontsize=6, color=line.get_color(), xytext=(3, 3),
                            textcoords="offset points")
    _save(plt, fig, ax, path, "coverage (share of sentences given a label)",
          "accuracy of the labels given", title, "lower left")


def summary_table(series: Sequence[tuple[str, Mapping[str, Any]]],
                  thresholds: Sequence[float] = (0.0, 0.5, 0.7, 0.9)) -> list[str]:
    """Markdown rows: per run, the ECEs and coverage / accuracy at some thresholds."""
    head = "| run | sentences | ECE primary | ECE primary (gold primary) | ECE secondary | " \
           + " | ".join(f"min-score {t:.1f}: coverage / accuracy" for t in thresholds) + " |"
    lines = [head, "| --- " * (5 + len(thresholds)) + "|"]
    for name, s in series:
        sec = s["secondary"]
        cells = [name, str(s["primary"]["n"]), f"{s['primary']['ece']:.3f}",
                 f"{s['primary_strict_ece']:.3f}",
                 f"{sec['ece']:.3f} ({sec['n']})" if sec else "-"]
        by_t = {p["threshold"]: p for p in s["coverage"]}
        for t in thresholds:
            p = by_t.get(t)
            cells.append("-" if not p or p["accuracy"] is None else
                         f"{100 * p['coverage']:.1f}% / {100 * p['accuracy']:.1f}%")
        lines.append("| " + " | ".join(cells) + " |")
    return lines
