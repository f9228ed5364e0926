"""One annotator's decisions, kept on disk as they are made.

Layout under ``DIR/ANNOTATOR/`` (one folder per annotator, so that ``coresc agreement
DIR/alice DIR/bob`` pairs the two people's files by paper id as they are):

* ``<paper id>.xml``: the paper as mode2 XML, the file every coresc command reads. A
  sentence a person reviewed has ``CoreSc1``..``CoreSc3`` without a score, i.e. gold,
  the first one carrying ``annotator``, ``review`` (``confirmed``: the model's labels
  accepted as they were; ``changed``), ``reviewedAt`` (UTC) and any ``comment``. A
  sentence nobody reviewed yet keeps the model's label in a ``CoreScWithheld`` element
  (``review="unreviewed"``, the ``model`` and its ``score``), which every reader takes
  for *no label*: only what a person reviewed counts as gold, in ``coresc evaluate``,
  ``agreement``, ``consensus`` and ``train`` alike, so a half-reviewed paper is usable
  at once. The ``mode2`` element names the annotator and how many sentences are done.
* ``.review/<paper id>.json``: the state the page resumes from (the model's suggestions
  with their scores, the decisions, the undo stack), replaced atomically after each
  decision; ``.review/journal.jsonl``: every decision and undo, appended and flushed
  (an audit trail); ``.review/lock``: the process that has this folder (a second
  ``coresc review`` on the same folder and annotator is refused while it runs).

Nothing here imports FastAPI: :mod:`coresc.review.app` serves it.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from lxml import etree

from ..document import Paper
from ..errors import InputError, OutputError, UsageError
from ..labels import LABELS
from ..writers import atomic_output, file_stem
from ..writers.mode2 import MAX_LABELS, WITHHELD_TAG, mode2_tree

STATE_DIR = ".review"
#: The share of each paper's sentences, least certain first, marked as uncertain.
UNCERTAIN_SHARE = 0.25
NOVELTY = ("New", "Old", "Future")
ADVANTAGE = ("Advantage", "Disadvantage")
STATE_VERSION = 1


def now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Decision:
    """What a person decided for one sentence."""

    labels: list[str]
    action: str  # "confirmed" (the model's labels as they were) or "changed"
    at: str
    novelty: str | None = None
    advantage: str | None = None
    comment: str = ""


def check_labels(labels: Sequence[str]) -> list[str]:
    """Ranked CoreSC codes: 1 to 3, known, no repeats; :class:`UsageError` otherwise."""
    labels = list(labels)
    if not 1 <= len(labels) <= MAX_LABELS:
        raise UsageError(f"a sentence takes 1 to {MAX_LABELS} labels (got {len(labels)})")
    unknown = [lab for lab in labels if lab not in LABELS]
    if unknown:
        raise UsageError(f"unknown label {unknown[0]!r} (known: {', '.join(LABELS)})")
    if len(set(labels)) != len(labels):
        raise UsageError("a label occurs twice in one sentence")
    return labels


def _check_choice(value: str | None, allowed: Sequence[str], what: str) -> str | None:
    if value in (None, "", "None"):
        return None
    if value not in allowed:
        raise UsageError(f"{what} must be one of {', '.join(allowed)} (got {value!r})")
    return value


def fingerprint(paper: Paper) -> str:
    """The paper's sentences: a saved state belongs to this paper only if they are equal."""
    digest = hashlib.sha256()
    for s in paper.sentences():
        digest.update(s.text.encode("utf-8") + b"\0")
    return digest.hexdigest()


@dataclass
class PaperReview:
    """One paper under review: the model's suggestions and the person's decisions."""

    paper: Paper
    out: Path
    state_path: Path
    model: str
    suggestions: list[list[tuple[str, float]]]
    decisions: dict[int, Decision] = field(default_factory=dict)
    undo_stack: list[tuple[int, Decision | None]] = field(default_factory=list)

    @property
    def n(self) -> int:
        return len(self.suggestions)

    def uncertain(self) -> set[int]:
        """The least certain sentences by the model's primary score (a quarter)."""
        order = sorted(range(self.n), key=lambda j: self._score(j))
        return set(order[:round(self.n * UNCERTAIN_SHARE)])

    def _score(self, j: int) -> float:
        return self.suggestions[j][0][1] if self.suggestions[j] else 0.0

    def progress(self) -> dict[str, int]:
        changed = sum(1 for d in self.decisions.values() if d.action == "changed")
        return {"total": self.n, "reviewed": len(self.decisions), "changed": changed}

    def expected_errors(self) -> float:
        """Sum over unreviewed sentences of 1 - the primary's calibrated score."""
        return sum(1 - self._score(j) for j in range(self.n) if j not in self.decisions)

    # ------------------------------------------------------------ decisions

    def decide(self, j: int, labels: Sequence[str] | None, novelty: str | None = None,
               advantage: str | None = None, comment: str = "") -> Decision:
        """Record a decision for sentence ``j``; ``labels`` None accepts what is shown
        (the person's earlier decision, else the model's labels)."""
        self._check_index(j)
        before = self.decisions.get(j)
        if labels is None:
            if before is not None:
                labels, novelty, advantage = before.labels, before.novelty, before.advantage
                comment = comment or before.comment
            else:
                labels = [lab for lab, _ in self.suggestions[j]]
        labels = check_labels(labels)
        novelty = _check_choice(novelty, NOVELTY, "novelty")
        advantage = _check_choice(advantage, ADVANTAGE, "advantage")
        if len(comment) > 2000:
            raise UsageError("a comment is at most 2000 characters")
        same = labels == [lab for lab, _ in self.suggestions[j]] and not (novelty or advantage)
        decision = Decision(labels, "confirmed" if same else "changed", now(), novelty,
                            advantage, comment)
        self.decisions[j] = decision
        self.undo_stack.append((j, before))
        return decision

    def undo(self) -> int | None:
        """Take back the last decision; the sentence it was about (None: nothing to undo)."""
        if not self.undo_stack:
            return None
        j, before = self.undo_stack.pop()
        if before is None:
            self.decisions.pop(j, None)
        else:
            self.decisions[j] = before
        return j

    def _check_index(self, j: int) -> None:
        if not 0 <= j < self.n:
            raise LookupError(f"sentence {j}: this paper has sentences 0 to {self.n - 1}")

    # ------------------------------------------------------------ files

    def state(self) -> dict[str, Any]:
        return {"version": STATE_VERSION, "paper": self.paper.id,
                "source": self.paper.source_path, "fingerprint": fingerprint(self.paper),
                "model": self.model, "suggestions": self.suggestions,
                "decisions": {str(j): asdict(d) for j, d in sorted(self.decisions.items())},
                "undo": [[j, asdict(d) if d else None] for j, d in self.undo_stack]}

    def load_state(self, data: dict[str, Any]) -> None:
        self.model = data["model"]
        self.suggestions = [[(lab, float(sc)) for lab, sc in ranked]
                            for ranked in data["suggestions"]]
        self.decisions = {int(j): Decision(**d) for j, d in data["decisions"].items()}
        self.undo_stack = [(int(j), Decision(**d) if d else None) for j, d in data["undo"]]

    def attributes(self, annotator: str) -> list[list[dict]]:
        """Per sentence, its ``CoreSc``/``CoreScWithheld`` attribute dicts (see the module)."""
        out = []
        for j in range(self.n):
            d = self.decisions.get(j)
            if d is None:
                top = self.suggestions[j][0] if self.suggestions[j] else None
                out.append([] if top is None else [{
                    "_tag": WITHHELD_TAG, "type": top[0], "score": f"{top[1]:.3f}",
                    "review": "unreviewed", "model": self.model}])
                continue
            ranked = []
            for rank, code in enumerate(d.labels):
                attrs = {"type": code}
                if rank == 0:
                    attrs.update({k: v for k, v in (
                        ("novelty", d.novelty), ("advantage", d.advantage),
                        ("annotator", annotator), ("review", d.action),
                        ("reviewedAt", d.at), ("comment", d.comment or None)) if v})
                ranked.append(attrs)
            out.append(ranked)
        return out

    def mode2_bytes(self, annotator: str) -> bytes:
        tree = mode2_tree(self.paper, attrs=self.attributes(annotator))
        root = tree.getroot()
        head = root.find("mode2")
        if head is None:
            head = etree.Element("mode2", name=self.paper.id)
            root.insert(0, head)
        progress = self.progress()
        head.set("annotator", annotator)
        head.set("reviewed", str(progress["reviewed"]))
        head.set("sentences", str(progress["total"]))
        head.set("model", self.model)
        return etree.tostring(tree, xml_declaration=True, encoding="UTF-8") + b"\n"


class ReviewStore:
    """Every paper one annotator reviews, and the folder their files go to."""

    def __init__(self, folder: Path, annotator: str, papers: list[PaperReview]) -> None:
        self.folder = folder
        self.annotator = annotator
        self.papers = papers
        self.lock = threading.Lock()
        self.journal = folder / STATE_DIR / "journal.jsonl"

    def paper(self, i: int) -> PaperReview:
        if not 0 <= i < len(self.papers):
            raise LookupError(f"paper {i}: there are papers 0 to {len(self.papers) - 1}")
        return self.papers[i]

    def progress(self) -> dict[str, Any]:
        per = [{"index": i, "id": r.paper.id, "title": r.paper.title, **r.progress(),
                "expected_errors": round(r.expected_errors(), 1), "model": r.model}
               for i, r in enumerate(self.papers)]
        total = {k: sum(p[k] for p in per) for k in ("total", "reviewed", "changed")}
        return {"annotator": self.annotator, "papers": per, "all": total}

    def decide(self, i: int, j: int, labels: Sequence[str] | None, novelty: str | None = None,
               advantage: str | None = None, comment: str = "") -> Decision:
        with self.lock:
            review = self.paper(i)
            decision = review.decide(j, labels, novelty, advantage, comment)
            self._save_or_take_back(review, {"event": "decide", "sentence": j,
                                             **asdict(decision)})
            return decision

    def undo(self, i: int) -> int | None:
        with self.lock:
            review = self.paper(i)
            j = review.undo()
            if j is not None:
                self.save(review, {"event": "undo", "sentence": j, "at": now()})
            return j

    def _save_or_take_back(self, review: PaperReview, event: dict[str, Any]) -> None:
        """Save a new decision; if that fails, forget it (the files keep the one before)."""
        try:
            self.save(review, event)
        except Exception:
            review.undo()
            try:
                self.save(review)
            except Exception:  # the first failure is the one to report
                pass
            raise

    def save(self, review: PaperReview, event: dict[str, Any] | None = None) -> None:
        """The state, then the mode2 file (each replaced atomically), then the journal line.

        The file is rendered before anything is written. A crash between the state and
        the file leaves the file one decision behind; the next start rewrites it from the
        state.
        """
        data = review.mode2_bytes(self.annotator)
        with atomic_output(review.state_path) as fh:
            json.dump(review.state(), fh)
        with atomic_output(review.out, "wb") as fh:
            fh.write(data)
        if event is not None:
            line = json.dumps({"paper": review.paper.id, "annotator": self.annotator, **event})
            try:
                with open(self.journal, "a", encoding="utf-8") as fh:
                    fh.write(line + "\n")
                    fh.flush()
                    os.fsync(fh.fileno())
            except OSError as exc:
                raise OutputError(self.journal, exc.strerror or str(exc)) from None

    def reannotate(self, annotate: Callable[[list[Paper]], None], model: str) -> int:
        """Replace the suggestions of every sentence not yet reviewed by those of
        ``annotate`` (another model); return how many sentences changed their label."""
        changed = 0
        for review in self.papers:
            with self.lock:
                todo = [j for j in range(review.n) if j not in review.decisions]
            if not todo:
                continue
            annotate([review.paper])
            ranked = suggestions_of(review.paper)
            with self.lock:
                for j in todo:
                    if j in review.decisions:  # decided while the model ran
                        continue
                    if [lab for lab, _ in ranked[j][:1]] != \
                            [lab for lab, _ in review.suggestions[j][:1]]:
                        changed += 1
                    review.suggestions[j] = ranked[j]
                review.model = model
                self.save(review, {"event": "reannotate", "model": model, "at": now()})
        return changed


def suggestions_of(paper: Paper) -> list[list[tuple[str, float]]]:
    """The model's ranked labels of each sentence (a withheld one counts as its label)."""
    out = []
    for s in paper.sentences():
        ranked = s.pred or ([s.withheld] if s.withheld is not None else [])
        out.append([(p.label, round(float(p.score), 4)) for p in ranked[:MAX_LABELS]])
    return out


def open_store(folder: Path, annotator: str, papers: Sequence[Paper], model: str,
               annotate: Callable[[list[Paper]], None],
               warn: Callable[[str], None]) -> ReviewStore:
    """The store for ``papers`` in ``folder`` (``DIR/ANNOTATOR``): saved states resumed,
    papers without one annotated by ``annotate`` unless they carry predictions. A paper
    whose saved state cannot be resumed is left out with one line to ``warn``."""
    state_dir = folder / STATE_DIR
    state_dir.mkdir(parents=True, exist_ok=True)
    reviews, fresh = [], []
    for paper in papers:
        stem = file_stem(paper.id)
        review = PaperReview(paper, folder / f"{stem}.xml", state_dir / f"{stem}.json",
                             model, [])
        try:
            saved = _saved_state(review)
        except InputError as exc:
            warn(f"{exc} (skipped)")
            continue
        if saved is not None:
            review.load_state(saved)
        else:
            fresh.append(review)
        reviews.append(review)
    if not reviews:
        raise UsageError(f"{folder}: no paper left to review")
    need_model = []
    for review in fresh:
        if any(s.pred for s in review.paper.sentences()):  # labelled by the file's model
            review.model = "the input file"
        else:
            need_model.append(review.paper)
    if need_model:
        annotate(need_model)
    for review in fresh:
        review.suggestions = suggestions_of(review.paper)
    store = ReviewStore(folder, annotator, reviews)
    for review in reviews:  # the files as the states say (a crash may have left one behind)
        store.save(review)
    return store


def _saved_state(review: PaperReview) -> dict[str, Any] | None:
    path = review.state_path
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        ok = data.get("version") == STATE_VERSION and len(data["suggestions"]) == len(
            review.paper)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InputError(path, f"cannot resume from this review state ({exc}); move it "
                               "away to start this paper again") from None
    if not ok or data.get("fingerprint") != fingerprint(review.paper):
        raise InputError(path, f"was saved for another version of paper {review.paper.id} "
                               "(its sentences differ); move it away to start again")
    return data


class Lock:
    """``.review/lock`` holding this process's id: one ``coresc review`` per folder and
    annotator. A lock left by a process that is gone (killed) is taken over."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / STATE_DIR / "lock"

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        for _ in range(2):
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                pid = self._holder()
                if pid is not None and _alive(pid):
                    raise UsageError(f"{self.path.parent.parent}: another coresc review "
                                     f"(process {pid}) is using this folder for this "
                                     "annotator; stop it first") from None
                self.path.unlink(missing_ok=True)  # stale: its process is gone
                continue
            with os.fdopen(fd, "w") as fh:
                fh.write(f"{os.getpid()}\n")
            return
        raise UsageError(f"{self.path}: cannot take the review lock")

    def _holder(self) -> int | None:
        try:
            return int(self.path.read_text().strip())
        except (OSError, ValueError):
            return None

    def release(self) -> None:
        if self._holder() == os.getpid():
            self.path.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True
