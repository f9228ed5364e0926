"""Scoring: the metrics of a fold or of all folds pooled, as MLflow metric names."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ..errors import CorescError


def score_predictions(gold_by: Mapping[str, list[list[str]]],
                      pred_by: Mapping[str, list[list[str]]],
                      strata: Mapping[str, str] | None = None,
                      intervals: bool = False) -> dict[str, Any]:
    """Primary scores, the five kappas and secondary-label scores for aligned lists.

    ``gold_by`` / ``pred_by``: paper key -> ranked label list per sentence. Sentences
    without gold are left out (as :func:`coresc.evaluation.evaluate_papers` does).
    ``intervals``: 95% intervals over papers, within ``strata`` (paper -> fold or corpus),
    beside the scores (:func:`coresc.stats.attach_intervals`).
    """
    from ..evaluation import NO_PREDICTION, score_label_lists

    g_by, p_by = {}, {}
    for key, golds in gold_by.items():
        keep = [(g, p) for g, p in zip(golds, pred_by[key], strict=True) if g]
        g_by[key] = [g for g, _ in keep]
        p_by[key] = [p or [NO_PREDICTION] for _, p in keep]
    try:
        return score_label_lists(g_by, p_by, intervals=intervals, strata=strata)
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
    out.update(_interval_metrics(scores, pre, silver))
    return {k: float(v) for k, v in out.items() if v is not None and not math.isnan(v)}


def _interval_metrics(scores: Mapping[str, Any], pre: str, silver: bool) -> dict[str, float]:
    """``NAME_ci_low`` / ``NAME_ci_high`` beside each score that has an interval, and the
    papers they rest on (``n_papers``)."""
    prim, agr = scores["primary"], scores["agreement"]
    out: dict[str, float] = {"n_papers": scores["n_papers"]}
    found = {(pre + "agreement" if silver else "accuracy"): prim.get("accuracy_ci"),
             pre + "macro_f1": prim.get("macro_f1_ci")}
    for lab, s in prim["per_label"].items():
        found[f"{pre}f1_{_metric_safe(lab)}"] = s.get("f1_ci")
    for avg in ("micro", "macro"):
        for measure, pair in agr.get(f"{avg}_ci", {}).items():
            found[f"{pre}kappa_{measure}_{avg}"] = pair
    for name, pair in found.items():
        if pair:
            out[f"{name}_ci_low"], out[f"{name}_ci_high"] = pair
    return out


def _metric_safe(label: str) -> str:
    return "".join(c if c.isalnum() or c in "_-." else "_" for c in label)
