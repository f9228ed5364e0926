"""Count citations in a sentence, from markup where the source has it, else from text."""

from __future__ import annotations

import re

from lxml import etree

from .xmlsafe import localname

# Numeric brackets "[3]", "[3,5-7]", and author-year "(Smith et al., 2003; Li 2001)".
_NUMERIC = re.compile(r"\[\s*\d+(?:\s*[,;\u2013\u2014-]\s*\d+)*\s*\]")
_AUTHOR_YEAR = re.compile(
    r"\((?:[^()]*?\b(?:et al\.?|and|&)\s*)?[^()]*?\b(?:1[89]|20)\d\d[a-z]?\b[^()]*\)")
_YEAR = re.compile(r"\b(?:1[89]|20)\d\d[a-z]?\b")


def count_citations_text(text: str) -> int:
    """Citations recognisable in plain text: each cited number or year counts once."""
    n = 0
    for m in _NUMERIC.finditer(text):
        n += len(re.findall(r"\d+", m.group()))
    for m in _AUTHOR_YEAR.finditer(text):
        n += len(_YEAR.findall(m.group()))
    return n


def count_citations_markup(el: etree._Element) -> int | None:
    """Citations marked up inside ``el``; ``None`` when it has no citation markup at all.

    SciXML ``REF`` carries space-separated ids (``ID="cit1 cit2"`` is two citations);
    JATS ``xref ref-type="bibr"``, TEI ``ref type="bibr"`` (GROBID) and Elsevier
    ``ce:cross-ref(s)`` to bibliography entries count once per referenced id.
    """
    n = 0
    seen = False
    for sub in el.iter("{*}REF", "{*}xref", "{*}ref", "{*}cross-ref", "{*}cross-refs"):
        name = localname(sub)
        if name == "REF":
            seen = True
            n += max(1, len((sub.get("ID") or "").split()))
        elif name == "xref" and sub.get("ref-type") == "bibr":
            seen = True
            n += max(1, len((sub.get("rid") or "").split()))
        elif name == "ref" and sub.get("type") == "bibr":
            seen = True
            n += max(1, len((sub.get("target") or "").split()))
        elif name in ("cross-ref", "cross-refs"):
            refid = sub.get("refid") or ""
            ids = [i for i in refid.split() if i.lower().startswith(("bib", "b", "ref"))]
            if ids:
                seen = True
                n += len(ids)
    return n if seen else None
