"""What a JATS article's front matter says of the article itself: its identifiers
(PMCID, PMID, DOI), journal and year, for ``Paper.meta`` (output records carry them as
provenance: :mod:`coresc.writers.provenance`)."""

from __future__ import annotations

import re
from typing import Any

from lxml import etree

#: ``pub-id-type`` -> ``Paper.meta`` key.
ID_TYPES = {"pmcid": "pmcid", "pmc": "pmcid", "pmid": "pmid", "doi": "doi"}
#: Publication dates, most telling first (JATS 1.2+ ``date-type``, older ``pub-type``).
DATE_TYPES = ("epub", "pub", "ppub", "epub-ppub", "collection", "pmc-release")
_PMC_NUMBER = re.compile(r"^(?:PMC)?(\d+)$", re.I)


def article_meta(root: etree._Element) -> dict[str, Any]:
    """``pmcid`` (``PMC`` + digits), ``pmid``, ``doi``, ``journal`` and ``year`` (int),
    those the article gives."""
    found: dict[str, Any] = {}
    meta = root.find("front/article-meta")
    if meta is not None:
        for el in meta.findall("article-id"):
            key = ID_TYPES.get((el.get("pub-id-type") or "").lower())
            value = " ".join("".join(el.itertext()).split())
            if key and value and key not in found:
                found[key] = _pmcid(value) if key == "pmcid" else value
        year = _year(meta)
        if year is not None:
            found["year"] = year
    journal = root.find("front/journal-meta//journal-title")
    if journal is not None and " ".join("".join(journal.itertext()).split()):
        found["journal"] = " ".join("".join(journal.itertext()).split())
    return {k: v for k, v in found.items() if v}


def _pmcid(value: str) -> str:
    match = _PMC_NUMBER.match(value)
    return f"PMC{match.group(1)}" if match else value


def _year(meta: etree._Element) -> int | None:
    dates = {}
    for el in meta.findall("pub-date"):
        kind = (el.get("date-type") or el.get("pub-type") or "").lower()
        text = (el.findtext("year") or "").strip()
        if text[:4].isdigit():
            dates.setdefault(kind, int(text[:4]))
    for kind in DATE_TYPES:
        if kind in dates:
            return dates[kind]
    return next(iter(dates.values()), None)
