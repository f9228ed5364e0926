"""PubAnnotation JSON: one document per paper, its text and a denotation per sentence.

``text`` is the paper's text as coresc lays it out (:mod:`~coresc.writers.layout`);
each denotation's ``span`` (``begin``, ``end``: code points of ``text``) is one
sentence and its ``obj`` the CoreSC label (``Sentence`` for a sentence without one).
Attributes on the denotation give the label's ``score``, each ``secondary`` label and
any ``gold`` label. ``sourcedb``/``sourceid`` name the article (``PMC`` and its number,
else ``PubMed`` and the PMID, else ``coresc`` and the paper id); ``provenance`` holds
the rest (:mod:`~coresc.writers.provenance`). One file per paper, as PubAnnotation's
uploads take them.
"""

from __future__ import annotations

import json
from typing import Any

from ..document import Paper
from .layout import paper_text, placed_sentences
from .provenance import provenance

SCORE_DECIMALS = 4
#: The ``obj`` of a sentence that has no label.
NO_LABEL = "Sentence"


def pubannotation_document(paper: Paper) -> dict[str, Any]:
    """The paper as a PubAnnotation document (plain dicts and lists)."""
    denotations, attributes = [], []
    for n, placed in enumerate(placed_sentences(paper), 1):
        sent, tid = placed.sentence, f"T{n}"
        denotations.append({"id": tid, "span": {"begin": placed.start, "end": placed.end},
                            "obj": sent.pred[0].label if sent.pred else NO_LABEL})
        facts: list[tuple[str, Any]] = []
        if sent.pred:
            facts.append(("score", round(sent.pred[0].score, SCORE_DECIMALS)))
            facts += [("secondary", p.label) for p in sent.pred[1:]]
        facts += [("gold", code) for code in sent.gold_codes]
        attributes += [{"id": f"A{len(attributes) + i}", "subj": tid, "pred": pred,
                        "obj": obj} for i, (pred, obj) in enumerate(facts, 1)]
    sourcedb, sourceid = _source(paper)
    return {"sourcedb": sourcedb, "sourceid": sourceid, "text": paper_text(paper),
            "denotations": denotations, "attributes": attributes,
            "provenance": {"paper": paper.id, **provenance(paper)}}


def _source(paper: Paper) -> tuple[str, str]:
    pmcid, pmid = paper.meta.get("pmcid"), paper.meta.get("pmid")
    if pmcid:
        return "PMC", str(pmcid).upper().removeprefix("PMC")
    if pmid:
        return "PubMed", str(pmid)
    return "coresc", paper.id


def render_pubannotation(paper: Paper) -> bytes:
    """The paper's PubAnnotation JSON file (UTF-8, not escaped)."""
    return (json.dumps(pubannotation_document(paper), ensure_ascii=False, indent=1)
            + "\n").encode("utf-8")
