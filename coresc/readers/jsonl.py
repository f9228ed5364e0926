"""Reader for JSONL sentence sequences: one document per line.

Each line is a JSON object with ``sentences`` (a list of strings) and optionally
``labels`` (one string per sentence, in any labelling scheme: CSAbstruct uses
``background`` / ``objective`` / ``method`` / ``result`` / ``other``), ``id`` and
``title`` (kept as ``Paper.title``, not as a sentence). A document without ``id`` gets
``<file stem>:<line number>`` (CSAbstruct's ``abstract_id`` is 0 on every line, so it
is not an id). Documents keep the file's
order. Each document is one section of type ``abstract`` holding one paragraph: the
layout carries no structure. Labels become ``Sentence.gold`` (one :class:`Label` each).

The per-sentence records that ``coresc convert/annotate --to jsonl`` write (``paper``,
``sid``, ``section``, ``section_type``, ``zone``, ``text``, ``gold``, optional ``pred``)
are read too, so that output can be viewed, evaluated or compared again: consecutive
records of one paper make a paper, consecutive records of one section a section.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path

from ..citations import count_citations_text
from ..document import (
    Label,
    Paper,
    Paragraph,
    Prediction,
    Section,
    Sentence,
    clean_text,
    heading_type,
)
from ..errors import InputError
from ..xmlsafe import sanitize_text
from . import paper_id_from_path


def read_jsonl(path: str | Path, text: str) -> Iterator[Paper]:
    """Yield one :class:`Paper` per non-blank line; :class:`InputError` names the line."""
    stem = paper_id_from_path(path)
    # "\n" ends a line; str.splitlines would also split inside strings at U+0085 or U+2028
    lines = [(n, line) for n, line in enumerate(text.split("\n"), start=1) if line.strip()]
    if not lines:
        raise InputError(path, "no documents found")
    first = _parse_line(path, *lines[0])
    if "sentences" not in first and {"paper", "text"} <= first.keys():
        yield from _sentence_records(path, lines)
        return
    for lineno, line in lines:
        yield _document(path, stem, lineno, line)


def _parse_line(path: str | Path, lineno: int, line: str) -> dict:
    try:
        doc = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InputError(path, f"line {lineno}: invalid JSON ({exc.msg})") from None
    except RecursionError:
        raise InputError(path, f"line {lineno}: JSON nested too deeply") from None
    if not isinstance(doc, dict):
        raise InputError(path, f"line {lineno}: expected a JSON object, "
                               f"got {type(doc).__name__}")
    return _sanitized(doc)


def _sanitized(value):
    """JSON strings may hold what the file's bytes cannot ("\\ud800", "\\u0000"): every
    string goes through the same sanitising as all input text."""
    if isinstance(value, str):
        return sanitize_text(value)
    if isinstance(value, list):
        return [_sanitized(v) for v in value]
    if isinstance(value, dict):
        return {sanitize_text(k): _sanitized(v) for k, v in value.items()}
    return value


def _record_sentence(path: str | Path, lineno: int, rec: dict) -> Sentence:
    text, gold, pred = rec.get("text"), rec.get("gold", []), rec.get("pred", [])
    if not isinstance(text, str) or not isinstance(gold, list) or not isinstance(pred, list):
        raise InputError(path, f"line {lineno}: sentence record needs 'text' (string) "
                               "and 'gold'/'pred' lists")
    try:
        preds = [Prediction(str(p["label"]), float(p["score"])) for p in pred]
    except (KeyError, TypeError, ValueError):
        raise InputError(path, f"line {lineno}: 'pred' entries need 'label' and a numeric "
                               "'score'") from None
    text = clean_text(text)
    return Sentence(sid=str(rec.get("sid", lineno)), text=text, zone=str(rec.get("zone") or "body"),
                    n_citations=count_citations_text(text),
                    gold=[Label(str(code)) for code in gold], pred=preds)


def _sentence_records(path: str | Path, lines: list[tuple[int, str]]) -> Iterator[Paper]:
    numbered = ((lineno, _parse_line(path, lineno, line)) for lineno, line in lines)
    yield from records_to_papers(numbered, path)


def records_to_papers(numbered: Iterable[tuple[int, dict]], path: str | Path,
                      source_format: str = "jsonl",
                      default_paper: str | None = None) -> Iterator[Paper]:
    """Group numbered sentence records (the JSONL writer's fields) into papers.

    Consecutive records of one ``paper`` make a paper, consecutive records of one
    section a section; a missing ``section_type`` is derived from the zone or heading.
    A record without ``paper`` belongs to ``default_paper``, or is an error naming
    ``path`` and the record's number when there is none.
    """
    paper: Paper | None = None
    section_key = None
    for lineno, rec in numbered:
        pid = rec.get("paper", default_paper)
        if pid is None:
            raise InputError(path, f"line {lineno}: sentence record without 'paper'")
        if paper is None or str(pid) != paper.id:
            if paper is not None:
                yield paper
            paper = Paper(id=str(pid), source_format=source_format, source_path=str(path))
            section_key = None
        heading, zone = str(rec.get("section") or ""), str(rec.get("zone") or "body")
        stype = str(rec.get("section_type") or (
            zone if zone in ("title", "abstract") else heading_type(heading)))
        if (heading, stype) != section_key:
            depth = 0 if stype in ("title", "abstract") else 1
            paper.sections.append(Section(heading, stype, depth, None, [Paragraph()]))
            section_key = (heading, stype)
        sent = _record_sentence(path, lineno, rec)
        paper.sections[-1].paragraphs[0].sentences.append(sent)
        if sent.zone == "title":
            paper.title = f"{paper.title} {sent.text}".strip()
    if paper is not None:
        yield paper


def _document(path: str | Path, stem: str, lineno: int, line: str) -> Paper:
    where = f"line {lineno}"
    doc = _parse_line(path, lineno, line)
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
