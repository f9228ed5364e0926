"""TEI out for TEI in: the user's own document, each sentence's ``<s>`` carrying its labels.

The encoding is :mod:`coresc.tei`'s: ``ana="#coresc.Met #coresc.Exp"`` (ranked pointers
into a CoreSC taxonomy) and ``coresc:score="0.712 0.201"`` for predictions; a sentence
read from a PDF by the embedded reader also gets GROBID's ``coords`` (its boxes on the
pages). When any sentence carries labels, the header gains (or has replaced) the taxonomy
``<taxonomy xml:id="coresc">`` in ``encodingDesc/classDecl``, one ``<category>`` per
label with its name, and an ``<application ident="coresc">`` entry in
``encodingDesc/appInfo`` beside GROBID's. The header's ``xenoData`` holds an empty
``coresc:provenance`` whose attributes are the paper's provenance
(:func:`~coresc.writers.provenance.provenance`: ``pmcid``, ``doi``, ``version``,
``license``, ``retracted``, ``source_format``, ``model`` ...); one written before is
replaced. Everything else in the document is kept.

The paper's own tree is never changed: the writer works on a deep copy.
"""

from __future__ import annotations

from lxml import etree

from .._version import __version__
from ..document import PDF_PAGES, Paper
from ..labels import LABEL_NAMES, LABELS
from ..tei import CORESC_NS, TAXONOMY_ID, XML_NS, write_labels
from ..xmlsafe import localname
from .mode2 import MAX_LABELS, copy_with_sentences, uses_predictions
from .provenance import provenance_strings

_HEADER_ORDER = ("fileDesc", "encodingDesc", "profileDesc", "xenoData", "revisionDesc")


def render_tei(paper: Paper, labels: str = "auto") -> bytes:
    """The paper's TEI document with its labels (UTF-8 bytes with an XML declaration).

    ``labels`` as for :func:`~coresc.writers.mode2.render_mode2`: ``pred``, ``gold`` or
    ``auto`` (predictions when the paper has any; a sentence without one keeps its gold).
    """
    tree = tei_tree(paper, labels)
    return etree.tostring(tree, xml_declaration=True, encoding="UTF-8") + b"\n"


def tei_tree(paper: Paper, labels: str = "auto") -> etree._ElementTree:
    """A labelled copy of the paper's TEI tree (the paper is left untouched)."""
    if paper.tree is None or paper.source_format != "tei":
        raise ValueError(f"{paper.id}: TEI output needs a paper read from TEI "
                         f"(this one is {paper.source_format or 'not XML'})")
    use_pred = uses_predictions(paper, labels)
    tree, elements = copy_with_sentences(paper)
    _declare_namespace(tree)
    used: list[str] = []
    for sent, s in zip(paper.sentences(), elements, strict=True):
        # auto: a sentence nothing was predicted for keeps its gold, as in mode2
        if use_pred and (sent.annotated or labels == "pred"):
            ranked = sent.pred[:MAX_LABELS]
            codes, scores = [p.label for p in ranked], [p.score for p in ranked]
        else:
            codes, scores = sent.gold_codes[:MAX_LABELS], None
        write_labels(s, codes, scores)
        if sent.boxes:
            s.set("coords", grobid_coords(sent.boxes, paper.meta.get(PDF_PAGES) or []))
        used.extend(c for c in codes if c not in used)
    if used:
        _declare(tree.getroot(), used)
    _stamp_provenance(tree.getroot(), paper)
    return tree


def _stamp_provenance(root: etree._Element, paper: Paper) -> None:
    """The paper's provenance in ``teiHeader/xenoData`` (TEI's place for metadata in
    another vocabulary), as one ``coresc:provenance`` element."""
    xeno = _child(_header(root), "xenoData")
    new = etree.Element(f"{{{CORESC_NS}}}provenance", provenance_strings(paper))
    _replace(xeno, new, lambda c: c.tag == new.tag)


def grobid_coords(boxes, pages: list) -> str:
    """A sentence's boxes as GROBID writes them (``coords``): ``page,x,y,w,h`` joined by
    ``;``, the page counted from 1, x and y the box's top left corner from the page's top
    left (as shown), in points."""
    out = []
    for page, x0, y0, x1, y1 in boxes:
        height = pages[page][1] if page < len(pages) else y1
        out.append(f"{page + 1},{x0:.2f},{height - y1:.2f},{x1 - x0:.2f},{y1 - y0:.2f}")
    return ";".join(out)


def _declare_namespace(tree: etree._ElementTree) -> None:
    """Declare the ``coresc`` prefix on the root (lxml cannot add one in place)."""
    old = tree.getroot()
    if old.nsmap.get("coresc") == CORESC_NS:
        return
    new = etree.Element(old.tag, dict(old.attrib), nsmap={**old.nsmap, "coresc": CORESC_NS})
    new.text = old.text
    for child in list(old):
        new.append(child)  # moves the child with its tail
    before, after = _top_level_siblings(old)
    tree._setroot(new)
    for sib in before:
        new.addprevious(sib)
    for sib in reversed(after):
        new.addnext(sib)


def _top_level_siblings(root: etree._Element) -> tuple[list, list]:
    """Comments and processing instructions before and after the root, in order."""
    before, after = [], []
    sib = root.getprevious()
    while sib is not None:
        before.insert(0, sib)
        sib = sib.getprevious()
    sib = root.getnext()
    while sib is not None:
        after.append(sib)
        sib = sib.getnext()
    return before, after


def _tag(like: etree._Element, name: str) -> str:
    """``name`` in the namespace of ``like`` (TEI's, or none in a namespace-less TEI)."""
    ns = etree.QName(like).namespace
    return f"{{{ns}}}{name}" if ns else name


def _child(parent: etree._Element, name: str) -> etree._Element:
    """``parent``'s TEI child ``name``, made in its schema place when missing."""
    found = next((c for c in parent if localname(c) == name), None)
    if found is not None:
        return found
    el = etree.Element(_tag(parent, name))
    if localname(parent) == "teiHeader":  # the header's parts come in a fixed order
        rank = _HEADER_ORDER.index(name)
        after = [c for c in parent if localname(c) in _HEADER_ORDER[:rank]]
        if after:
            after[-1].addnext(el)
            return el
        parent.insert(0, el)
        return el
    parent.append(el)
    return el


def _replace(parent: etree._Element, new: etree._Element, same) -> None:
    """Put ``new`` where the child matching ``same`` was, or at the end."""
    old = next((c for c in parent if same(c)), None)
    if old is None:
        parent.append(new)
    else:
        new.tail = old.tail
        parent.replace(old, new)


def _header(root: etree._Element) -> etree._Element:
    """The root's ``teiHeader``, made first when missing."""
    header = next((c for c in root if localname(c) == "teiHeader"), None)
    if header is None:
        header = etree.Element(_tag(root, "teiHeader"))
        root.insert(0, header)
    return header


def _declare(root: etree._Element, used: list[str]) -> None:
    """Add the CoreSC taxonomy and coresc's application entry to the TEI header."""
    encoding = _child(_header(root), "encodingDesc")

    app = etree.Element(_tag(root, "application"), ident="coresc", version=__version__)
    etree.SubElement(app, _tag(root, "label")).text = "coresc"
    etree.SubElement(app, _tag(root, "desc")).text = (
        "CoreSC sentence labels: each s carries ana (ranked pointers into the taxonomy "
        "coresc) and, for predictions, coresc:score (their probabilities)")
    _replace(_child(encoding, "appInfo"), app,
             lambda c: localname(c) == "application" and c.get("ident") == "coresc")

    taxonomy = etree.Element(_tag(root, "taxonomy"), {f"{{{XML_NS}}}id": TAXONOMY_ID})
    etree.SubElement(taxonomy, _tag(root, "desc")).text = (
        "CoreSC: the Core Scientific Concepts a sentence of a scientific paper conveys")
    for code in [*LABELS, *(c for c in used if c not in LABELS)]:
        cat = etree.SubElement(taxonomy, _tag(root, "category"),
                               {f"{{{XML_NS}}}id": f"{TAXONOMY_ID}.{code}"})
        etree.SubElement(cat, _tag(root, "catDesc")).text = LABEL_NAMES.get(code, code)
    _replace(_child(encoding, "classDecl"), taxonomy,
             lambda c: localname(c) == "taxonomy" and c.get(f"{{{XML_NS}}}id") == TAXONOMY_ID)
