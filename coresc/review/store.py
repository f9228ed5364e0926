"""One annotator's decisions, kept on disk as they are made.

Layout under ``DIR/ANNOTATOR/`` (one folder per annotator, so that ``coresc agreement
DIR/alice DIR/bob`` pairs the two people's files by paper id as they are):

* ``<paper id>.xml``: the paper as mode2 XML, the file every coresc command reads. A
  sentence a person reviewed has ``CoreSc1``..``CoreSc3`` without a score, i.e. gold,
  the first one carrying ``annotator``, ``review`` (``confirmed``: the model's primary
  label accepted, with any secondary the person took in the model's order; ``changed``;
  in an adjudication ``agreed``, ``one-annotator``, ``adjudicated``: see :mod:`.adjudicate`),
  ``reviewedAt`` (UTC) and any ``comment``. A
  sentence nobody reviewed yet keeps the model's label in a ``CoreScWithheld`` element
  (``review="unreviewed"``, the ``model`` and its ``score``), which every reader takes
  for *no label*: only what a person reviewed counts as gold, in ``coresc evaluate``,
  ``agreement``, ``consensus`` and ``train`` alike, so a half-reviewed paper is usable
  at once. A sentence the person decided has no CoreSC label (acknowledgements, funding)
  has an empty ``CoreScNone`` with the same attributes as a ``CoreSc1`` (reviewed, not
  gold: read back as ``Sentence.no_label``). The ``mode2`` element names the annotator
  and how many sentences are done.
* ``.review/<paper id>.json``: the state the page resumes from (the model's suggestions
  with their scores, the decisions, the undo stack), replaced atomically after each
  decision; ``.review/journal.jsonl``: every decision and undo, appended and flushed
  (an audit trail); ``.review/lock``: the process that has this folder (a second
  ``coresc review`` on the same folder and annotator is refused while it runs).

One paper's decisions are :mod:`.decisions`; the lock is :mod:`.lock`. Nothing here
imports FastAPI: :mod:`coresc.review.app` serves it.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ..document import Paper
from ..errors import InputError, OutputError, UsageError
from ..labels import LABELS, scheme_of
from ..writers import atomic_output, file_stem
from ..writers.mode2 import MAX_LABELS
from .decisions import (
    STATE_VERSION,
    Decision,
    PaperReview,
    ReusedRequest,
    fingerprint,
    now,
    request_purpose,
)

STATE_DIR = ".review"


class ReviewStore:
    """Every paper one annotator reviews, and the folder their files go to."""

    def __init__(self, folder: Path, annotator: str, papers: list[PaperReview],
                 adjudicating: Sequence[str] = ()) -> None:
        self.folder = folder
        self.annotator = annotator
        self.papers = papers
        #: The two annotators whose disagreements are settled (empty: a review).
        self.adjudicating = list(adjudicating)
        #: The labels a person may give: the scheme of the labels in play (see
        #: :meth:`find_labels`).
        self.labels: tuple[str, ...] = LABELS
        self.lock = threading.Lock()
        self.journal = folder / STATE_DIR / "journal.jsonl"

    def paper(self, i: int) -> PaperReview:
        if not 0 <= i < len(self.papers):
            raise LookupError(f"paper {i}: there are papers 0 to {len(self.papers) - 1}")
        return self.papers[i]

    def find_labels(self, model_labels: Sequence[str] = ()) -> None:
        """Set :attr:`labels` to the scheme of the labels in play: the model's (when it
        was loaded), its suggestions, the decisions and an adjudication's choices.
        CoreSC's unless none of them is a CoreSC label (a model of another scheme)."""
        seen = set(model_labels)
        for r in self.papers:
            seen.update(lab for ranked in r.suggestions for lab, _ in ranked)
            seen.update(lab for d in r.decisions.values() for lab in d.labels)
            seen.update(lab for pair in r.choices.values() for labels in pair
                        for lab in labels)
        self.labels = scheme_of(seen)

    def progress(self) -> dict[str, Any]:
        per = [{"index": i, "id": r.paper.id, "title": r.paper.title, **r.progress(),
                "expected_errors": round(r.expected_errors(), 1), "model": r.model}
               for i, r in enumerate(self.papers)]
        total = {k: sum(p[k] for p in per) for k in ("total", "reviewed", "changed")}
        return {"annotator": self.annotator, "papers": per, "all": total}

    def decide(self, i: int, j: int, labels: Sequence[str] | None, novelty: str | None = None,
               advantage: str | None = None, comment: str = "",
               request: str | None = None) -> Decision:
        """Decide sentence ``j`` of paper ``i`` and save it. ``request``: the page's id
        for this request; one already carried out is answered again, not repeated."""
        purpose = request_purpose(j, (labels, novelty, advantage, comment))
        with self.lock:
            review = self.paper(i)
            answer = self._recall(i, request, purpose)
            if answer is not None:
                return Decision(**answer)
            before = review.decisions.get(j)
            decision = review.decide(j, labels, novelty, advantage, comment, self.labels)
            review.remember(request, purpose, asdict(decision))
            if decision is not before:  # else nothing changed (see PaperReview.decide)
                self._save_or_take_back(review, {"event": "decide", "sentence": j,
                                                 **asdict(decision)}, request)
            return decision

    def undo(self, i: int, request: str | None = None) -> int | None:
        """Take back paper ``i``'s last decision; the sentence it was about (``request``:
        as for :meth:`decide`)."""
        with self.lock:
            review = self.paper(i)
            answer = self._recall(i, request, request_purpose(None))
            if answer is not None:
                return answer["sentence"]
            j = review.undo()
            review.remember(request, request_purpose(None), {"sentence": j})
            if j is not None:
                self.save(review, {"event": "undo", "sentence": j, "at": now()})
            return j

    def _recall(self, i: int, request: str | None, purpose: str) -> dict[str, Any] | None:
        """What request ``request`` was answered if it was carried out already (None: not
        yet, or no id); :class:`ReusedRequest` if the id was used for another request."""
        if request is None:
            return None
        for k, review in enumerate(self.papers):
            memo = review.answered.get(request)
            if memo is None:
                continue
            if k != i or memo["for"] != purpose:
                was = memo["for"].rsplit(" ", 1)[0] if memo["for"] != "undo" else "an undo"
                raise ReusedRequest(f"request {request!r} was used before for {was} of paper "
                                    f"{k} (another request needs another id)")
            return memo["answer"]
        return None

    def _save_or_take_back(self, review: PaperReview, event: dict[str, Any],
                           request: str | None = None) -> None:
        """Save a new decision; if that fails, forget it (the files keep the one before)."""
        try:
            self.save(review, event)
        except Exception:
            review.undo()
            review.answered.pop(request, None)
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
               warn: Callable[[str], None],
               model_labels: Callable[[], Sequence[str]] = tuple) -> ReviewStore:
    """The store for ``papers`` in ``folder`` (``DIR/ANNOTATOR``): saved states resumed,
    papers without one annotated by ``annotate`` unless they carry predictions. A paper
    whose saved state cannot be resumed is left out with one line to ``warn``.
    ``model_labels``: the labels of the model ``annotate`` loaded (none if it did not),
    for :meth:`ReviewStore.find_labels`."""
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
    store.find_labels(model_labels())
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
