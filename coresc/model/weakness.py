"""The weaknesses a model card reports, from held-out predictions: how captions fare
against the rest of the text, and how often the labels most often confused
(:data:`CONFUSIONS`) are taken for each other, with examples.

:func:`evaluation_from_predictions` makes a model directory's ``evaluation.json`` from the
experiment runner's finished runs (``experiments/model_card.py``, never on in-sample
predictions); :mod:`~coresc.model.card` renders it.
"""

from __future__ import annotations

import datetime as _dt
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

#: The confusions the card reports, as (label, label) pairs, and how many examples each.
CONFUSIONS = (("Exp", "Met"), ("Obs", "Res"))
N_EXAMPLES = 2
EXAMPLE_CHARS = 220


def evaluation_from_predictions(runs: Sequence[Mapping[str, Any]],
                                records: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The card's ``evaluation.json``: held-out results and weaknesses.

    ``runs``: one dict per experiment run (``config``, ``run_id``, ``test``, ``train``,
    ``labels`` gold/silver, ``metrics``, ``settings``: differences from the model's own
    settings, empty when none); ``records``: the runs' pooled held-out prediction
    records (``predictions.jsonl``: ``corpus``, ``zone``, ``text``, ``gold``, ``pred``)
    of the runs on gold labels.
    """
    records = [r for r in records if r.get("gold") and r.get("pred")]
    return {
        "generated": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "runs": [dict(r) for r in runs],
        "weaknesses": weaknesses(records) if records else {},
    }


def weaknesses(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Captions against the rest, and the :data:`CONFUSIONS`, from held-out records.

    Examples are the wrong predictions with the highest scores (the ones a score filter
    would let through), in a fixed order.
    """
    def right(r) -> bool:
        return r["pred"][0]["label"] == r["gold"][0]

    caption = [r for r in records if r.get("zone") == "caption"]
    rest = [r for r in records if r.get("zone") != "caption"]
    out: dict[str, Any] = {"n": len(records)}
    if caption:
        wrong = Counter((r["gold"][0], r["pred"][0]["label"]) for r in caption if not right(r))
        out["captions"] = {
            "n": len(caption), "accuracy": sum(map(right, caption)) / len(caption),
            "accuracy_elsewhere": sum(map(right, rest)) / len(rest) if rest else None,
            "top_confusions": [[g, p, n] for (g, p), n in wrong.most_common(3)],
            "examples": _examples([r for r in caption if not right(r)])}
    pairs = []
    for a, b in CONFUSIONS:
        entry = {"labels": [a, b]}
        for g, p in ((a, b), (b, a)):
            gold = [r for r in records if r["gold"][0] == g]
            confused = [r for r in gold if r["pred"][0]["label"] == p]
            entry[f"{g}_as_{p}"] = {"n": len(confused), "of": len(gold),
                                    "examples": _examples(confused)}
        pairs.append(entry)
    out["confusions"] = pairs
    return out


def _examples(records: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    ranked = sorted(records, key=lambda r: (-r["pred"][0]["score"], r.get("corpus") or "",
                                            str(r.get("paper")), str(r.get("sid"))))
    out = []
    for r in ranked[:N_EXAMPLES]:
        text = r["text"] if len(r["text"]) <= EXAMPLE_CHARS \
            else r["text"][: EXAMPLE_CHARS - 1].rstrip() + "…"
        out.append({"corpus": r.get("corpus"), "paper": r.get("paper"), "text": text,
                    "gold": r["gold"], "pred": r["pred"][0]["label"],
                    "score": round(float(r["pred"][0]["score"]), 3)})
    return out
