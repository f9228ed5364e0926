"""PubMed Central as it is distributed: article-version names, the metadata JSON, and
each paper's provenance in ``Paper.meta``.

PMC's open-access dataset (its cloud bucket and local mirrors of it) holds one folder
per article version, ``PMC<id>.<version>/``, with ``PMC<id>.<version>.xml`` (JATS), the
plain text ``.txt``, the ``.pdf`` where the publisher allows it, media files, and the
metadata ``PMC<id>.<version>.json``, which is also collected in a ``metadata/`` folder
beside the article folders. The JSON's fields, as PMC's README describes them:
``pmcid``, ``version`` (a number), ``pmid``, ``doi``, ``title``, ``citation``,
``is_pmc_openaccess``, ``is_manuscript``, ``is_historical_ocr``, ``is_retracted``,
``license_code`` (a Creative Commons code such as ``CC BY`` or ``CC BY-NC-ND``, or ``TDM``
for author manuscripts open to text mining), ``xml_url``, ``pdf_url``, ``text_url``,
``media_urls``.

The provenance keys every annotated paper may carry (:data:`PROVENANCE_KEYS`):
``pmcid`` (``"PMC123"``), ``pmid`` and ``doi`` (strings), ``version`` (a number),
``license`` (a normalised code: ``cc-by``, ``cc0``, ``cc-by-nc-nd``, ``tdm`` ...),
``retracted`` (a bool; set only where PMC's metadata says), ``source_format``
(``xml``, ``pdf`` or ``text``: what was read). The metadata JSON wins over the JATS.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from ..xmlsafe import localname

PROVENANCE_KEYS = ("pmcid", "pmid", "doi", "version", "license", "retracted",
                   "source_format")

#: ``PMC123.2`` (an article version) or ``PMC123`` (an article, as older packages name it).
_ARTICLE = re.compile(r"^(PMC\d+)(?:\.(\d+))?$")
#: The files an article-version folder may hold to read, best first: XML over the PDF.
ARTICLE_FILES = (".xml", ".nxml", ".pdf", ".txt")


def article_version(name: str | Path) -> tuple[str, int | None] | None:
    """``(pmcid, version)`` from a PMC file or folder name (``PMC123.2.xml`` ->
    ``("PMC123", 2)``, ``PMC123.nxml`` -> ``("PMC123", None)``); None for other names."""
    stem = os.path.basename(str(name).rstrip("/"))  # a string: archives list millions
    for suffix in (*ARTICLE_FILES, ".json"):
        if stem.lower().endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    m = _ARTICLE.match(stem)
    if m is None:
        return None
    return m.group(1), int(m.group(2)) if m.group(2) else None


def is_article_folder(path: str | Path) -> bool:
    """A folder of PMC's per-article-version layout (``PMC123.2/``)."""
    found = article_version(Path(path).name)
    return found is not None and found[1] is not None and Path(path).is_dir()


def article_file(folder: Path, names: set[str]) -> str | None:
    """The one file of an article-version folder to read (of its ``names``): the XML,
    else the PDF, else the plain text; None when it has none of them."""
    for suffix in ARTICLE_FILES:
        if folder.name + suffix in names:
            return folder.name + suffix
    return None


def is_metadata_file(path: str | Path) -> bool:
    """A PMC metadata JSON (``PMC123.2.json``): part of the layout, not an input."""
    name = str(path)
    return name.endswith(".json") and article_version(name) is not None


def metadata_path(path: str | Path) -> Path | None:
    """The metadata JSON of the article version a file belongs to, where there is one:
    ``PMC123.2/PMC123.2.json`` beside it, or ``metadata/PMC123.2.json`` beside its folder."""
    p = Path(path)
    found = article_version(p.name)
    if found is None or found[1] is None:
        return None
    name = f"{found[0]}.{found[1]}.json"
    for candidate in (p.parent / name, p.parent.parent / "metadata" / name):
        if candidate.is_file():
            return candidate
    return None


def licence_code(value: Any) -> str | None:
    """A licence as one lower-case code: ``CC BY`` / ``CC-BY 4.0`` / a
    ``creativecommons.org/licenses/by/4.0/`` URL -> ``cc-by``; the public-domain
    dedication -> ``cc0``; ``TDM`` -> ``tdm``; None when it names no licence we know."""
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip().lower()
    if "publicdomain/zero" in text or re.fullmatch(r"cc[ -]?0(?: 1\.0)?", text):
        return "cc0"
    url = re.search(r"creativecommons\.org/licenses/([a-z-]+)", text)
    if url:
        return "cc-" + url.group(1)
    words = re.fullmatch(r"cc[ -]((?:by|nc|nd|sa)(?:[ -](?:by|nc|nd|sa))*)(?: \d\.\d)?", text)
    if words:
        return "cc-" + words.group(1).replace(" ", "-")
    return text if re.fullmatch(r"[a-z0-9-]+", text) else None


def from_metadata(record: dict[str, Any]) -> dict[str, Any]:
    """The provenance keys PMC's metadata JSON gives."""
    out: dict[str, Any] = {}
    if isinstance(record.get("pmcid"), str):
        out["pmcid"] = record["pmcid"]
    for key in ("pmid", "doi"):
        if record.get(key) not in (None, ""):
            out[key] = str(record[key])
    if isinstance(record.get("version"), int):
        out["version"] = record["version"]
    code = licence_code(record.get("license_code"))
    if code:
        out["license"] = code
    if isinstance(record.get("is_retracted"), bool):
        out["retracted"] = record["is_retracted"]
    return out


def jats_licence(root) -> dict[str, str]:
    """``{"license": code}`` from a JATS article's ``permissions`` where it names one
    (its identifiers are :func:`~coresc.readers.jats_meta.article_meta`'s)."""
    meta = root.find("front/article-meta")
    licence = _jats_licence(meta) if meta is not None else None
    return {"license": licence} if licence else {}


def _jats_licence(meta) -> str | None:
    """The licence of ``permissions``: ``license/@xlink:href`` or ``ali:license_ref``."""
    for el in meta.iter("{*}license", "license", "{*}license_ref"):
        href = el.text if localname(el) == "license_ref" else next(
            (v for k, v in el.attrib.items() if k.endswith("href")), None)
        code = licence_code(href) if href else None
        if code:
            return code
    return None
