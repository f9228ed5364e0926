"""One input's walk through coresc: read it, annotate its papers, render their output.

The steps every way of annotating shares: ``coresc annotate`` (:mod:`coresc.batch`, in
this process, in worker processes and on Dask workers), ``coresc serve``
(:mod:`coresc.serve`) and the Python API (:mod:`coresc.api`), so all of them read,
label and write the same bytes. A paper longer than :data:`MAX_SEQUENCE` sentences (a
book, or text files run together) is tagged in blocks so memory stays bounded.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .document import Paper, Paragraph, Section, nothing_to_label
from .errors import InputError, UsageError
from .writers import Writer, get_writer

#: Longest run of sentences tagged as one CRF sequence. No real paper comes near it
#: (the longest of the 393 papers in ../shared/data has 1,329 sentences); a longer
#: document is tagged in blocks of whole sections and paragraphs where possible, which
#: bounds the memory of features and CRF lattices to one block's worth.
MAX_SEQUENCE = 5_000

READ_ERRORS = (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError)


@dataclass(frozen=True)
class Source:
    """One input: a file to read, or the bytes of one held in memory (standard input, a
    string given to the Python API).

    ``name`` is what messages and the manifest call it: the path as given, ``-`` for
    standard input, or a label such as ``"text"`` for a string; for data it also gives
    the paper id.
    """

    name: str
    path: str | None = None
    data: bytes | None = None
    problem: str | None = None  # why a directory walk could not read it (it then fails)
    #: A member of an archive (``name`` is then ``archive::member``): the archive's path,
    #: the member's name in it, its size and modification time (what --resume compares).
    archive: str | None = None
    member: str | None = None
    stamp: tuple[int, int] | None = None
    offset: int | None = None  # where a tar member's bytes start once unpacked (as listed)
    #: Provenance known before reading (an archived PMC metadata JSON's), as pairs.
    meta: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def file(cls, path: str | Path) -> Source:
        return cls(name=str(path), path=str(path))

    @property
    def article(self) -> tuple[str, int | None] | None:
        """``(pmcid, version)`` its PMC name gives, or None (see :mod:`coresc.readers.pmc`)."""
        from .readers.pmc import article_version

        found = article_version(self.member or self.path or self.name)
        meta = dict(self.meta)
        if found is not None and found[1] is None and "version" in meta:
            return found[0], meta["version"]
        return found

    @classmethod
    def text(cls, text: str, name: str = "text") -> Source:
        # a Python str may hold lone surrogates, which UTF-8 cannot: sanitised as input is
        from .xmlsafe import sanitize_text

        return cls(name=name, data=sanitize_text(text).encode("utf-8"))


# ---------------------------------------------------------------- reading


def read_source(source: Source, fmt: str = "auto", grobid: Any = None,
                data: bytes | None = None) -> list[Paper]:
    """The papers of one input; :class:`InputError` when it cannot be read.

    ``data``: the input's bytes when the caller has read them already (see
    :func:`source_bytes`); a file is otherwise read here. Empty sentences are dropped;
    an input that reads to no sentence at all is an error: there is nothing to label.
    A reader bug on an odd file is reported as an error of that file, so it cannot stop
    the other inputs.
    """
    from .readers import STDIN_NAME, read_data
    from .readers.provenance import add_provenance

    where = source.path if source.path is not None else source.name
    try:
        if data is None:
            data = source_bytes(source)
        name = STDIN_NAME if source.name == "-" else where
        papers = read_data(data, name, fmt, grobid)
    except InputError:
        raise
    except READ_ERRORS as exc:
        raise InputError(where, f"reader failed ({type(exc).__name__}: {exc}); "
                                f"please report this") from None
    for paper in papers:
        paper.source_path = source.path
        paper.drop_sentences(nothing_to_label)
        add_provenance(paper, source.path, source.name)
        paper.meta.update(source.meta)
    if any(len(p) == 0 for p in papers):
        fmt_read = papers[0].source_format or fmt
        raise InputError(where, f"no sentences found (read as {fmt_read})")
    return papers


def source_bytes(source: Source) -> bytes:
    """The bytes of an input, read once (bounded: see :func:`coresc.readers.read_input_bytes`)."""
    from .readers import read_input_bytes

    if source.problem is not None:
        raise InputError(source.path or source.name, source.problem)
    if source.data is not None:
        return source.data
    if source.member is not None:
        from .readers.archives import read_member

        return read_member(source.archive, source.member)
    return read_input_bytes(source.path)


def language_warnings(papers: list[Paper], where: str) -> list[str]:
    """One line per paper whose labels may mislead or whose input was not all read: its
    text does not look like English (the models know only English), it was read from a
    PDF whose reading looks doubtful (:func:`coresc.readers.pdf.quality.doubt_line`), or
    its reader left part of it out (``meta["left_out"]``: a PDF's pages past the
    reader's limit)."""
    from .language import language_problem
    from .readers.pdf.quality import doubt_line

    found = []
    for paper in papers:
        label = where if len(papers) == 1 else f"{where} (paper {paper.id})"
        found += [f"{label}: {note}" for note in paper.meta.get("left_out", ())]
        problem = language_problem(paper)
        if problem is not None:
            found.append(f"{label}: {problem}; the labels may be meaningless")
        doubt = doubt_line(paper.meta["pdf_quality"], label) \
            if "pdf_quality" in paper.meta else None
        if doubt is not None:
            found.append(doubt)
    return found


# ---------------------------------------------------------------- the model


def check_domain(model, name: str | None) -> None:
    """:class:`~coresc.errors.UsageError` unless the model knows corpus domain ``name``."""
    if name is None:
        return
    known = known_domains(model)
    if not known:
        raise UsageError(f"--domain {name}: this model was trained without corpus domains "
                         "(coresc train --domains corpus makes one that has them)")
    if name not in known:
        raise UsageError(f"--domain {name}: the model has no such corpus domain "
                         f"(known: {', '.join(known)})")


def known_domains(model) -> list[str]:
    """The corpus domains ``--domain`` accepts with ``model``."""
    return sorted({*model.domain_names("corpus"), *model.calibration_corpora()})


def open_model(model_dir: str | None, shared: bool = False, threads: int = 1):
    """Load the model an option names: a directory or a bundled name (None: the default).

    ``shared``: the model serves one of several worker processes (forked from this one,
    or beside it on a machine), so its sentence encoder, if it has one, uses
    ``threads`` cores (:func:`worker_threads`; each worker is given its share when it
    starts, :func:`~coresc.batch.work.init_worker`), so that workers side by side do not
    each claim every core. Not shared: every core this process may use.
    Raises :class:`~coresc.errors.CorescError`.
    """
    from .model import CoreSCClassifier
    from .model.storage import resolve_model

    return CoreSCClassifier.load(resolve_model(model_dir), threads=threads if shared else 0)


def worker_threads(workers: int) -> int:
    """The sentence encoder's threads in each of ``workers`` processes side by side: the
    cores this process may use, shared out (at least 1). Two workers on two cores get
    one each; two on sixteen get eight."""
    from .model.encoder import usable_cores

    return max(1, usable_cores() // max(1, workers))


# ---------------------------------------------------------------- annotating


def paper_blocks(paper: Paper, limit: int = MAX_SEQUENCE) -> Iterator[Paper]:
    """The paper itself, or views of at most ``limit`` sentences of a longer one.

    A view is a :class:`Paper` sharing the original's :class:`Sentence` objects, cut at
    section, then paragraph, then sentence boundaries, so annotating the views
    annotates the paper. Positions inside a view count from the view's start.
    """
    if len(paper) <= limit:
        yield paper
        return
    sections: list[Section] = []
    size = 0
    for sec in paper.sections:
        copy = None  # this section's copy in the current view
        for para in sec.paragraphs:
            for start in range(0, max(len(para.sentences), 1), limit):
                chunk = para.sentences[start:start + limit]
                if size and size + len(chunk) > limit:
                    yield _view(paper, sections)
                    sections, size, copy = [], 0, None
                if copy is None:
                    copy = replace(sec, parent=None, paragraphs=[])
                    sections.append(copy)
                copy.paragraphs.append(Paragraph(chunk))
                size += len(chunk)
    if size:
        yield _view(paper, sections)


def _view(paper: Paper, sections: list[Section]) -> Paper:
    return Paper(id=paper.id, title=paper.title, source_format=paper.source_format,
                 source_path=paper.source_path, sections=sections, meta=paper.meta)


def annotate_paper(model, paper: Paper, domain: str | None = None,
                   min_score: float | None = None) -> Paper:
    """Set ``pred`` on every sentence of ``paper`` (in blocks when it is very long);
    ``min_score``: as :meth:`CoreSCClassifier.annotate`."""
    if domain is not None:
        paper.meta["corpus"] = domain
    for block in paper_blocks(paper):
        model.annotate([block], min_score=min_score)
    paper.meta.update(model_provenance(model))
    return paper


def model_provenance(model) -> dict[str, str]:
    """What output records say of the model that labelled a paper: ``model``, its name
    (its directory's: ``accurate``, ``fast``, ``my-model``), and ``model_version``, when
    it was trained (``meta.json``'s ``trained``); what a model does not know is left out."""
    found = {"model": getattr(model, "name_", None),
             "model_version": (getattr(model, "meta_", None) or {}).get("trained")}
    return {k: str(v) for k, v in found.items() if v}


# ---------------------------------------------------------------- rendering


def stream_header(writer: Writer, with_withheld: bool = False) -> bytes:
    """What a stream (jsonl, tsv) starts with before the papers' parts; nothing for a
    format written one file a paper."""
    if writer.per_paper:
        return b""
    return writer.load("header")(True, with_withheld).encode("utf-8")


def render(papers: list[Paper], writer: Writer | str,
           with_withheld: bool = False) -> list[tuple[Paper, bytes]]:
    """Each paper's output: a whole file (xml, html) or its part of a stream (jsonl, tsv).

    ``writer``: the output format's :class:`~coresc.writers.Writer` (looked up once for a
    run), or its name. ``with_withheld``: the stream has room for labels a score
    threshold kept back.
    """
    if isinstance(writer, str):
        writer = get_writer(writer)
    if writer.per_paper:
        func = writer.load()
        if writer.in_source:  # the batch's papers are not used again: no copy of their trees
            func = functools.partial(func, in_place=True)
        return [(p, func(p)) for p in papers]
    part = writer.load("part")
    return [(p, part(p, True, with_withheld).encode("utf-8")) for p in papers]
