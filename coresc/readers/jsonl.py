"""Reader for JSONL sentence sequences: one document per line.

Each line is a JSON object with ``sentences`` (a list of strings) and optionally
``labels`` (one string per sentence, in any labelling scheme: CSAbstruct uses
``background`` / ``objective`` / ``method`` / ``result`` / ``other``), ``id`` and
``title`` (kept as ``Paper.title``, not as a sentence). A document without ``id`` gets
``<file stem>:<line number>`` (CSAbstruct's ``abstract_id`` is 0 on every line, so it
is not an id). Documents keep the file's
order. Each document is one section of type ``abstract`` holding one paragraph: the
layout carries no structure. Labels become ``Sentence.gold`` (one :class:`Label` each).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from ..citations import count_citations_text
from ..document import Label, Paper, Paragraph, Section, Sentence, clean_text
from ..errors import InputError
from . import paper_id_from_path


def read_jsonl(path: str | Path, text: str) -> Iterator[Paper]:
    """Yield one :class:`Paper` per non-blank line; :class:`InputError` names the line."""
    stem = paper_id_from_path(path)
    seen_any = False
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        seen_any = True
        yield _document(path, stem, lineno, line)
    if not seen_any:
        raise InputError(path, "no documents found")


def _document(path: str | Path, stem: str, lineno: int, line: str) -> Paper:
    where = f"line {lineno}"
    try:
        doc = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InputError(path, f"{where}: invalid JSON ({exc.msg})") from None
    if not isinstance(doc, dict):
        raise InputError(path, f"{where}: expected a JSON object, got {type(doc).__name__}")
    sentences = doc.get("sentences")
    if not isinstance(sentences, list) or not all(isinstance(s, str) for s in sentences):
        raise InputError(path, f"{where}: 'sentences' missing or not a list of strings")
    labels = doc.get("labels")
    if labels is not None:
        if not isinstance(labels, list) or not all(isinstance(x, str) for x in labels):
            raise InputError(path, f"{where}: 'labels' is not a list of strings")
        if len(labels) != len(sentences):
            raise InputError(path, f"{where}: {len(labels)} labels for "
                                   f"{len(sentences)} sentences")
    doc_id = doc.get("id")
    doc_id = f"{stem}:{lineno}" if doc_id is None else str(doc_id)
    sents = []
    for i, raw in enumerate(sentences):
        text = clean_text(raw)
        sents.append(Sentence(
            sid=str(i + 1), text=text, zone="abstract",
            n_citations=count_citations_text(text),
            gold=[Label(labels[i])] if labels is not None and labels[i] else [],
        ))
    title = doc.get("title")
    return Paper(
        id=doc_id,
        title=title if isinstance(title, str) else "",
        source_format="jsonl",
        source_path=str(path),
        sections=[Section("Abstract", "abstract", 0, None, [Paragraph(sents)])],
        meta={"line": lineno},
    )
