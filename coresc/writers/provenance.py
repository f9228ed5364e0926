"""Where a record came from: the article's identifiers, version, licence, retraction
status, source format, and the model that labelled it.

The readers put what the source says into ``Paper.meta`` (the JATS reader: ``pmcid``,
``pmid``, ``doi``, ``journal``, ``year``; PMC's per-article metadata: ``version``,
``license``, ``retracted``, ``source_format``) and annotating adds ``model`` and
``model_version`` (:meth:`~coresc.model.CoreSCClassifier.annotate`). Every writer that
has room for them takes them from :func:`provenance`, so all formats carry the same
values under the same names.
"""

from __future__ import annotations

from typing import Any

from .._version import __version__
from ..document import Paper

#: The provenance fields, in output order: ``Paper.meta`` keys.
PROVENANCE_KEYS = ("pmcid", "pmid", "doi", "version", "license", "retracted",
                   "source_format", "journal", "year", "model", "model_version")

#: Reader formats whose source is XML (``source_format`` ``"xml"`` when ``meta`` has none).
XML_READERS = ("jats", "elsevier", "mode2", "art", "tei")


def provenance(paper: Paper) -> dict[str, Any]:
    """The paper's provenance fields that are known (absent ones are left out), and the
    coresc version that wrote the record (``coresc_version``)."""
    found = {key: paper.meta[key] for key in PROVENANCE_KEYS
             if paper.meta.get(key) not in (None, "")}
    if "source_format" not in found:
        found["source_format"] = source_kind(paper)
    found["coresc_version"] = __version__
    return {key: found[key] for key in (*PROVENANCE_KEYS, "coresc_version") if key in found}


def provenance_strings(paper: Paper) -> dict[str, str]:
    """:func:`provenance` as text, for XML attributes, BioC infons and TSV cells:
    ``True`` -> ``"true"``, numbers as written."""
    return {k: str(v).lower() if isinstance(v, bool) else str(v)
            for k, v in provenance(paper).items()}


def source_kind(paper: Paper) -> str:
    """``"pdf"`` for a paper read from a PDF (directly or through GROBID), ``"xml"`` for
    one read from XML, else the reader's format (``text``, ``jsonl``)."""
    if "pdf_reader" in paper.meta or "grobid" in paper.meta:
        return "pdf"
    if paper.source_format in XML_READERS:
        return "xml"
    return paper.source_format or "unknown"


def article_url(paper: Paper) -> str:
    """An IRI naming the article: PMC's page for a PMCID, doi.org for a DOI, PubMed's for
    a PMID, else a ``urn:coresc:`` name made from the paper id."""
    from urllib.parse import quote

    pmcid, doi, pmid = (paper.meta.get(k) for k in ("pmcid", "doi", "pmid"))
    if pmcid:
        return f"https://pmc.ncbi.nlm.nih.gov/articles/{quote(str(pmcid))}/"
    if doi:
        return f"https://doi.org/{quote(str(doi), safe='/')}"
    if pmid:
        return f"https://pubmed.ncbi.nlm.nih.gov/{quote(str(pmid))}/"
    return f"urn:coresc:{quote(paper.id, safe='')}"
