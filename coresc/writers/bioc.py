"""BioC XML and BioC JSON: one BioC document per paper, in one collection.

The shape NCBI's BioC-PMC and PubTator use: a passage per paragraph, its ``infons``
giving ``section_type`` (PMC's vocabulary: ``TITLE``, ``ABSTRACT``, ``INTRO``,
``METHODS``, ``RESULTS``, ``DISCUSS``, ``CONCL``, ``FIG`` ...) and ``type`` (``front``,
``abstract``, ``paragraph``, ``fig_caption``), and one annotation per sentence whose
location (offset, length) is counted in the paper's text as BioC counts it: from the
start of the document, passages at their ``offset``
(:mod:`~coresc.writers.layout`). An annotation's infons hold ``type`` (``CoreSC``),
the sentence id, the primary ``label`` and its ``score``, the ``secondary`` labels and
their ``secondary_scores`` (``|``-joined), and ``gold`` labels where the paper has them.
The document's infons hold its provenance (:mod:`~coresc.writers.provenance`).

Both are streams: a collection's opening, then a document per paper, then its close.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Sequence
from typing import Any, TextIO

from lxml import etree

from ..document import Paper, Sentence
from .layout import Passage, passages
from .provenance import provenance_strings
from .streams import write_text_stream

SCORE_DECIMALS = 4
#: Our section types -> PMC BioC's ``section_type``.
PMC_SECTION_TYPES = {
    "title": "TITLE", "abstract": "ABSTRACT", "introduction": "INTRO",
    "background": "INTRO", "methods": "METHODS", "model": "METHODS",
    "results": "RESULTS", "discussion": "DISCUSS", "conclusion": "CONCL",
    "acknowledgements": "ACK_FUND", "appendix": "APPENDIX", "other": "OTHER",
}
#: A passage's zone -> its BioC ``type``.
PASSAGE_TYPES = {"title": "front", "abstract": "abstract", "body": "paragraph",
                 "caption": "fig_caption"}
SOURCE = "coresc"
#: The BioC key file: what the infons mean (docs/formats.md describes them).
KEY = "coresc-bioc.key"


# ---------------------------------------------------------------- one document as data


def bioc_document(paper: Paper) -> dict[str, Any]:
    """The paper as a BioC document in BioC JSON's shape (plain dicts and lists)."""
    numbered = iter(range(1, len(paper) + 1))
    return {"id": paper.id, "infons": provenance_strings(paper),
            "passages": [_passage(p, numbered) for p in passages(paper)],
            "annotations": [], "relations": []}


def _passage(passage: Passage, numbered) -> dict[str, Any]:
    sec = passage.section
    zone = passage.paragraph.sentences[0].zone
    infons = {"section_type": "FIG" if zone == "caption" else
              PMC_SECTION_TYPES.get(sec.type, sec.type.upper()),
              "type": PASSAGE_TYPES.get(zone, "paragraph"),
              "section": sec.heading, "coresc_section_type": sec.type}
    annotations = [{"id": str(next(numbered)), "infons": _sentence_infons(p.sentence),
                    "text": p.sentence.text,
                    "locations": [{"offset": p.start, "length": p.end - p.start}]}
                   for p in passage.sentences]
    return {"offset": passage.offset, "infons": infons, "text": passage.text,
            "sentences": [], "annotations": annotations, "relations": []}


def _sentence_infons(sent: Sentence) -> dict[str, str]:
    infons = {"type": "CoreSC", "sid": sent.sid}
    if sent.pred:
        infons["label"] = sent.pred[0].label
        infons["score"] = _score(sent.pred[0].score)
        if len(sent.pred) > 1:
            infons["secondary"] = "|".join(p.label for p in sent.pred[1:])
            infons["secondary_scores"] = "|".join(_score(p.score) for p in sent.pred[1:])
    if sent.withheld is not None:
        infons["withheld"] = sent.withheld.label
        infons["withheld_score"] = _score(sent.withheld.score)
    if sent.gold:
        infons["gold"] = "|".join(sent.gold_codes)
    return infons


def _score(value: float) -> str:
    return f"{value:.{SCORE_DECIMALS}f}"


def _collection_head() -> dict[str, Any]:
    return {"source": SOURCE, "date": datetime.date.today().strftime("%Y%m%d"), "key": KEY}


# ---------------------------------------------------------------- BioC JSON


def bioc_json_part(paper: Paper, with_pred: bool | None = None,
                   with_withheld: bool | None = None) -> str:
    """One paper's document in a BioC JSON collection (the writers' common signature)."""
    return json.dumps(bioc_document(paper), ensure_ascii=False)


def bioc_json_header(with_pred: bool = True, with_withheld: bool = False) -> str:
    """The collection's opening, up to its ``documents`` list."""
    head = json.dumps({**_collection_head(), "infons": {}}, ensure_ascii=False)
    return head[:-1] + ', "documents": [\n'


def write_bioc_json(papers: Sequence[Paper], fh: TextIO) -> None:
    """Write ``papers`` as one BioC JSON collection."""
    from . import WRITERS

    write_text_stream(WRITERS["bioc-json"], papers, fh)


# ---------------------------------------------------------------- BioC XML


def bioc_xml_part(paper: Paper, with_pred: bool | None = None,
                  with_withheld: bool | None = None) -> str:
    """One paper's ``<document>`` element (the writers' common signature)."""
    doc = bioc_document(paper)
    el = etree.Element("document")
    etree.SubElement(el, "id").text = doc["id"]
    _infons(el, doc["infons"])
    for passage in doc["passages"]:
        _xml_passage(etree.SubElement(el, "passage"), passage)
    return etree.tostring(el, encoding="unicode") + "\n"


def _xml_passage(el, passage: dict[str, Any]) -> None:
    _infons(el, passage["infons"])
    etree.SubElement(el, "offset").text = str(passage["offset"])
    etree.SubElement(el, "text").text = passage["text"]
    for ann in passage["annotations"]:
        a = etree.SubElement(el, "annotation", id=ann["id"])
        _infons(a, ann["infons"])
        for loc in ann["locations"]:
            etree.SubElement(a, "location", offset=str(loc["offset"]),
                             length=str(loc["length"]))
        etree.SubElement(a, "text").text = ann["text"]


def _infons(el, infons: dict[str, str]) -> None:
    for key, value in infons.items():
        etree.SubElement(el, "infon", key=key).text = value


def bioc_xml_header(with_pred: bool = True, with_withheld: bool = False) -> str:
    """The XML declaration, BioC's DOCTYPE and the collection's opening."""
    head = _collection_head()
    fields = "".join(f"<{k}>{head[k]}</{k}>" for k in ("source", "date", "key"))
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<!DOCTYPE collection SYSTEM "BioC.dtd">\n'
            f"<collection>{fields}\n")


def write_bioc_xml(papers: Sequence[Paper], fh: TextIO) -> None:
    """Write ``papers`` as one BioC XML collection."""
    from . import WRITERS

    write_text_stream(WRITERS["bioc"], papers, fh)
