"""Artefacts: the files a run leaves (report, per-label CSV, confusion and calibration
plots, predictions)."""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ._util import _write_json


def write_artifacts(out: Path, title: str, scores: Mapping[str, Any], silver: bool,
                    records: list[dict], extra: Mapping[str, float]) -> dict[str, float]:
    """confusion.png, per_label.csv, report.md, predictions.jsonl and the scores'
    calibration (calibration.json, reliability.png, coverage.png) into ``out``; returns
    the calibration metrics (:func:`coresc.reliability.calibration_metrics`)."""
    from .. import reliability as rel

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
             f"{scores['n_sentences']} sentences, {scores['n_papers']} papers.",
             _interval_note(scores), "",
             "| measure | value | 95% CI |", "| --- | --- | --- |",
             f"| {head} | {prim['accuracy']:.4f} | {_ci(prim.get('accuracy_ci'))} |",
             f"| macro F1 | {prim['macro_f1']:.4f} | {_ci(prim.get('macro_f1_ci'))} |",
             f"| micro F1 | {prim['micro_f1']:.4f} | |"]
    for k, v in extra.items():
        lines.append(f"| {k} | {v:.4g} | |")
    lines += ["", "| label | P | R | F1 | F1 95% CI | support |",
              "| --- | --- | --- | --- | --- | --- |"]
    for lab, s in prim["per_label"].items():
        lines.append(f"| {lab} | {s['precision']:.3f} | {s['recall']:.3f} | {s['f1']:.3f} | "
                     f"{_ci(s.get('f1_ci'), 3)} | {s['support']} |")
    lines += ["", "| kappa | micro | 95% CI | macro | 95% CI |",
              "| --- | --- | --- | --- | --- |"]
    for m in agr["micro"]:
        lines.append(f"| {m} | {agr['micro'][m]:.4f} | {_ci(agr.get('micro_ci', {}).get(m))} "
                     f"| {agr['macro'][m]:.4f} | {_ci(agr.get('macro_ci', {}).get(m))} |")
    lines += ["", "| secondary labels | value |", "| --- | --- |"]
    for k, v in sec.items():
        shown = "-" if v is None else (f"{v:.4f}" if isinstance(v, float) else str(v))
        lines.append(f"| {k} | {shown} |")
    return "\n".join(lines) + "\n"


def _ci(pair: Sequence[float] | None, digits: int = 4) -> str:
    return f"{pair[0]:.{digits}f} - {pair[1]:.{digits}f}" if pair else ""


def _interval_note(scores: Mapping[str, Any]) -> str:
    """Says how the intervals were made, or why there are none."""
    from ..evaluation import interval_line

    return interval_line(scores).strip()


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
