"""One batch run: plan and check the output, skip what is done, annotate, record, finish."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..labels import LABELS
from ..limits import paper_timeout
from ..pipeline import Source, check_domain, open_model, stream_header, worker_threads
from ..writers import get_writer, is_stdout, refuse_stdout, write_stdout_bytes
from .manifest import Manifest, model_identity
from .outputs import Store, Target, assemble, plan_target, remove_leftovers
from .progress import Progress
from .sources import with_data
from .work import Job, Outcome, init_worker, run_source, source_task


class Terminated(KeyboardInterrupt):
    """SIGTERM, handled like Ctrl-C (the command line installs the handler)."""


@dataclass
class Summary:
    """What a run did. ``total`` inputs: ``skipped`` were done before (``--resume``),
    ``done`` now, ``failures`` failed (their outcomes, with the error)."""

    total: int
    skipped: int = 0
    done: int = 0
    papers: int = 0
    sentences: int = 0
    failures: list[Outcome] = field(default_factory=list)
    seconds: float = 0.0
    output: str = "stdout"
    manifest: str | None = None
    kept: str = "stdout"  # where finished papers are until the run completes
    other_types: list[str] = field(default_factory=list)  # files in directories not read
    warnings: list[str] = field(default_factory=list)  # e.g. text that is not English
    excluded: list[Outcome] = field(default_factory=list)  # --licence, --retracted skip
    older_versions: list[str] = field(default_factory=list)  # a newer one is an input

    @property
    def finished(self) -> int:
        """Inputs whose outputs are on disk: done now or before."""
        return self.skipped + self.done


class Interrupted(Exception):
    """The run stopped on Ctrl-C or SIGTERM; finished papers are on disk."""

    def __init__(self, summary: Summary) -> None:
        super().__init__("interrupted")
        self.summary = summary


def annotate_files(inputs: Sequence[str | Path], output: str | Path | None = None, *,
                   to: str = "xml", model: str | Path | None = None, fmt: str = "auto",
                   domain: str | None = None, jobs: int = 1, scheduler: Any = None,
                   resume: bool = False, progress: str = "auto",
                   as_directory: bool | None = None, batch_size: int | None = None,
                   grobid: Any = None, min_score: float | None = None,
                   licences: Sequence[str] | None = None, retracted: str = "flag",
                   labels: Sequence[str] | None = None) -> Summary:
    """Annotate files and directories into ``output``, streaming one input at a time.

    ``inputs``: files, or directories read recursively (``.xml .nxml .txt .jsonl``).
    ``output``: a file for one paper or a stream format (``jsonl``, ``tsv``), a directory
    for several papers as ``xml``/``html`` (one file each), ``None`` for stdout, or, with
    ``scheduler``, any fsspec URL the Dask workers can write to. ``model``: a model
    directory (``None``: the bundled model). ``jobs``: worker processes on this
    machine; ``scheduler``: a Dask scheduler address or ``distributed.Client`` instead.
    ``resume``: continue the run recorded in the output's manifest. ``progress``:
    ``"auto"``, ``"bar"``, ``"lines"`` or ``"off"`` (on stderr). ``grobid``: the GROBID
    server PDFs are read through (a URL or ``GrobidClient``; None: ``$CORESC_GROBID_URL``).
    ``-`` among the inputs is standard input, read once before the work starts.
    ``min_score``: leave sentences whose primary label scores below it unlabelled (see
    :meth:`~coresc.model.CoreSCClassifier.annotate`). ``licences``: keep only papers
    under these licences (codes such as ``cc-by``, ``cc0``; see
    :func:`~coresc.readers.pmc.licence_code`); ``retracted``: ``"flag"`` (annotate a
    retracted article, marked in its meta) or ``"skip"``. ``labels``: with ``to="pdf"``,
    highlight only sentences whose primary label is one of these CoreSC codes.

    An input may also be an archive (``.tar.gz``, ``.tgz``, ``.tar``, ``.zip``, MECA
    included), read member by member, or PMC's inventory CSV (``.csv``, ``.csv.gz``),
    the article versions it lists (see :mod:`coresc.batch.sources`); of two versions of
    a PMC article, the newer is annotated.

    Everything that can be checked is checked before any paper is read (model, domain,
    output). Inputs that fail are recorded in the manifest and returned in
    ``Summary.failures``; raises :class:`Interrupted` on Ctrl-C (and SIGTERM where the
    caller maps it to :class:`Terminated`), :class:`~coresc.errors.UsageError` for a
    mistake in the arguments.
    """
    # Dask missing is found before the plan makes the output folder
    dask_run = _cluster() if scheduler is not None else None
    plan = _plan(inputs, output, to, model, fmt, domain, jobs, scheduler, resume,
                 as_directory, grobid, min_score,
                 {**_selection(licences, retracted), "labels": _labels(labels, to)})
    cluster = dask_run(scheduler, plan.job) if dask_run is not None else None
    try:
        return _execute(plan, cluster, jobs, resume, progress, batch_size)
    finally:
        if cluster is not None:
            cluster.close()


@dataclass
class _Plan:
    sources: list[Source]
    model: Any  # the loaded model (the parent's, inherited by forked workers)
    job: Job
    other_types: list[str] = field(default_factory=list)
    older_versions: list[str] = field(default_factory=list)


def _selection(licences: Sequence[str] | None, retracted: str) -> dict[str, Any]:
    """``--licence`` as codes, ``--retracted`` checked: the Job's fields."""
    from ..readers.pmc import licence_code

    if retracted not in ("skip", "flag"):
        raise UsageError(f"--retracted must be skip or flag, not {retracted!r}")
    if licences is None:
        return {"licences": None, "retracted": retracted}
    codes = [licence_code(v) for v in licences]
    if not codes or None in codes:
        raise UsageError(f"--licence {','.join(licences)}: give licence codes such as "
                         f"cc-by,cc0 (comma-separated)")
    return {"licences": tuple(sorted(set(codes))), "retracted": retracted}


def _labels(labels: Sequence[str] | None, to: str) -> tuple[str, ...] | None:
    """``--labels``: CoreSC codes, for ``--to pdf`` only."""
    if labels is None:
        return None
    if to != "pdf":
        raise UsageError(f"--labels chooses the sentences --to pdf highlights; it does "
                         f"nothing for --to {to}")
    unknown = [code for code in labels if code not in LABELS]
    if not labels or unknown:
        raise UsageError(f"--labels {','.join(labels)}: give CoreSC labels, comma-separated "
                         f"(of {','.join(LABELS)})")
    return tuple(labels)


def _plan(inputs, output, to, model, fmt, domain, jobs, scheduler, resume,
          as_directory, grobid=None, min_score=None, selection=None) -> _Plan:
    """Everything checked before any paper is read: inputs found, model, domain, output."""
    if min_score is not None and not 0.0 <= min_score <= 1.0:
        raise UsageError(f"--min-score must be a probability between 0 and 1, not {min_score}")
    from ..readers import INPUT_SUFFIXES, find_inputs
    from ..readers.grobid import grobid_client
    from .sources import expand, newest_versions

    if jobs < 1:
        raise UsageError(f"--jobs must be at least 1, not {jobs}")
    client = grobid_client(grobid)  # a bad URL fails here, before the model loads
    found = find_inputs(inputs, archives=True)
    sources = expand(found.files)
    # what a directory walk could not read fails as an input of its own, with its reason
    sources += [Source(name=e.path, path=e.path, problem=e.problem) for e in found.problems]
    sources, older = newest_versions(sources)
    if not sources:
        raise UsageError(f"{', '.join(map(str, inputs))}: no readable files found "
                         f"(looked for {' '.join(INPUT_SUFFIXES)})")
    if client is None and any(str(s.name).lower().endswith(".pdf") for s in sources):
        from ..readers.pdf import pdf_notice

        pdf_notice()  # here, once, before workers start: they inherit that it was shown
    model_dir = None if model is None else str(model)
    # a bad model fails before anything is read
    loaded = open_model(model_dir, shared=jobs > 1 or scheduler is not None)
    check_domain(loaded, domain)
    if as_directory is None:
        from ..readers.remote import names_folder

        as_directory = len(inputs) > 1 or any(names_folder(p) for p in inputs)
    if (scheduler is not None or resume) and is_stdout(output):
        raise UsageError(f"{'--scheduler' if scheduler is not None else '--resume'} needs "
                         f"-o (an output file or directory)")
    writer = get_writer(to)  # once for the run: the job carries it to every worker
    if is_stdout(output):
        refuse_stdout(writer, to)
    target = plan_target(to, None if is_stdout(output) else str(output), sources,
                         as_directory, fmt, writer)
    job = Job(model_dir=model_dir, fmt=fmt, to=to, domain=domain, target=target,
              grobid=client, min_score=min_score, writer=writer,
              threads=worker_threads(jobs), paper_timeout=paper_timeout(),
              **(selection or {}))
    return _Plan(sources, loaded, job, [str(f) for f in found.skipped],
                 [s.name for s in older])


def _execute(plan: _Plan, cluster, jobs: int, resume: bool, progress: str,
             batch_size: int | None) -> Summary:
    """Skip what the manifest has as done, annotate the rest, record, finish the output."""
    t0 = time.monotonic()  # start-up (imports, loading the model) is not the run's time
    job, target, sources = plan.job, plan.job.target, plan.sources
    summary = Summary(total=len(sources), other_types=plan.other_types,
                      older_versions=plan.older_versions)
    if target is not None:
        summary.output, summary.kept = target.display(), target.kept()
    manifest = _open_manifest(target, job, resume)
    todo = sources
    if manifest is not None:
        summary.manifest = manifest.location
        todo = _still_to_do(sources, target, manifest, resume)
        summary.skipped = len(sources) - len(todo)
    meter = Progress(len(todo), progress)
    if cluster is not None:
        outcomes = cluster.outcomes(with_data(todo), batch_size, total=len(todo))
    else:  # here, each process writes an input's manifest line with its outputs
        job = replace(job, record=manifest.writable_path() if manifest else None)
        outcomes = local_outcomes(with_data(todo), job, plan.model, jobs)
    try:
        _consume(outcomes, summary, manifest, meter, target, job)
        meter.close()
        if target is not None and target.kind == "parts" and (
                todo or not _output_exists(target)):
            _finish_stream(target, manifest, sources, job)
        if target is not None:  # a worker killed mid-write (its input redone) left one
            remove_leftovers(target)
    except KeyboardInterrupt:
        outcomes.close()  # stops the workers
        if manifest is not None:  # what workers finished beyond the first still running
            _count_late(manifest, summary)
        if target is not None:  # a write the interrupt cut short leaves no temporary file
            remove_leftovers(target)
        summary.seconds = time.monotonic() - t0
        raise Interrupted(summary) from None
    finally:
        meter.close()
        _close(manifest)
    summary.seconds = time.monotonic() - t0
    return summary


def _cluster():
    try:
        from .cluster import DaskRun
    except ImportError as exc:
        if (exc.name or "").split(".")[0] not in ("dask", "distributed"):
            raise
        raise UsageError("--scheduler needs Dask: pip install 'coresc[dask]'") from None
    return DaskRun


def local_outcomes(sources: Iterable[Source], job: Job, model, jobs: int,
                   ) -> Iterator[Outcome]:
    """Outcomes in input order, from this process or ``jobs`` worker processes."""
    if jobs <= 1:
        return (run_source(s, job, model) for s in sources)
    from .pool import ordered_map

    return ordered_map(source_task, sources, jobs, initializer=init_worker,
                       initargs=(job,), inherited=(model,))


def _open_manifest(target: Target | None, job: Job, resume: bool) -> Manifest | None:
    if target is None or target.manifest is None:
        return None
    settings = {**model_identity(job.model_dir), "to": job.to, "format": job.fmt,
                "domain": job.domain, "min_score": job.min_score,
                "licence": list(job.licences) if job.licences is not None else None,
                "retracted": job.retracted,
                "labels": list(job.labels) if job.labels is not None else None}
    store = Store(target.root)
    manifest = Manifest.open(store, target.manifest, settings, resume)
    if target.kind == "parts" and not resume:
        store.remove_tree(target.parts_dir)
    remove_leftovers(target)
    return manifest


def _still_to_do(sources: list[Source], target: Target, manifest: Manifest,
                 resume: bool) -> list[Source]:
    """The inputs not done yet. A stream output also needs the parts of the done ones,
    which are gone once a run completed: then only a no-op resume skips them."""
    if not resume:
        return sources
    done = [manifest.is_done_source(s) for s in sources]
    todo = [s for s, d in zip(sources, done, strict=True) if not d]
    if target.kind != "parts" or (not todo and _output_exists(target)):
        return todo
    store = Store(target.root)
    with_parts = set(manifest.done_names([s.name for s in sources]))
    return [s for s, d in zip(sources, done, strict=True)
            if not d or (s.name in with_parts and not store.exists(target.part_name(s.name)))]


def _output_exists(target: Target) -> bool:
    return Store(target.root).exists(target.name)


def _consume(outcomes: Iterator[Outcome], summary: Summary, manifest: Manifest | None,
             meter: Progress, target: Target | None, job: Job) -> None:
    header_due = target is None
    for oc in outcomes:
        if target is None and oc.status == "done":
            _stdout_outcome(oc, job, first=header_due)
            header_due = False

        summary.warnings += oc.warnings
        if manifest is not None:
            manifest.add(oc, oc.name, written=job.record is not None)
        if oc.status == "done":
            summary.done += 1
            summary.papers += oc.papers
            summary.sentences += oc.sentences
        elif oc.status == "excluded":
            summary.excluded.append(oc)
        else:
            summary.failures.append(oc)
        meter.update(oc.sentences if oc.status == "done" else 0)
    if target is None and not header_due:  # a stream's close (BioC's </collection>)
        write_stdout_bytes(job.writer.footer.encode("utf-8"))


def _count_late(manifest: Manifest, summary: Summary) -> None:
    """Count the outcomes workers recorded that the interrupted run had not taken (it
    takes them in input order, so one slow input holds back those after it)."""
    for rec in manifest.late_records():
        status = rec.get("status")
        if status == "done":
            summary.done += 1
            summary.papers += rec.get("papers") or 0
            summary.sentences += rec.get("sentences") or 0
        else:
            oc = Outcome(name=rec["input"], status=status or "failed", error=rec.get("error"))
            (summary.excluded if status == "excluded" else summary.failures).append(oc)


def _stream_header(job: Job) -> bytes:
    return stream_header(job.writer, job.min_score is not None)


def _stdout_outcome(oc: Outcome, job: Job, first: bool) -> None:
    """One input's output on stdout; ``first``: the first done, after the stream's header
    (not written before a paper is done: a failed run writes nothing)."""
    if first:
        write_stdout_bytes(_stream_header(job))
    if oc.data is None:
        return
    if job.writer.per_paper and len(oc.data) > 1:
        raise UsageError(f"{oc.name}: {len(oc.data)} papers cannot go to stdout as "
                         f"{job.to}: give -o DIRECTORY")
    separator = job.writer.separator.encode("utf-8")  # between two papers (BioC JSON)
    for i, data in enumerate(oc.data):
        if separator and (i or not first):
            write_stdout_bytes(separator)
        write_stdout_bytes(data)


def _finish_stream(target: Target, manifest: Manifest, sources: list[Source],
                   job: Job) -> None:
    """Join the parts into the output; drop them once every input is in it."""
    done = manifest.done_names([s.name for s in sources])
    if not done:
        return  # no header-only file when every input failed
    assemble(target, done, _stream_header(job).decode("utf-8"), job.writer)
    if len(manifest.done_names([s.name for s in sources], excluded=True)) == len(sources):
        Store(target.root).remove_tree(target.parts_dir)


def _close(manifest: Manifest | None) -> None:
    if manifest is not None:
        manifest.close()
