"""The manifest: what a batch run has done, beside its output, one JSON object a line.

The first line describes the run (``coresc`` version, model identity, output format,
input format, domain); each further line is one input's outcome once its outputs are
on disk: ``input`` (absolute path), ``size``, ``mtime_ns``, ``sha256`` (of the input's
bytes), ``status`` (``done`` or ``failed``), ``papers``, ``sentences``, ``outputs``
(names relative to the output folder), ``error``, ``seconds``. A later line for the
same input replaces an earlier one, so a retried input simply gets a new line.

``--resume`` skips an input whose last line says ``done`` (or ``excluded``: left out
by ``--licence`` / ``--retracted``) for the same content (same size and modification
time, or else the same SHA-256; for an archive member, ``archive::member``, its size
and time in the archive), and refuses to continue an output made with another model or
other options. A line cut short by a kill is ignored: that input is simply done again.

PMC article versions: a record also names the ``article`` (PMCID) and ``version`` read.
When a newer version of an article is done, the older one's outputs are deleted and a
line ``{"input": ..., "status": "superseded", "by": ...}`` records it, so a resumed run
over a newer mirror replaces records instead of doubling them; an older version than
one done is skipped.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import errno
import hashlib
import json
import os
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from .._version import __version__
from ..errors import InputError, OutputError, UsageError
from ..readers.inputs import input_stat
from .outputs import Store
from .work import Outcome, fingerprint, input_key, manifest_line

MANIFEST_VERSION = 1

#: Settings that must match for ``--resume`` to continue an output.
RESUME_KEYS = ("model_sha256", "to", "format", "domain", "min_score", "licence",
               "retracted", "labels")

#: A manifest written to a URL (no appending there) is rewritten at most this often.
REMOTE_FLUSH_S = 30.0


def model_identity(model_dir: str | Path | None) -> dict[str, Any]:
    """Path, training date and a SHA-256 over the files of a model directory (and of the
    source model in an adapted model's ``source/``)."""
    from ..model.storage import resolve_model

    d = resolve_model(model_dir)  # a bundled name ("fast") is not a path
    digest = hashlib.sha256()
    for name in _model_files(d):
        f = d / name
        digest.update(name.encode("utf-8") + b"\0")
        digest.update(f.read_bytes())
    trained = None
    try:
        trained = json.loads((d / "meta.json").read_text(encoding="utf-8")).get("trained")
    except (OSError, ValueError, AttributeError):
        pass
    return {"model": "bundled" if model_dir is None else str(d.resolve()),
            "model_trained": trained, "model_sha256": digest.hexdigest()}


def _model_files(d: Path) -> list[str]:
    """A model directory's files (relative, sorted): its own and, nested, its source's."""
    out = []
    for p in d.iterdir():
        if p.name.startswith("."):
            continue
        if p.is_file():
            out.append(p.name)
        elif p.name == "source" and p.is_dir():
            out += [f"source/{name}" for name in _model_files(p)]
    return sorted(out)


class Manifest:
    """The manifest of one output; :meth:`open` starts or resumes it."""

    def __init__(self, store: Store, name: str, settings: dict[str, Any]) -> None:
        self.store = store
        self.name = name
        self.settings = settings
        self.done: dict[str, tuple[int | None, int | None, str | None]] = {}
        self.failed: set[str] = set()
        self.excluded: set[str] = set()  # in ``done``, but with no output
        self.outputs: dict[str, list[str]] = {}
        self.versions: dict[str, tuple[int, str]] = {}  # PMCID -> newest done, its input
        self._pending: list[str] = []
        self._last_flush = time.monotonic()
        self._fh = None
        self._rewrite = True
        self._added: set[str] = set()  # inputs this run has added
        self._start = 0  # where this run's lines begin in a local file

    @property
    def location(self) -> str:
        return self.store.display(self.name)

    @classmethod
    def open(cls, store: Store, name: str, settings: dict[str, Any],
             resume: bool) -> Manifest:
        """A fresh manifest, or with ``resume`` the one on disk (checked against ``settings``)."""
        m = cls(store, name, settings)
        lines = m._read_lines() if resume else None
        if lines:
            m._resume(lines)
        else:
            m._pending.append(manifest_line(m._header()))
        if store.fs is None:  # before any work: one that cannot be written stops the run
            m._open_local()
        return m

    def _header(self) -> dict[str, Any]:
        now = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
        return {"manifest": MANIFEST_VERSION, "coresc": __version__, "started": now,
                **self.settings}

    def _read_lines(self) -> list[dict] | None:
        if not self.store.exists(self.name):
            return None
        out = []
        for line in self.store.read(self.name).decode("utf-8", "replace").splitlines():
            try:
                rec = json.loads(line)
            except ValueError:
                continue  # a line cut short by a kill
            if isinstance(rec, dict):
                out.append(rec)
        return out or None

    def _resume(self, lines: list[dict]) -> None:
        header = lines[0]
        if "manifest" not in header:
            raise UsageError(f"{self.location}: not a coresc manifest")
        for key in RESUME_KEYS:
            if header.get(key) != self.settings.get(key):
                what = {"model_sha256": "model", "to": "output format (--to)",
                        "format": "input format (--format)", "domain": "--domain",
                        "min_score": "--min-score", "labels": "--labels"}.get(key, key)
                raise UsageError(
                    f"{self.location}: this output was made with another {what} "
                    f"({header.get(key)!r}, now {self.settings.get(key)!r}); resume with "
                    f"the same options or write to a new output")
        for rec in lines[1:]:
            if isinstance(rec.get("input"), str):
                self._note(rec)
        self._rewrite = False

    def _note(self, rec: dict[str, Any]) -> None:
        """Take one record into the state (a later one for an input replaces it)."""
        key, status = rec["input"], rec.get("status")
        self.excluded.discard(key)
        self.failed.discard(key)
        if status in ("done", "excluded"):
            self.done[key] = (rec.get("size"), rec.get("mtime_ns"), rec.get("sha256"))
            self.outputs[key] = list(rec.get("outputs") or [])
            if status == "excluded":
                self.excluded.add(key)
            article, version = rec.get("article"), rec.get("version")
            if status == "done" and isinstance(article, str) and isinstance(version, int) \
                    and version >= self.versions.get(article, (0, ""))[0]:
                self.versions[article] = (version, key)
        else:
            self.done.pop(key, None)
            if status != "superseded":
                self.failed.add(key)
            for article in [a for a, (_, k) in self.versions.items() if k == key]:
                del self.versions[article]  # no longer done

    def newer_done(self, article: tuple[str, int | None] | None) -> bool:
        """A newer version of this ``(pmcid, version)`` is done in this output."""
        if article is None or article[1] is None or article[0] not in self.versions:
            return False
        return self.versions[article[0]][0] > article[1]

    def is_done_source(self, source: Any) -> bool:
        """:meth:`is_done` for a :class:`~coresc.pipeline.Source` (an archive member by
        its size and time in the archive); also true when a newer version is done."""
        if self.newer_done(source.article):
            return True
        if source.member is not None:
            rec = self.done.get(input_key(source.name))
            return rec is not None and source.stamp == (rec[0], rec[1])
        return source.path is not None and self.is_done(source.path)

    def is_done(self, path: str | Path) -> bool:
        """Done in this output, and the file has not changed since (size+mtime, else hash)."""
        rec = self.done.get(input_key(path))
        if rec is None:
            return False
        size, mtime_ns, sha = rec
        try:
            now = input_stat(path)
        except (OSError, InputError):
            return False
        if now == (size, mtime_ns):
            return True
        return now[0] == size and fingerprint(path)["sha256"] == sha

    def add(self, outcome: Outcome, path: str | None, written: bool = False) -> None:
        """Record an outcome (after its outputs are written) and flush it to disk;
        ``written``: its line is on disk already (:func:`~coresc.batch.work.record_outcome`)."""
        rec = outcome.record()
        if path is not None:
            rec["input"] = input_key(path)
        older = self._older_version(rec)
        self._added.add(rec["input"])
        self._note(rec)
        if not written:
            self._pending.append(manifest_line(rec))
        if older is not None:
            self._supersede(*older)
        self.flush(force=self.store.fs is None)

    def writable_path(self) -> str | None:
        """The local file other processes may append this run's lines to, its header
        written (None for a manifest at a URL)."""
        if self.store.fs is not None:
            return None
        self.flush()
        path = self.store.path(self.name)
        self._start = os.path.getsize(path)
        return path

    def late_records(self) -> list[dict[str, Any]]:
        """The lines other processes appended in this run that :meth:`add` has not seen
        (the outcomes an interrupted run had not taken yet), now taken in too."""
        if self._fh is None:
            return []
        with open(self.store.path(self.name), "rb") as fh:
            fh.seek(self._start)
            lines = fh.read().decode("utf-8", "replace").splitlines()
        late = []
        for line in lines:
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if isinstance(rec, dict) and isinstance(rec.get("input"), str) \
                    and rec["input"] not in self._added:
                self._added.add(rec["input"])
                self._note(rec)
                late.append(rec)
        return late

    def _older_version(self, rec: dict[str, Any]) -> tuple[str, str] | None:
        """``(older input, newer input)`` when ``rec`` and a done record are two versions
        of one article (the input read later may be the older: it then gives way)."""
        article, version = rec.get("article"), rec.get("version")
        if rec.get("status") != "done" or not isinstance(version, int) or \
                article not in self.versions:
            return None
        done_version, done_key = self.versions[article]
        if done_key == rec["input"] or done_version == version:
            return None
        return (done_key, rec["input"]) if done_version < version else \
            (rec["input"], done_key)

    def _supersede(self, old: str, new: str) -> None:
        """Delete an older version's outputs (those the newer did not write over)."""
        keep = set(self.outputs.get(new, []))
        for name in self.outputs.get(old, []):
            if name not in keep:
                self.store.remove(name)
        line = {"input": old, "status": "superseded", "by": new}
        self._note(line)
        self._pending.append(manifest_line(line))

    def done_names(self, paths: Iterable[str], excluded: bool = False) -> list[str]:
        """Of ``paths`` (in order), those recorded as done (with outputs; ``excluded``:
        and those left out by ``--licence`` / ``--retracted``, which have none)."""
        return [p for p in paths if input_key(p) in self.done and
                (excluded or input_key(p) not in self.excluded)]

    def flush(self, force: bool = True) -> None:
        if not self._pending:
            return
        if self.store.fs is not None:
            if not force and time.monotonic() - self._last_flush < REMOTE_FLUSH_S:
                return
            self._flush_remote()
        else:
            self._flush_local()
        self._pending = []
        self._rewrite = False
        self._last_flush = time.monotonic()

    def _open_local(self) -> None:
        path = self.store.path(self.name)
        with self._errors():
            if self._rewrite:
                open(path, "w").close()
            # appending, as worker processes do: no line overwrites another
            self._fh = open(path, "a", encoding="utf-8")
            if not self._rewrite and _ends_mid_line(path):
                self._fh.write("\n")  # after a line cut short by a kill
                self._fh.flush()

    def _flush_local(self) -> None:
        if self._fh is None:
            self._open_local()
        with self._errors():  # a full disk
            self._fh.write("".join(line + "\n" for line in self._pending))
            self._fh.flush()

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        """OSError (a folder in the way, no permission, no such folder) -> one line."""
        try:
            yield
        except OSError as exc:
            reason = exc.strerror or str(exc)
            folder = os.path.dirname(self.store.path(self.name)) or "."
            if exc.errno == errno.ENOENT and os.path.isdir(folder):  # /proc, say
                reason = f"{folder} takes no new files"
            raise OutputError(f"{self.location}: cannot write the manifest ({reason})") \
                from None

    def _flush_remote(self) -> None:
        old = b"" if self._rewrite or not self.store.exists(self.name) else \
            self.store.read(self.name)
        new = "".join(line + "\n" for line in self._pending).encode("utf-8")
        self.store.write(self.name, old + new)

    def close(self) -> None:
        self.flush()
        if self._fh is not None:
            self._fh.close()
            self._fh = None


def _ends_mid_line(path: str) -> bool:
    with open(path, "rb") as fh:
        fh.seek(0, os.SEEK_END)
        if fh.tell() == 0:
            return False
        fh.seek(-1, os.SEEK_END)
        return fh.read(1) != b"\n"
