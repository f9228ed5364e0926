"""Where a batch run's outputs go, planned and checked before any work starts.

A :class:`Target` is small and picklable: workers receive it and write their own
papers' outputs, each file atomically (a temporary name, renamed when complete):

* ``dir``: one ``<id><suffix>`` file per paper in a directory (xml, html);
* ``file``: the one paper of the one input, to the file named by ``-o``;
* ``parts``: a stream format (jsonl, tsv) into one file: each input's records go to a
  part file in a hidden ``.<name>.parts/`` folder beside it; :func:`assemble` joins the
  parts in input order into a temporary file renamed over the output at the end.

A :class:`Store` is a local directory, or any fsspec URL (``s3://``, ``gs://``,
``file://`` ...) when fsspec is installed (it comes with ``coresc[dask]``).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..document import Paper
from ..errors import OutputError, UsageError
from ..pipeline import Source
from ..writers import Writer

MANIFEST_NAME = "coresc-manifest.ndjson"


def is_url(location: str | Path) -> bool:
    return "://" in str(location)


class Store:
    """A folder to write files into: local (``os``) or remote (``fsspec``)."""

    def __init__(self, root: str | Path) -> None:
        self.root = str(root)
        self.fs = None
        if is_url(root):
            try:
                import fsspec
            except ImportError:
                raise UsageError(f"{root}: writing to a URL needs fsspec "
                                 f"(pip install 'coresc[dask]')") from None
            self.fs, self._base = fsspec.core.url_to_fs(self.root)
        else:
            self._base = self.root

    def path(self, name: str) -> str:
        """The full path (or URL path) of ``name`` inside the store."""
        return f"{self._base.rstrip('/')}/{name}" if self.fs else os.path.join(self._base, name)

    def display(self, name: str = "") -> str:
        """How messages name ``name`` in the store (the store itself when empty)."""
        if not name:
            return self.root
        if self.fs:
            return f"{self.root.rstrip('/')}/{name}"
        return name if self.root in ("", ".") else os.path.join(self.root, name)

    def write(self, name: str, data: bytes) -> None:
        """Write ``name`` atomically: readers see the old file or the whole new one."""
        with self.open_atomic(name) as fh:
            fh.write(data)

    @contextlib.contextmanager
    def open_atomic(self, name: str) -> Iterator[IO[bytes]]:
        if self.fs is None:
            from ..writers import atomic_output

            with atomic_output(self.path(name), "wb") as fh:
                yield fh
            return
        final = self.path(name)
        tmp = f"{final}.{os.getpid()}.part"
        self.fs.makedirs(self.fs._parent(final), exist_ok=True)
        try:
            with self.fs.open(tmp, "wb") as fh:
                yield fh
            self.fs.mv(tmp, final)
        except BaseException:
            with contextlib.suppress(Exception):
                self.fs.rm(tmp)
            raise

    def read(self, name: str) -> bytes:
        if self.fs is None:
            return Path(self.path(name)).read_bytes()
        return self.fs.cat_file(self.path(name))

    def exists(self, name: str) -> bool:
        if self.fs is None:
            return os.path.exists(self.path(name))
        return self.fs.exists(self.path(name))

    def remove(self, name: str) -> None:
        """Delete the file ``name`` where it is there (an older article version's output)."""
        if self.fs is None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path(name))
        elif self.fs.exists(self.path(name)):
            self.fs.rm(self.path(name))

    def remove_tree(self, name: str) -> None:
        if self.fs is None:
            shutil.rmtree(self.path(name), ignore_errors=True)
        elif self.fs.exists(self.path(name)):
            self.fs.rm(self.path(name), recursive=True)

    def make(self) -> None:
        """Create the folder; :class:`UsageError` when it cannot be written."""
        if self.fs is not None:
            try:
                self.fs.makedirs(self._base, exist_ok=True)
            except OSError as exc:
                raise UsageError(f"{self.root}: cannot write there ({exc})") from None
            return
        try:
            os.makedirs(self._base or ".", exist_ok=True)
        except OSError as exc:
            raise UsageError(f"{self.root}: cannot create the output directory "
                             f"({exc.strerror})") from None
        if not os.access(self._base or ".", os.W_OK | os.X_OK):
            raise UsageError(f"{self.root}: output directory is not writable")


@dataclass(frozen=True)
class Target:
    """Where workers write (see the module docstring); ``root`` is a Store location."""

    kind: str  # "dir", "file" or "parts"
    root: str
    suffix: str
    name: str = ""  # "file": the file; "parts": the stream output file

    @property
    def parts_dir(self) -> str:
        return f".{self.name}.parts"

    @property
    def manifest(self) -> str | None:
        """The manifest's name in the store (none for a single named file)."""
        if self.kind == "dir":
            return MANIFEST_NAME
        if self.kind == "parts":
            return f"{self.name}.manifest.ndjson"
        return None

    def display(self) -> str:
        return Store(self.root).display(self.name if self.kind != "dir" else "")

    def kept(self) -> str:
        """Where finished papers are while the run is incomplete."""
        return Store(self.root).display(self.parts_dir + "/" if self.kind == "parts" else
                                        self.name if self.kind == "file" else "")

    def part_name(self, source_name: str) -> str:
        """The part file of an input, named by a hash of its absolute path (a name that is
        not UTF-8 hashed as its bytes: ``surrogatepass`` keeps its lone surrogates)."""
        name = os.path.abspath(source_name).encode("utf-8", "surrogatepass")
        key = hashlib.sha1(name).hexdigest()[:20]
        return f"{self.parts_dir}/{key}.part"

    def write(self, source: Source, papers: Sequence[Paper],
              rendered: Sequence[tuple[Paper, bytes]], separator: bytes = b"") -> list[str]:
        """Write one input's rendered papers; return the names written. ``separator``:
        the stream format's, between two papers of one input."""
        store = Store(self.root)
        if self.kind == "parts":
            name = self.part_name(source.name)
            _write(store, name, separator.join(data for _, data in rendered))
            return [name]
        if self.kind == "file":
            if len(rendered) != 1:
                raise UsageError(f"{source.name}: {len(rendered)} papers need -o to be a "
                                 f"directory (one {self.suffix} file per paper)")
            names = [self.name]
        else:
            names = [paper_file(p.id, self.suffix) for p, _ in rendered]
            _check_names(source, [p for p, _ in rendered], names)
            if source.path is not None and not _many_papers(source.path):
                expected = planned_name(source.path, self.suffix)
                if names != [expected]:
                    raise UsageError(f"{source.name}: read as {papers[0].source_format} it "
                                     f"holds {len(names)} papers; only .jsonl files may "
                                     f"hold several")
        if store.fs is None:
            from ..writers import refuse_overwriting_inputs

            refuse_overwriting_inputs([store.path(n) for n in names],
                                      [p.source_path for p in papers if p.source_path])
        for name, (_, data) in zip(names, rendered, strict=True):
            _write(store, name, data)
        return names


def _write(store: Store, name: str, data: bytes) -> None:
    try:
        store.write(name, data)
    except OSError as exc:  # a remote store's failure: this input fails, the run goes on
        raise OutputError(f"{store.display(name)}: cannot write ({exc})") from None


def paper_file(paper_id: str, suffix: str) -> str:
    from ..writers import file_stem

    return f"{file_stem(paper_id)}{suffix}"


def _many_papers(path: str) -> bool:
    """Inputs that may hold several papers (their ids are read, not taken from the name)."""
    return path.endswith(".jsonl")


def planned_name(path: str, suffix: str) -> str:
    """The output file of a one-paper input: its id comes from the file name."""
    from ..readers import paper_id_from_path

    return paper_file(paper_id_from_path(path), suffix)


def _check_names(source: Source, papers: Sequence[Paper], names: list[str]) -> None:
    seen: dict[str, str] = {}
    for paper, name in zip(papers, names, strict=True):
        if name in seen:
            raise UsageError(f"{source.name}: papers {seen[name]} and {paper.id} would both "
                             f"be written to {name}")
        seen[name] = paper.id


def plan_target(to: str, out: str | None, sources: Sequence[Source],
                as_directory: bool, fmt: str = "auto",
                writer: Writer | None = None) -> Target | None:
    """Check the output before any work; None means standard output.

    ``writer``: ``to``'s :class:`~coresc.writers.Writer` when the caller has it.

    Raises :class:`UsageError` for every mistake that can be seen now: several papers
    as xml to stdout or to a file, a stream format into a directory, two inputs whose
    outputs would have the same name, an output that is an input, a folder that cannot
    be written.
    """
    from ..writers import check_output_path, get_writer, refuse_overwriting_inputs

    writer = writer or get_writer(to)
    inputs = [s.path for s in sources if s.path is not None]
    if out is None:
        if writer.per_paper and len(sources) > 1:
            raise UsageError(f"{len(sources)} inputs cannot go to stdout as {to}: "
                             f"give -o DIRECTORY (one {writer.suffix} file per paper)")
        return None
    remote = is_url(out)
    if not remote:
        check_output_path(out)
        as_directory = as_directory or str(out).endswith(("/", os.sep))  # "-o out/"
    if not writer.per_paper:
        if not remote and Path(out).is_dir():
            raise UsageError(f"{out}: is a directory; {to} output goes into one file")
        root, _, name = str(out).rstrip("/").rpartition("/") if remote else (
            str(Path(out).parent), "", Path(out).name)
        target = Target("parts", root, writer.suffix, name)
        if not remote:
            refuse_overwriting_inputs(out, inputs)
    elif len(sources) == 1 and not as_directory and not remote and not Path(out).is_dir():
        target = Target("file", str(Path(out).parent), writer.suffix, Path(out).name)
        refuse_overwriting_inputs(out, inputs)
    else:
        if not remote and Path(out).exists() and not Path(out).is_dir():
            raise UsageError(f"{out}: {len(sources)} inputs as {to} need -o to be a "
                             f"directory (one {writer.suffix} file per paper), not a file")
        if not remote and not Path(out).exists() and Path(out).suffix == writer.suffix:
            raise UsageError(f"{out}: {len(sources)} inputs as {to} need -o to be a "
                             f"directory (one {writer.suffix} file per paper), "
                             f"not a {writer.suffix} file")
        target = Target("dir", str(out), writer.suffix)
        planned = _planned_names(sources, writer.suffix, fmt)
        if not remote:
            refuse_overwriting_inputs([Path(out) / n for n in planned], inputs)
    Store(target.root).make()
    return target


def _planned_names(sources: Sequence[Source], suffix: str, fmt: str) -> list[str]:
    """Every output name, refusing two alike before any work.

    A one-paper input's name comes from its file name; a JSONL input is read (not
    annotated) for its papers' ids. One that cannot be read is left to the run, which
    reports it.
    """
    from ..errors import InputError
    from ..pipeline import read_source

    seen: dict[str, str] = {}
    for s in sources:
        where = s.member or s.path  # an archive member's id comes from its name too
        if where is None or s.problem is not None:
            continue
        if _many_papers(where):
            try:
                names = [paper_file(p.id, suffix) for p in read_source(s, fmt)]
            except InputError:
                continue
        else:
            names = [planned_name(where, suffix)]
        for name in names:
            if name in seen:
                raise UsageError(f"{name}: two papers would be written here "
                                 f"({seen[name]} and {s.name})")
            seen[name] = s.name
    return list(seen)


# atomic_output's temporary files: ".<name>.<8 random characters>.part"
_LEFTOVER = re.compile(r"^\..+\.[A-Za-z0-9_]{8}\.part$")


def remove_leftovers(target: Target) -> None:
    """Delete temporary files a killed run left in the output folder (local only)."""
    store = Store(target.root)
    if store.fs is not None:
        return
    folders = [(store.path(""), target.name if target.kind != "dir" else "")]
    if target.kind == "parts":
        folders.append((store.path(target.parts_dir), ""))
    for folder, name in folders:
        with contextlib.suppress(OSError):
            for entry in os.scandir(folder):
                if _LEFTOVER.match(entry.name) and entry.name.startswith(f".{name}") \
                        and entry.is_file():
                    os.unlink(entry.path)


def assemble(target: Target, done: Sequence[str], header: str,
             writer: Writer | None = None) -> None:
    """Join the parts of the ``done`` inputs, in this order, into the stream output
    (with ``writer``'s separator and footer, or through its own sink: Parquet's row
    groups are written here, one part read at a time)."""
    from ..writers import WRITERS
    from ..writers.streams import open_sink

    store = Store(target.root)
    with store.open_atomic(target.name) as fh:
        sink = open_sink(writer or WRITERS["jsonl"], fh, header.encode("utf-8"))
        for source_name in done:
            sink.add(store.read(target.part_name(source_name)))
        sink.close()
