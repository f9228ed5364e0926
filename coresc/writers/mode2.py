"""SAPIENTA mode2 XML: each labelled ``<s>`` gets empty ``CoreSc1``..``CoreSc3`` elements.

For a paper read from XML, the source document is kept as it is: every sentence's
``<s>`` loses its old annotations (``annotationART`` is unwrapped, old ``CoreSc*``
elements are dropped) and gains new ``CoreSc1``..``CoreSc3`` elements carrying
``type``, ``conceptID``, ``novelty`` and ``advantage``. They go at the end of the
sentence, as in the Multi-CoreSC gold corpus (made with SAPIENTA's annotation tool and
loaded by its viewer), so the sentence text and its inline markup stay exactly where
they were; when the ``<s>`` already wraps its text in ``<text>`` (SAPIENTA's
annotator output) they go before it instead. A root other than ``PAPER`` (JATS,
Elsevier) is wrapped in ``<PAPER><mode2 .../>...</PAPER>`` as SAPIENTA's splitter does.

A sentence that a score threshold (``annotate --min-score``) left without a label gets no
``CoreSc`` element but an empty ``CoreScWithheld`` with the label it would have had
(``type``), its ``score`` and the threshold (``minScore``); readers take it for no label.
A sentence a person decided has no CoreSC label (``Sentence.no_label``: acknowledgements,
funding) gets an empty ``CoreScNone`` with the gold labels; readers take it for no label
too, and read it back as ``no_label``.

The ``mode2`` element holds an empty ``provenance`` element whose attributes are the
paper's provenance (:func:`~coresc.writers.provenance.provenance`: ``pmcid``, ``pmid``,
``doi``, ``version``, ``license``, ``retracted``, ``source_format``, ``model`` ...), as
far as they are known; one written before is replaced.

Papers without a source tree (plain text, JSONL) get a fresh SciXML-like document:
``PAPER/mode2``, ``TITLE``, ``ABSTRACT``, ``BODY/DIV[@DEPTH]/HEADER``, ``P``, ``s``.

The paper's own tree is never changed: the writer works on a deep copy, so writing
the same paper twice (or in two formats) gives the same result.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Iterable

from lxml import etree

from .._version import __version__
from ..document import Label, Paper, Prediction, Section, Sentence
from ..xmlsafe import localname
from .provenance import provenance_strings

WITHHELD_TAG = "CoreScWithheld"
NO_LABEL_TAG = "CoreScNone"
ANNOTATION_TAGS = {"annotationART": 1, "CoreSc1": 1, "CoreSc2": 2, "CoreSc3": 3,
                   WITHHELD_TAG: 0, NO_LABEL_TAG: 0}
MAX_LABELS = 3
LABEL_SOURCES = ("auto", "pred", "gold")


def render_mode2(paper: Paper, labels: str = "auto", in_place: bool = False) -> bytes:
    """The paper as mode2 XML (UTF-8 bytes with an XML declaration).

    ``labels``: ``"pred"`` writes ``Sentence.pred``, ``"gold"`` writes ``Sentence.gold``,
    ``"auto"`` writes predictions when the paper has some (see :func:`uses_predictions`),
    else gold; either way a sentence with gold and nothing predicted keeps its gold.
    ``in_place`` annotates the paper's own tree instead of a copy (faster, for a paper
    that is not used afterwards: the batch annotator's).
    """
    tree = mode2_tree(paper, labels, in_place)
    return etree.tostring(tree, xml_declaration=True, encoding="UTF-8") + b"\n"


def mode2_tree(paper: Paper, labels: str = "auto", in_place: bool = False,
               attrs: list[list[dict]] | None = None) -> etree._ElementTree:
    """A new mode2 document for ``paper`` (the paper is left untouched unless ``in_place``).

    ``attrs`` (one list of attribute dicts per sentence, as :func:`label_attributes`
    gives) replaces the labels chosen by ``labels``: for a caller that decides each
    sentence's elements itself (``coresc review``: a person's labels, the model's kept back).
    """
    if attrs is None:
        attrs = label_attributes(paper.sentences(), uses_predictions(paper, labels),
                                 paper.meta.get("min_score"), keep_gold=labels == "auto")
    tree = _fresh_tree(paper, attrs) if paper.tree is None else _annotated_copy(
        paper, attrs, in_place)
    _stamp_provenance(tree.getroot(), paper)
    return tree


def _stamp_provenance(root: etree._Element, paper: Paper) -> None:
    """The paper's provenance in ``mode2/provenance`` (a root with no ``mode2`` element,
    a bare SciXML ``PAPER``, gets none: nothing of its shape names where it goes)."""
    head = next((c for c in root if isinstance(c.tag, str) and localname(c) == "mode2"), None)
    if head is None:
        return
    for old in [c for c in head if isinstance(c.tag, str) and localname(c) == "provenance"]:
        head.remove(old)
    etree.SubElement(head, "provenance", provenance_strings(paper))


def uses_predictions(paper: Paper, labels: str) -> bool:
    """Whether ``labels`` (``auto``, ``pred`` or ``gold``) means writing the predictions.

    ``auto`` writes predictions when a sentence of the paper has some, or a model has
    just labelled it with a score threshold (every label may have been kept back), else
    gold. A label kept back is no prediction here: a half-reviewed ``coresc review``
    file holds the reviewed sentences' gold and the others' withheld suggestions, and
    it is gold.
    """
    if labels not in LABEL_SOURCES:
        raise ValueError(f"labels must be one of {LABEL_SOURCES}, not {labels!r}")
    return labels == "pred" or (labels == "auto" and (
        "min_score" in paper.meta or any(s.pred for s in paper.sentences())))


def label_attributes(sentences: Iterable[Sentence], use_pred: bool,
                     min_score: float | None = None,
                     keep_gold: bool = False) -> list[list[dict]]:
    """Per sentence, the attribute dicts of its ``CoreSc1``..``CoreSc3`` (ranked).

    Gold labels keep their own attributes (missing ones stay missing, so a gold paper
    reads back exactly). Predictions get SAPIENTA's attributes: ``conceptID`` is the
    label plus a running count over the paper, ``novelty`` and ``advantage`` are
    ``"None"``, plus the model's ``score``. A withheld prediction gives one dict whose
    ``_tag`` is :data:`WITHHELD_TAG`: in place of predictions, and in place of gold
    where the sentence has none (it reads back as no label, and keeps the suggestion);
    a gold sentence marked as having no label, one whose ``_tag`` is
    :data:`NO_LABEL_TAG`. ``keep_gold`` (the writers' ``auto``): a sentence with neither
    a prediction nor a withheld one keeps its gold when predictions are written.
    """
    counts: Counter[str] = Counter()
    out = []
    for sent in sentences:
        pred = use_pred and (bool(sent.pred) or sent.withheld is not None or not keep_gold)
        if not sent.pred and sent.withheld is not None and (pred or not sent.gold):
            w = {"_tag": WITHHELD_TAG, "type": sent.withheld.label,
                 "score": f"{sent.withheld.score:.3f}"}
            if min_score is not None:
                w["minScore"] = f"{min_score:g}"
            out.append([w])
            continue
        if not pred and sent.no_label and not sent.gold:
            out.append([{"_tag": NO_LABEL_TAG}])
            continue
        ranked = sent.pred if pred else sent.gold
        out.append([_pred_attrs(x, counts) if pred else _gold_attrs(x)
                    for x in ranked[:MAX_LABELS]])
    return out


def _gold_attrs(label: Label) -> dict:
    pairs = (("type", label.code), ("conceptID", label.concept_id),
             ("novelty", label.novelty), ("advantage", label.advantage))
    return {k: v for k, v in pairs if v is not None}


def _pred_attrs(pred: Prediction, counts: Counter[str]) -> dict:
    counts[pred.label] += 1
    return {"type": pred.label, "conceptID": f"{pred.label}{counts[pred.label]}",
            "novelty": "None", "advantage": "None", "score": f"{pred.score:.3f}"}


# ---------------------------------------------------------------- source tree kept


def copy_with_sentences(paper: Paper) -> tuple[etree._ElementTree, list[etree._Element]]:
    """A deep copy of the paper's source tree and, per sentence, its element in the copy."""
    tree = copy.deepcopy(paper.tree)
    elements = [sent.element for sent in paper.sentences()]
    copies = _counterparts(paper.tree.getroot(), tree.getroot(), elements)
    for sent, el in zip(paper.sentences(), copies, strict=True):
        if el is None:
            raise ValueError(f"{paper.id}: sentence {sent.sid} has no element in the tree")
    return tree, copies


def _annotated_copy(paper: Paper, attrs: list[list[dict]],
                    in_place: bool = False) -> etree._ElementTree:
    if in_place:
        tree, copies = paper.tree, [sent.element for sent in paper.sentences()]
    else:
        tree, copies = copy_with_sentences(paper)
    for el, sent_attrs in zip(copies, attrs, strict=True):
        _annotate_sentence(el, sent_attrs)
    root = tree.getroot()
    if localname(root) != "PAPER":
        return etree.ElementTree(_wrap_in_paper(root, paper))
    return tree


def _counterparts(source: etree._Element, copied: etree._Element,
                  elements: list) -> list[etree._Element | None]:
    """The copy's element for each of ``elements`` of the source (None: not in it).

    The trees have the same shape, so the n-th element of a tag in document order is the
    same in both; only elements with the sentences' tags are visited.
    """
    tags = {el.tag for el in elements if el is not None}
    if not tags:
        return [None] * len(elements)
    position = {el: i for i, el in enumerate(source.iter(*tags))}
    targets = list(copied.iter(*tags))
    return [None if el is None or el not in position else targets[position[el]]
            for el in elements]


def _annotate_sentence(s: etree._Element, attrs: list[dict]) -> None:
    old_atype: dict[int, str] = {}
    for el in list(s.iter(*ANNOTATION_TAGS)):
        rank = ANNOTATION_TAGS[localname(el)]
        if el.get("atype"):
            old_atype.setdefault(rank, el.get("atype"))
        if localname(el) == "annotationART":
            _unwrap(el)
        else:
            _remove_keep_tail(el)
    new = []
    for rank, values in enumerate(attrs, start=1):
        # "GSC" (gold standard) stays only on the gold labels it came with.
        if rank in old_atype and "score" not in values:
            values = {"atype": old_atype[rank], **values}
        new.append(_label_element(rank, values))
    text_child = next(s.iterchildren("{*}text"), None)
    if text_child is not None:
        for el in reversed(new):
            text_child.addprevious(el)
    else:
        s.extend(new)


def _label_element(rank: int, values: dict) -> etree._Element:
    """``CoreSc<rank>`` (or the tag a dict's ``_tag`` names) with the other attributes."""
    el = etree.Element(values.get("_tag", f"CoreSc{rank}"))
    for key, value in values.items():
        if key != "_tag":
            el.set(key, value)
    return el


def _append_before(el: etree._Element, text: str | None) -> None:
    """Append ``text`` to what precedes ``el``: its previous sibling's tail or parent's text."""
    if not text:
        return
    prev = el.getprevious()
    if prev is not None:
        prev.tail = (prev.tail or "") + text
    else:
        parent = el.getparent()
        parent.text = (parent.text or "") + text


def _remove_keep_tail(el: etree._Element) -> None:
    """Remove ``el`` but keep the text that follows it (lxml drops the tail with it)."""
    _append_before(el, el.tail)
    el.getparent().remove(el)


def _unwrap(el: etree._Element) -> None:
    """Replace ``el`` by its content (text and children), in place."""
    _append_before(el, el.text)
    for child in list(el):
        el.addprevious(child)  # moves the child with its tail
    _remove_keep_tail(el)


def _wrap_in_paper(root: etree._Element, paper: Paper) -> etree._Element:
    top = _paper_element(paper)
    top[0].tail = "\n"
    top.append(root)
    return top


def _paper_element(paper: Paper) -> etree._Element:
    top = etree.Element("PAPER")
    name = paper.meta.get("mode2_name") or paper.id
    etree.SubElement(top, "mode2", name=name, hasDoc="yes", version=f"coresc-{__version__}")
    return top


# ---------------------------------------------------------------- fresh document


def _fresh_tree(paper: Paper, attrs: list[list[dict]]) -> etree._ElementTree:
    top = _paper_element(paper)
    attrs_of = {id(sent): a for sent, a in zip(paper.sentences(), attrs, strict=True)}
    title_secs = [sec for sec in paper.sections if sec.type == "title"]
    if title_secs or paper.title:
        title = etree.SubElement(top, "TITLE")
        if title_secs:
            for sec in title_secs:
                for sent in sec.sentences():
                    _add_sentence(title, sent, attrs_of[id(sent)])
        else:
            title.text = paper.title
    body = None
    abstract = None
    divs: dict[int, etree._Element] = {}
    for i, sec in enumerate(paper.sections):
        if sec.type == "title":
            continue
        if sec.type == "abstract" and sec.depth == 0:
            if abstract is None:
                abstract = etree.SubElement(top, "ABSTRACT")
            container = abstract
        else:
            if body is None:
                body = etree.SubElement(top, "BODY")
            parent = divs.get(sec.parent) if sec.parent is not None else None
            container = etree.SubElement(body if parent is None else parent, "DIV",
                                         DEPTH=str(max(sec.depth, 1)))
            etree.SubElement(container, "HEADER").text = sec.heading
            divs[i] = container
        _add_paragraphs(container, sec, attrs_of)
    etree.indent(top, space=" ")
    for s in top.iter("s"):  # no layout whitespace inside a sentence
        for child in s:
            child.tail = None
    return etree.ElementTree(top)


def _add_paragraphs(container: etree._Element, sec: Section, attrs_of: dict) -> None:
    for para in sec.paragraphs:
        if not para.sentences:
            continue
        holder = container
        if all(s.zone == "caption" for s in para.sentences):
            holder = etree.SubElement(container, "CAPTION")
        p = etree.SubElement(holder, "P")
        for sent in para.sentences:
            _add_sentence(p, sent, attrs_of[id(sent)])


def _add_sentence(parent: etree._Element, sent: Sentence, attrs: list[dict]) -> None:
    s = etree.SubElement(parent, "s", sid=sent.sid)
    s.text = sent.text
    for rank, values in enumerate(attrs, start=1):
        s.append(_label_element(rank, values))
