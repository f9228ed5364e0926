"""How CoreSC labels are written into TEI, shared by the TEI reader and writer.

A labelled sentence is a TEI ``<s>``; its labels are TEI's own analysis pointers and
its scores sit in coresc's namespace::

    <s n="12" ana="#coresc.Met #coresc.Exp" coresc:score="0.712 0.201">...</s>

* ``ana``: the sentence's CoreSC labels, primary first (at most three), each a pointer
  ``#coresc.<Label>`` to a ``<category>`` of the taxonomy ``coresc`` that the writer
  declares in ``teiHeader/encodingDesc/classDecl``. Other ``ana`` values a document
  already has are kept.
* ``coresc:score`` (namespace :data:`CORESC_NS`): the model's probability for each of
  those labels, in the same order. Labels without scores are gold (or hand-made) labels.
* ``n``: the sentence number coresc gave a sentence it split itself.
"""

from __future__ import annotations

from lxml import etree

from .document import Label, Prediction

TEI_NS = "http://www.tei-c.org/ns/1.0"
CORESC_NS = "urn:coresc:tei:1"
XML_NS = "http://www.w3.org/XML/1998/namespace"
TAXONOMY_ID = "coresc"
CATEGORY_PREFIX = f"{TAXONOMY_ID}."
SCORE_ATTR = f"{{{CORESC_NS}}}score"
MAX_LABELS = 3


def _other_ana(s: etree._Element) -> list[str]:
    return [t for t in (s.get("ana") or "").split() if not t.startswith("#" + CATEGORY_PREFIX)]


def read_labels(s: etree._Element) -> tuple[list[Label], list[Prediction]]:
    """The CoreSC labels on a TEI ``<s>``: ``(gold, [])`` without scores, ``([], pred)`` with.

    Scores that do not parse, or whose number differs from the labels', make the labels
    gold: a hand-edited label keeps counting as a label.
    """
    prefix = "#" + CATEGORY_PREFIX
    codes = [t[len(prefix):] for t in (s.get("ana") or "").split()
             if t.startswith(prefix) and len(t) > len(prefix)]
    if not codes:
        return [], []
    try:
        scores = [float(x) for x in (s.get(SCORE_ATTR) or "").split()]
    except ValueError:
        scores = []
    if len(scores) == len(codes):
        return [], [Prediction(c, sc) for c, sc in zip(codes, scores, strict=True)]
    return [Label(code=c) for c in codes], []


def write_labels(s: etree._Element, codes: list[str], scores: list[float] | None) -> None:
    """Put ranked ``codes`` (and ``scores``, for predictions) on ``s``, replacing old ones.

    ``ana`` values that are not coresc's stay, before the CoreSC pointers.
    """
    tokens = _other_ana(s) + ["#" + CATEGORY_PREFIX + c for c in codes[:MAX_LABELS]]
    if tokens:
        s.set("ana", " ".join(tokens))
    elif "ana" in s.attrib:
        del s.attrib["ana"]
    if scores is not None and codes:
        s.set(SCORE_ATTR, " ".join(f"{x:.3f}" for x in scores[:MAX_LABELS]))
    elif SCORE_ATTR in s.attrib:
        del s.attrib[SCORE_ATTR]
