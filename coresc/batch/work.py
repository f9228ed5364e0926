"""What a worker does with one input: read it, annotate its papers, write their outputs.

The same functions run in the main process (``--jobs 1``), in worker processes
(``--jobs N``) and on Dask workers, so all three write the same bytes; the steps
themselves (reading, annotating, rendering) are :mod:`coresc.pipeline`'s, which
``coresc serve`` and the Python API share.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..document import Paper, Paragraph
from ..errors import CorescError, InputError, OutputError
from ..limits import paper_time, release_memory, time_limit
from ..pipeline import (  # MAX_SEQUENCE, paper_blocks: named here before pipeline was
    MAX_SEQUENCE,  # noqa: F401
    Source,
    annotate_paper,
    language_warnings,
    open_model,
    paper_blocks,  # noqa: F401
    read_source,
    render,
    source_bytes,
)
from ..readers.inputs import input_stat, open_input
from ..readers.remote import is_url
from ..writers import WRITERS, Writer, get_writer
from ..writers.pdf import HIGHLIGHT_LABELS


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
    #: The sentence encoder's threads in a worker process (:func:`~coresc.pipeline.worker_threads`).
    threads: int = 1
    #: Seconds one paper may take (``--paper-timeout``), carried to workers that do not
    #: share the command's environment (Dask's); None: as the environment says.
    paper_timeout: float | None = None
    #: The local manifest file this process appends each outcome's line to, right after
    #: the outputs (None: the caller records outcomes).
    record: str | None = None
    #: The writer of ``to``, looked up once for the run (when not given, here).
    writer: Writer | None = field(default=None, repr=False, compare=False)
    #: ``--licence``: the licence codes kept (None: all); ``--retracted``: skip or flag.
    licences: tuple[str, ...] | None = None
    retracted: str = "flag"
    #: ``--labels``: the primary labels ``--to pdf`` highlights (None: all).
    labels: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.writer is None:
            object.__setattr__(self, "writer", get_writer(self.to))


@dataclass
class Outcome:
    """What became of one input (one manifest record)."""

    name: str
    status: str = "done"  # "done", "failed", or "excluded" (--licence, --retracted)
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
    #: The PMC article and version read (``--resume`` and newer versions go by them),
    #: and what was read of it: ``xml``, ``pdf`` or ``text``.
    article: str | None = None
    version: int | None = None
    source_format: str | None = None

    def record(self) -> dict[str, Any]:
        """The manifest line (without the rendered data)."""
        keys = ("size", "mtime_ns", "sha256", "status", "papers", "sentences", "outputs",
                "error", "seconds", "warnings", "article", "version", "source_format")
        return {"input": self.name, **{k: getattr(self, k) for k in keys}}


def fingerprint(path: str | Path) -> dict[str, Any]:
    """``size``, ``mtime_ns`` and ``sha256`` of a file (what the manifest compares)."""
    size, mtime_ns = input_stat(path)
    digest = hashlib.sha256()
    with open_input(path) as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return {"size": size, "mtime_ns": mtime_ns, "sha256": digest.hexdigest()}


# ---------------------------------------------------------------- papers for workers


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
    """Read, annotate and write one input; failures are returned, not raised. With
    ``job.record``, the outcome's manifest line is appended there by this process, in
    one step with the outputs (see :func:`record_outcome`).

    Only :class:`~coresc.errors.CorescError` (a bad input, an output that cannot be
    written) becomes a failed outcome; anything else is a bug and propagates.
    """
    t0 = time.perf_counter()
    out = Outcome(name=source.name)
    with paper_time(job.paper_timeout):
        try:
            papers, rendered = _annotated(source, job, model, out)
            if not papers:  # left out by --licence or --retracted skip
                return _finished(out, job, t0)
            if job.target is None:
                out.data = [data for _, data in rendered]
            else:  # the outputs and their manifest line: both or neither
                with _signals_held():
                    out.outputs = job.target.write(source, papers, rendered,
                                                   job.writer.separator.encode("utf-8"))
                    return _finished(out, job, t0)
        except CorescError as exc:
            out.status, out.error = "failed", str(exc)
    return _finished(out, job, t0)


def _annotated(source: Source, job: Job, model, out: Outcome) -> tuple[list[Paper], list]:
    """The input's papers annotated and rendered (none, ``out`` saying why, when every
    paper is left out)."""
    data = _read_recorded(source, out)
    papers = read_source(source, job.fmt, job.grobid, data)
    _note_article(out, papers)
    papers, why = select_papers(papers, job)
    if not papers:
        out.status, out.error = "excluded", f"{source.name}: {why}"
        return [], []
    out.papers = len(papers)
    out.sentences = sum(len(p) for p in papers)
    out.warnings = language_warnings(papers, source.path or source.name)
    if any(p.meta.get("retracted") is True for p in papers):  # --retracted flag
        out.warnings.append(f"{source.name}: retracted article, annotated and flagged "
                            f"(--retracted skip leaves such articles out)")
    if not job.writer.in_source:
        release_sources(papers)
    with time_limit(source.path or source.name):
        for paper in papers:
            annotate_paper(model, paper, job.domain, job.min_score)
            if job.labels is not None:
                paper.meta[HIGHLIGHT_LABELS] = job.labels
    return papers, render(papers, job.writer, job.min_score is not None)


def _finished(out: Outcome, job: Job, t0: float) -> Outcome:
    out.seconds = round(time.perf_counter() - t0, 4)
    if job.record is not None:
        record_outcome(job.record, out)
    return out


def _note_article(out: Outcome, papers: list[Paper]) -> None:
    """The article, version and source format of a one-paper input, for the manifest."""
    if len(papers) == 1:
        meta = papers[0].meta
        out.article, out.version = meta.get("pmcid"), meta.get("version")
        out.source_format = meta.get("source_format")


def select_papers(papers: list[Paper], job: Job) -> tuple[list[Paper], str | None]:
    """The papers ``--licence`` and ``--retracted skip`` keep, and why the last one left
    out was (None when all are kept). A retracted paper kept is flagged in its meta."""
    kept, why = [], None
    for paper in papers:
        licence = paper.meta.get("license")
        if job.licences is not None and licence not in job.licences:
            why = (f"licence {licence or 'unknown'} is not among --licence "
                   f"{','.join(job.licences)} (left out)")
        elif paper.meta.get("retracted") is True and job.retracted == "skip":
            why = "retracted (left out: --retracted skip)"
        else:
            kept.append(paper)
    return kept, why


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """SIGTERM and Ctrl-C wait until the block is done (a worker stopped mid-write would
    leave outputs its manifest does not list); they act right after it."""
    if not hasattr(signal, "pthread_sigmask") or \
            threading.current_thread() is not threading.main_thread():
        yield
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def input_key(path: str | Path) -> str:
    """How the manifest names an input: its absolute path, or its URL as given (an
    archive member's: its archive's, ``::``, its name in the archive)."""
    archive, sep, member = str(path).partition("::")
    return (archive if is_url(archive) else os.path.abspath(archive)) + sep + member


def manifest_line(record: dict[str, Any]) -> str:
    """One line of the manifest: UTF-8 text as it is, but a line holding a file name that
    is not UTF-8 (lone surrogates, which no UTF-8 file holds) escaped as JSON does
    (``\\udcff``), which reads back as the same name, so ``--resume`` still knows it."""
    line = json.dumps(record, ensure_ascii=False)
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(record)
    return line


def record_outcome(manifest: str, out: Outcome) -> None:
    """Append ``out``'s line to the local manifest file ``manifest`` in one write to a
    file opened for appending, so the lines of several worker processes never mix."""
    rec = {**out.record(), "input": input_key(out.name)}
    line = memoryview((manifest_line(rec) + "\n").encode("utf-8"))
    try:
        fd = os.open(manifest, os.O_WRONLY | os.O_APPEND)
        try:
            while line:
                line = line[os.write(fd, line):]
        finally:
            os.close(fd)
    except OSError as exc:
        raise OutputError(f"{manifest}: cannot write the manifest "
                          f"({exc.strerror or exc})") from None


#: Output formats written from the document model alone, without the source XML.
TREELESS_FORMATS = tuple(name for name, w in WRITERS.items() if not w.in_source)


def release_sources(papers: list[Paper]) -> None:
    """Free the papers' source trees (for an output that does not need them) and hand
    their memory back to the system."""
    if any([p.release_source() for p in papers]):  # a list: every paper lets go
        release_memory()


def _read_recorded(source: Source, out: Outcome) -> bytes:
    """Read the input once and record what the manifest compares: the hash of exactly
    the bytes that are parsed, and the modification time from before they were read (so
    a file changed meanwhile is seen as changed by ``--resume``)."""
    if source.path is not None and source.problem is None:
        with contextlib.suppress(OSError, InputError):  # else the reader says why
            out.mtime_ns = input_stat(source.path)[1]
    elif source.stamp is not None:  # an archive member: its time in the archive
        out.mtime_ns = source.stamp[1]
    data = source_bytes(source)
    out.size, out.sha256 = len(data), hashlib.sha256(data).hexdigest()
    return data


# ---------------------------------------------------------------- worker processes

_WORKER: dict[str, Any] = {}


def init_worker(job: Job, model=None) -> None:
    """Once per worker: keep the job, and the model (loaded here unless inherited), its
    encoder on the job's share of the cores."""
    _WORKER["job"] = job
    if model is None:
        model = open_model(job.model_dir, shared=True, threads=job.threads)
    else:
        model.set_threads(job.threads)
    _WORKER["model"] = model


def source_task(source: Source) -> Outcome:
    """:func:`run_source` with the worker's job and model (a pool task)."""
    return run_source(source, _WORKER["job"], _WORKER["model"])


def paper_task(paper: Paper) -> list[list[tuple[str, float]]]:
    """Annotate a :func:`detached` paper; return its :func:`predictions` (a pool task)."""
    return predictions(annotate_paper(_WORKER["model"], paper, _WORKER["job"].domain))
