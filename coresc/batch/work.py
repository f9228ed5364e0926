"""What a worker does with one input: read it, annotate its papers, write their outputs.

The same functions run in the main process (``--jobs 1``), in worker processes
(``--jobs N``) and on Dask workers, so all three write the same bytes. A worker holds
one input's papers at a time; a paper longer than :data:`MAX_SEQUENCE` sentences (a
book, or text files run together) is tagged in blocks so memory stays bounded.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..document import Paper, Paragraph, Section
from ..errors import CorescError, InputError, UsageError
from ..limits import release_memory, time_limit
from ..writers import WRITERS

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

    @classmethod
    def file(cls, path: str | Path) -> Source:
        return cls(name=str(path), path=str(path))

    @classmethod
    def text(cls, text: str, name: str = "text") -> Source:
        # a Python str may hold lone surrogates, which UTF-8 cannot: sanitised as input is
        from ..xmlsafe import sanitize_text

        return cls(name=name, data=sanitize_text(text).encode("utf-8"))


@dataclass(frozen=True)
class Job:
    """Everything a worker needs besides its inputs; small and picklable (sent once).

    ``model_dir`` None is the bundled model. ``to`` is the output format; ``target``
    says where the worker writes (see :class:`~coresc.batch.outputs.Target`), None to
    hand the rendered bytes back to the caller (standard output).
    """

    model_dir: str | None = None
    fmt: str = "auto"
    to: str = "xml"
    domain: str | None = None
    target: Any = None
    grobid: Any = None  # a readers.grobid.GrobidClient for PDFs, or None
    min_score: float | None = None  # annotate --min-score: withhold labels scoring below


@dataclass
class Outcome:
    """What became of one input (one manifest record)."""

    name: str
    status: str = "done"  # "done" or "failed"
    papers: int = 0
    sentences: int = 0
    outputs: list[str] = field(default_factory=list)
    error: str | None = None
    size: int | None = None
    mtime_ns: int | None = None
    sha256: str | None = None
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)  # "<input>: <problem>", not failures
    data: list[bytes] | None = None  # rendered output when it goes back to the caller

    def record(self) -> dict[str, Any]:
        """The manifest line (without the rendered data)."""
        keys = ("size", "mtime_ns", "sha256", "status", "papers", "sentences", "outputs",
                "error", "seconds", "warnings")
        return {"input": self.name, **{k: getattr(self, k) for k in keys}}


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
    from ..readers import STDIN_NAME, read_data

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
        paper.drop_sentences(_nothing_to_label)
    if any(len(p) == 0 for p in papers):
        fmt_read = papers[0].source_format or fmt
        raise InputError(where, f"no sentences found (read as {fmt_read})")
    return papers


def _nothing_to_label(sentence) -> bool:
    """An empty ``<s>``, ``""`` in JSONL, a TEI sentence that is only formulas."""
    from ..readers.tei import FORMULA_TEXT

    return not sentence.text.replace(FORMULA_TEXT, "").strip()


def source_bytes(source: Source) -> bytes:
    """The bytes of an input, read once (bounded: see :func:`coresc.readers.read_input_bytes`)."""
    from ..readers import read_input_bytes

    if source.problem is not None:
        raise InputError(source.path or source.name, source.problem)
    if source.data is not None:
        return source.data
    return read_input_bytes(source.path)


def fingerprint(path: str | Path) -> dict[str, Any]:
    """``size``, ``mtime_ns`` and ``sha256`` of a file (what the manifest compares)."""
    st = os.stat(path)
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": digest.hexdigest()}


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
    return paper


def detached(paper: Paper) -> Paper:
    """A copy without the source tree and elements: what can travel to a worker process."""
    sections = [replace(sec, paragraphs=[
        Paragraph([replace(s, element=None, pred=[]) for s in para.sentences])
        for para in sec.paragraphs]) for sec in paper.sections]
    return replace(paper, sections=sections, tree=None, meta=dict(paper.meta))


def predictions(paper: Paper) -> list[list[tuple[str, float]]]:
    """Per sentence, the predicted ``(label, score)`` pairs (a compact, picklable form)."""
    return [[(p.label, p.score) for p in s.pred] for s in paper.sentences()]


def apply_predictions(paper: Paper, preds: list[list[tuple[str, float]]]) -> Paper:
    from ..document import Prediction

    for s, pred in zip(paper.sentences(), preds, strict=True):
        s.pred = [Prediction(label, score) for label, score in pred]
    return paper


# ---------------------------------------------------------------- one input


def run_source(source: Source, job: Job, model) -> Outcome:
    """Read, annotate and write one input; failures are returned, not raised.

    Only :class:`~coresc.errors.CorescError` (a bad input, an output that cannot be
    written) becomes a failed outcome; anything else is a bug and propagates.
    """
    t0 = time.perf_counter()
    out = Outcome(name=source.name)
    try:
        data = _read_recorded(source, out)
        papers = read_source(source, job.fmt, job.grobid, data)
        out.papers = len(papers)
        out.sentences = sum(len(p) for p in papers)
        out.warnings = language_warnings(papers, source.path or source.name)
        if job.to in TREELESS_FORMATS:
            release_sources(papers)
        with time_limit(source.path or source.name):
            for paper in papers:
                annotate_paper(model, paper, job.domain, job.min_score)
        rendered = render(papers, job.to, job.min_score is not None)
        if job.target is None:
            out.data = [data for _, data in rendered]
        else:
            out.outputs = job.target.write(source, papers, rendered)
    except CorescError as exc:
        out.status, out.error = "failed", str(exc)
    out.seconds = round(time.perf_counter() - t0, 4)
    return out


#: Output formats written from the document model alone, without the source XML.
TREELESS_FORMATS = tuple(name for name, w in WRITERS.items() if not w.in_source)


def release_sources(papers: list[Paper]) -> None:
    """Free the papers' source trees (for an output that does not need them) and hand
    their memory back to the system."""
    if any([p.release_source() for p in papers]):  # a list: every paper lets go
        release_memory()


def language_warnings(papers: list[Paper], where: str) -> list[str]:
    """One line per paper that does not look like English (the models know only English)."""
    from ..language import language_problem

    found = []
    for paper in papers:
        problem = language_problem(paper)
        if problem is not None:
            label = where if len(papers) == 1 else f"{where} (paper {paper.id})"
            found.append(f"{label}: {problem}; the labels may be meaningless")
    return found


def _read_recorded(source: Source, out: Outcome) -> bytes:
    """Read the input once and record what the manifest compares: the hash of exactly
    the bytes that are parsed, and the modification time from before they were read (so
    a file changed meanwhile is seen as changed by ``--resume``)."""
    if source.path is not None and source.problem is None:
        with contextlib.suppress(OSError):
            out.mtime_ns = os.stat(source.path).st_mtime_ns  # else the reader says why
    data = source_bytes(source)
    out.size, out.sha256 = len(data), hashlib.sha256(data).hexdigest()
    return data


def render(papers: list[Paper], fmt: str,
           with_withheld: bool = False) -> list[tuple[Paper, bytes]]:
    """Each paper's output: a whole file (xml, html) or its part of a stream (jsonl, tsv);
    ``with_withheld``: the stream has room for labels a score threshold kept back."""
    from ..writers import get_writer

    writer = get_writer(fmt)
    if writer.per_paper:
        func = writer.load()
        if writer.in_source:  # the batch's papers are not used again: no copy of their trees
            func = functools.partial(func, in_place=True)
        return [(p, func(p)) for p in papers]
    part = writer.load("part")
    return [(p, part(p, True, with_withheld).encode("utf-8")) for p in papers]


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


def load_model(model_dir: str | None, shared: bool = False):
    """Load the model a job names: a directory or a bundled name (None: the default).

    ``shared``: the model serves one of several worker processes (forked from this one,
    or beside it on a machine), so its sentence encoder, if it has one, runs on one
    thread: a one-thread onnxruntime session has no thread pool, which a forked child
    would not inherit, and workers side by side should not each claim every core.
    Raises :class:`~coresc.errors.CorescError`.
    """
    from ..model import CoreSCClassifier
    from ..model.storage import resolve_model

    return CoreSCClassifier.load(resolve_model(model_dir), threads=1 if shared else 0)


# ---------------------------------------------------------------- worker processes

_WORKER: dict[str, Any] = {}


def init_worker(job: Job, model=None) -> None:
    """Once per worker: keep the job, and the model (loaded here unless inherited)."""
    _WORKER["job"] = job
    _WORKER["model"] = model if model is not None else load_model(job.model_dir, shared=True)


def source_task(source: Source) -> Outcome:
    """:func:`run_source` with the worker's job and model (a pool task)."""
    return run_source(source, _WORKER["job"], _WORKER["model"])


def paper_task(paper: Paper) -> list[list[tuple[str, float]]]:
    """Annotate a :func:`detached` paper; return its :func:`predictions` (a pool task)."""
    return predictions(annotate_paper(_WORKER["model"], paper, _WORKER["job"].domain))
