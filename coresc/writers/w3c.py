"""W3C Web Annotation (JSON-LD): one annotation per sentence, one per line.

Each line is a whole JSON-LD document in the Web Annotation Data Model
(``"@context": "http://www.w3.org/ns/anno.jsonld"``), so a file of them streams and
can be split anywhere between lines. Its ``target`` is the article (PMC's page for a
PMCID, else doi.org, PubMed, or a ``urn:coresc:`` name) with two selectors: a
``TextQuoteSelector`` (the sentence as ``exact``, with up to :data:`CONTEXT`
characters of ``prefix`` and ``suffix``: what finds the sentence on any rendering of
the article) and a ``TextPositionSelector`` (``start``/``end`` in the paper's text as
coresc lays it out, :mod:`~coresc.writers.layout`: the same offsets as BioC and
PubAnnotation). Its ``body`` classifies the sentence: a ``TextualBody`` whose
``value`` is the CoreSC label, with its ``score``, the ``secondary`` labels and the
model as the body's ``creator``. ``score``, ``secondary`` and ``provenance`` are not
terms of the anno.jsonld context: JSON-LD processors drop them, JSON readers keep them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any, TextIO
from urllib.parse import quote

from ..document import Paper
from .layout import paper_text, placed_sentences
from .provenance import article_url, provenance

CONTEXT_IRI = "http://www.w3.org/ns/anno.jsonld"
#: Characters of ``prefix`` and ``suffix`` around a quote.
CONTEXT = 32
SCORE_DECIMALS = 4


def annotations(paper: Paper) -> Iterator[dict[str, Any]]:
    """The paper's annotations, one per sentence, in reading order."""
    text = paper_text(paper)
    source = article_url(paper)
    prov = provenance(paper)
    creator = _creator(prov)
    stem = f"urn:coresc:{quote(paper.id, safe='')}"
    for n, placed in enumerate(placed_sentences(paper), 1):
        sent, start, end = placed.sentence, placed.start, placed.end
        yield {
            "@context": CONTEXT_IRI,
            "id": f"{stem}:s{n}",
            "type": "Annotation",
            "motivation": "classifying",
            **_body(sent, creator),
            "target": {"source": source, "selector": [
                {"type": "TextQuoteSelector", "exact": text[start:end],
                 "prefix": text[max(0, start - CONTEXT):start],
                 "suffix": text[end:end + CONTEXT]},
                {"type": "TextPositionSelector", "start": start, "end": end}]},
            "provenance": {"paper": paper.id, "sid": sent.sid, **prov},
        }


def _creator(prov: dict[str, Any]) -> dict[str, Any]:
    name = "coresc" + (f" model {prov['model']}" if "model" in prov else "")
    creator = {"type": "Software", "name": name}
    if "model_version" in prov:
        creator["version"] = prov["model_version"]
    return creator


def _body(sent, creator: dict[str, Any]) -> dict[str, Any]:
    """``{"body": ...}``, or nothing for a sentence without a label (not annotated, or
    one ``--min-score`` kept back, and no gold label): a bodiless annotation marks it."""
    if not sent.pred and not sent.gold:
        return {}
    body: dict[str, Any] = {"type": "TextualBody", "purpose": "classifying",
                            "format": "text/plain", "creator": creator}
    if sent.pred:
        body["value"] = sent.pred[0].label
        body["score"] = round(sent.pred[0].score, SCORE_DECIMALS)
        body["secondary"] = [{"value": p.label, "score": round(p.score, SCORE_DECIMALS)}
                             for p in sent.pred[1:]]
    else:
        body["value"] = sent.gold_codes[0]
    if sent.gold:
        body["gold"] = sent.gold_codes
    return {"body": body}


def w3c_part(paper: Paper, with_pred: bool | None = None,
             with_withheld: bool | None = None) -> str:
    """One paper's annotations, one JSON-LD document per line (not escaped)."""
    return "".join(json.dumps(a, ensure_ascii=False) + "\n" for a in annotations(paper))


def w3c_header(with_pred: bool = True, with_withheld: bool = False) -> str:
    """What the file starts with: nothing (every line is an annotation)."""
    return ""


def write_w3c(papers: Sequence[Paper], fh: TextIO) -> None:
    """Write every sentence of ``papers`` as one Web Annotation per line."""
    for paper in papers:
        fh.write(w3c_part(paper))
