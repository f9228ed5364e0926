"""The Python API: ``coresc.load()`` gives a :class:`Tagger`; ``coresc.read()`` a paper.

::

    import coresc
    tagger = coresc.load()                    # the bundled model, or coresc.load("my-model/")
    paper = tagger("paper.nxml")              # a path, a string of text, or a Paper
    for s in paper.sentences():
        print(s.pred[0].label, s.text)
    for paper in tagger.pipe(paths, jobs=2):  # many papers, streamed, in order
        ...

A ``str`` is taken as a path when a file or folder of that name exists, when it is one
line ending in a paper's file extension (``.xml .nxml .txt .jsonl .pdf``), or when it is
one word (no whitespace) with a ``/`` or a file extension (``data/example-paper``,
``paper.tei``); such a path that does not exist is refused (``InputError``: no such
file), never tagged as a one-sentence paper. Any other string is the text of a paper.
Pass a :class:`pathlib.Path` to leave no doubt.
"""

from __future__ import annotations

import os
import re
import warnings
from collections import deque
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Union

from .errors import UsageError

if TYPE_CHECKING:
    from .batch import Summary
    from .document import Paper
    from .errors import InputError
    from .model import CoreSCClassifier

#: What a tagger takes: a path, the text of a paper, or a paper already read.
PaperLike = Union[str, "os.PathLike[str]", "Paper"]

_EXTENSION = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,4}$")  # ".xml", ".tei", ".gz"


class Tagger:
    """Labels the sentences of papers with CoreSC roles using one loaded model.

    Make one with :func:`coresc.load`. ``tagger(x)`` annotates one paper and returns it
    (every sentence's ``pred``: one to three :class:`~coresc.document.Prediction`,
    ``label`` and ``score``, the primary label first); ``tagger.pipe(xs)`` streams many.
    ``domain`` treats papers as papers of one training corpus (its calibration map, and
    its domain weights in models trained with ``--domains corpus``).
    """

    def __init__(self, model: CoreSCClassifier, model_dir: str | None = None,
                 domain: str | None = None, bundled: bool = False) -> None:
        from .pipeline import check_domain

        check_domain(model, domain)
        self.model = model
        self.model_dir = model_dir
        self.domain = domain
        self._bundled = bundled
        #: What the last ``pipe(..., errors="skip")`` went on without.
        self.skipped: list[InputError] = []

    @property
    def labels(self) -> tuple[str, ...]:
        """The labels the model can predict."""
        return tuple(self.model.labels_)

    def __call__(self, x: PaperLike) -> Paper:
        """Annotate one paper (a path, a string of text, or a :class:`Paper`) and return it.

        A :class:`Paper` is annotated in place. A file holding several papers (JSONL) is
        refused: use :meth:`pipe`. Raises :class:`~coresc.errors.InputError` for a file
        that cannot be read.
        """
        from .pipeline import annotate_paper

        papers = _papers(x)
        if len(papers) != 1:
            raise UsageError(f"{x}: holds {len(papers)} papers; use tagger.pipe([...]) "
                             f"to annotate them one by one")
        _warn_language(papers, x)
        return annotate_paper(self.model, papers[0], self.domain)

    def pipe(self, items: Iterable[PaperLike], jobs: int = 1,
             errors: str = "raise") -> Iterator[Paper]:
        """Annotate many papers and yield them in order, one at a time.

        ``items`` may mix paths, strings of text and papers; a JSONL file yields each of
        its papers. With ``jobs`` > 1, worker processes (each with the model once) do
        the tagging while this process reads: the papers are the same as with one, and
        an item that cannot be read is raised after the papers before it, as with one.
        Only a few papers are held at any time, however many ``items`` there are.

        ``errors``: ``"raise"`` stops at the first item that cannot be read (its
        :class:`~coresc.errors.InputError`); ``"skip"`` goes on without it, emits a
        :class:`SkippedInput` warning and appends the error to ``tagger.skipped``
        (emptied when a pipe starts).
        """
        from .pipeline import annotate_paper

        if errors not in ("raise", "skip"):
            raise UsageError(f"errors={errors!r}: expected 'raise' or 'skip'")
        self.skipped = []
        papers = self._read_items(items, errors == "skip")
        if jobs <= 1:
            for paper in papers:
                yield annotate_paper(self.model, paper, self.domain)
            return
        yield from self._pipe_workers(papers, jobs)

    def _read_items(self, items: Iterable[PaperLike], skip: bool) -> Iterator[Paper]:
        from .errors import InputError

        for x in items:
            try:
                papers = _papers(x)
            except InputError as exc:
                if not skip:
                    raise
                self.skipped.append(exc)
                warnings.warn(f"skipped {exc}", SkippedInput, stacklevel=3)
                continue
            _warn_language(papers, x)
            yield from papers

    def _pipe_workers(self, papers: Iterable[Paper], jobs: int) -> Iterator[Paper]:
        from .batch.pool import ordered_map, start_method
        from .batch.work import Job, apply_predictions, detached, init_worker, paper_task
        from .pipeline import model_provenance, worker_threads

        if self.model_dir is None and not self._bundled and start_method() != "fork":
            raise UsageError("pipe(jobs>1) needs a saved model here (workers load it): "
                             "save it and use coresc.load(directory)")
        originals: deque = deque()
        failed: list[Exception] = []

        def sent() -> Iterator[Paper]:
            # Reading runs ahead of the workers: an item that cannot be read is raised
            # once the papers before it are yielded, as with jobs=1.
            try:
                for paper in papers:
                    originals.append(paper)
                    yield detached(paper)
            except Exception as exc:  # re-raised below, in its turn
                failed.append(exc)

        job = Job(model_dir=self.model_dir, domain=self.domain, threads=worker_threads(jobs))
        for preds in ordered_map(paper_task, sent(), jobs, initializer=init_worker,
                                 initargs=(job,), inherited=(self.model,)):
            paper = apply_predictions(originals.popleft(), preds)
            paper.meta.update(model_provenance(self.model))  # as annotate_paper records it
            yield paper
        if failed:
            raise failed[0]

    def annotate_files(self, inputs: Iterable[str | os.PathLike], output: str | None = None,
                       **options) -> Summary:
        """:func:`coresc.batch.annotate_files` with this tagger's model and domain.

        Streams files and directories into ``output`` (a directory, a JSONL/TSV file, or
        a URL with a Dask ``scheduler``), with a manifest for ``resume``; see there for
        the ``options`` (``to``, ``jobs``, ``scheduler``, ``resume``, ``progress``).
        """
        from .batch import annotate_files

        if self.model_dir is None and not self._bundled:
            raise UsageError("annotate_files needs a saved model: save it and use "
                             "coresc.load(directory)")
        options.setdefault("domain", self.domain)
        return annotate_files(list(inputs), output, model=self.model_dir, **options)

    def __repr__(self) -> str:
        where = "bundled" if self._bundled else (self.model_dir or "in memory")
        return f"<coresc.Tagger model={where!r} labels={len(self.labels)}>"


class SkippedInput(UserWarning):
    """``Tagger.pipe(..., errors="skip")`` went on without an item it could not read."""


class NotEnglish(UserWarning):
    """A paper's text does not look like English; the models know only English."""


class LeftOut(UserWarning):
    """The reader left part of an input out (a PDF's pages past its limit ...)."""


def _warn_language(papers: list[Paper], x: PaperLike) -> None:
    from .pipeline import language_warnings

    where = x.id if hasattr(x, "id") else str(x)[:60]
    left_out = {f"{where}: {note}" for p in papers for note in p.meta.get("left_out", ())}
    for line in language_warnings(papers, where):
        warnings.warn(line, LeftOut if line in left_out else NotEnglish, stacklevel=4)


def load(model: str | os.PathLike | CoreSCClassifier | None = None, *,
         domain: str | None = None) -> Tagger:
    """Load a model and return a :class:`Tagger` that annotates papers with it.

    Parameters
    ----------
    model : a model directory (as written by ``coresc train``), the name of a bundled
        model (``"fast"``, hand-built features, or ``"accurate"``, with a fine-tuned
        sentence encoder), an already loaded :class:`~coresc.model.CoreSCClassifier`,
        or ``None`` for the default bundled model (``"accurate"``; offline, no download).
    domain : treat papers as papers of this training corpus: its calibration map (see
        ``CoreSCClassifier.calibration_corpora``), and its domain weights in models
        trained with ``--domains corpus``; ``None`` uses the pooled map and the shared
        weights.

    Returns
    -------
    Tagger : call it on a path, a string of text or a :class:`~coresc.document.Paper`
        to get the annotated :class:`~coresc.document.Paper`; ``Tagger.pipe`` streams
        many.

    Raises :class:`~coresc.model.ModelError` when the directory is not a usable model.
    """
    from .model import CoreSCClassifier
    from .pipeline import open_model

    if isinstance(model, CoreSCClassifier):
        return Tagger(model, None, domain)
    model_dir = None if model is None else str(model)
    return Tagger(open_model(model_dir), model_dir, domain, bundled=model is None)


def read(source: str | os.PathLike, fmt: str = "auto") -> Paper:
    """Read one paper into the document model, without annotating it.

    ``source`` is a path (format detected, or ``fmt``: one of
    :data:`coresc.readers.FORMATS`) or a string of plain text. Returns a
    :class:`~coresc.document.Paper` (sections, paragraphs, sentences with their gold
    labels when the file has some). A JSONL file with several papers is refused: use
    :func:`coresc.readers.read_file`, which returns them all.
    """
    papers = _papers(source, fmt)
    if len(papers) != 1:
        raise UsageError(f"{source}: holds {len(papers)} papers; "
                         f"coresc.readers.read_file reads them all")
    return papers[0]


def _papers(x: PaperLike, fmt: str = "auto") -> list[Paper]:
    """The papers of one item: a paper itself, a file's, or a text's."""
    from .document import Paper
    from .errors import InputError
    from .pipeline import Source, read_source

    if isinstance(x, Paper):
        return [x]
    if isinstance(x, os.PathLike):
        return read_source(Source.file(os.fspath(x)), fmt)
    if isinstance(x, str):
        if _is_path(x):
            if not os.path.lexists(x):
                raise InputError(x, "no such file or folder (the string looks like a path, "
                                    "so coresc read it as one)")
            return read_source(Source.file(x), fmt)
        return read_source(Source.text(x), fmt)
    raise TypeError(f"expected a path, a string of text or a coresc Paper, "
                    f"not {type(x).__name__}")


def _is_path(x: str) -> bool:
    """Whether a string names a file: one that exists, or a one-line string ending in a
    paper's file extension, or one word with a ``/`` or a file extension (a mistyped
    path, refused as "no such file" rather than tagged as a one-sentence paper)."""
    from .readers import INPUT_SUFFIXES

    if "\n" in x or not x.strip() or len(x) >= 4096:
        return False
    try:
        if Path(x).exists():
            return True
    except (OSError, ValueError):
        return False
    return x.lower().endswith(INPUT_SUFFIXES) or _looks_like_path(x)


def _looks_like_path(x: str) -> bool:
    """One word (no whitespace) with a folder separator or a file extension."""
    if any(c.isspace() for c in x):
        return False
    return "/" in x or os.sep in x or _EXTENSION.search(x) is not None
