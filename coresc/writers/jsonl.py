"""JSONL: one record per sentence, in reading order.

Record: ``paper, sid, section, section_type, zone, text, gold`` (ranked list of label
codes, empty when unlabelled) and, when any sentence of the paper has predictions,
``pred`` (ranked list of ``{"label": str, "score": float}``). A sentence that a score
threshold (``annotate --min-score``) left without a label has ``"pred": []`` and
``"withheld": {"label", "score", "min_score"}``: the label it would have had. ``section``
is the heading of the sentence's section and ``section_type`` its normalised type. A
paper read from a PDF by the embedded reader adds ``pdf_quality``: how well it was read
(:mod:`coresc.readers.pdf.quality`). Every record ends with ``provenance``: the article's
identifiers, version, licence, retraction status, source format and the model that
labelled it, as far as they are known (:func:`~coresc.writers.provenance.provenance`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any, TextIO

from ..document import Paper
from .provenance import provenance

#: Record fields in output order (``pred`` only for annotated papers).
FIELDS = ("paper", "sid", "section", "section_type", "zone", "text", "gold")
SCORE_DECIMALS = 4


def sentence_records(paper: Paper, with_pred: bool | None = None) -> Iterator[dict[str, Any]]:
    """The paper's sentences as flat records (see the module docstring).

    ``with_pred``: add ``pred``; ``None`` adds it when any sentence has predictions.
    """
    if with_pred is None:
        with_pred = any(s.annotated for s in paper.sentences())
    prov = provenance(paper)
    for sec in paper.sections:
        for sent in sec.sentences():
            record: dict[str, Any] = {
                "paper": paper.id,
                "sid": sent.sid,
                "section": sec.heading,
                "section_type": sec.type,
                "zone": sent.zone,
                "text": sent.text,
                "gold": sent.gold_codes,
            }
            if "pdf_quality" in paper.meta:
                record["pdf_quality"] = paper.meta["pdf_quality"]
            if with_pred:
                record["pred"] = [{"label": p.label, "score": round(p.score, SCORE_DECIMALS)}
                                  for p in sent.pred]
                if sent.withheld is not None:
                    record["withheld"] = withheld_record(sent, paper)
            record["provenance"] = prov
            yield record


def jsonl_part(paper: Paper, with_pred: bool | None = None,
               with_withheld: bool | None = None) -> str:
    """One paper's lines of a JSONL file (one JSON object per sentence, not escaped).

    ``with_withheld`` is accepted for the writers' common signature: a record has a
    ``withheld`` field exactly when its sentence had a label kept back.
    """
    dumps = json.dumps
    return "".join(dumps(record, ensure_ascii=False) + "\n"
                   for record in sentence_records(paper, with_pred))


def jsonl_header(with_pred: bool, with_withheld: bool = False) -> str:
    """What a JSONL file starts with: nothing (every line is a record)."""
    return ""


def withheld_record(sent, paper: Paper) -> dict[str, Any]:
    """The label a ``--min-score`` threshold kept back, its score and the threshold."""
    return {"label": sent.withheld.label,
            "score": round(sent.withheld.score, SCORE_DECIMALS),
            "min_score": paper.meta.get("min_score")}


def write_jsonl(papers: Sequence[Paper], fh: TextIO) -> None:
    """Write every sentence of ``papers`` as one JSON object per line (UTF-8, not escaped)."""
    for paper in papers:
        fh.write(jsonl_part(paper))
