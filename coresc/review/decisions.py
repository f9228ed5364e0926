"""What a person decides for a sentence, and one paper under review: the model's
suggestions, the decisions and their undo stack, the state saved to resume from, and the
mode2 file the decisions make (see :mod:`.store` for the files)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from lxml import etree

from ..document import Paper
from ..errors import UsageError
from ..labels import LABELS
from ..writers.mode2 import MAX_LABELS, NO_LABEL_TAG, WITHHELD_TAG, mode2_tree

#: The share of each paper's sentences, least certain first, marked as uncertain.
UNCERTAIN_SHARE = 0.25
NOVELTY = ("New", "Old", "Future")
ADVANTAGE = ("Advantage", "Disadvantage")
STATE_VERSION = 1
#: Requests remembered per paper (see :attr:`PaperReview.answered`).
ANSWERED_KEPT = 200


def now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Decision:
    """What a person decided for one sentence."""

    labels: list[str]
    action: str  # "confirmed" (the model's primary accepted), "changed"; see store.py
    at: str
    novelty: str | None = None
    advantage: str | None = None
    comment: str = ""


def check_labels(labels: Sequence[str], known: Sequence[str] = LABELS) -> list[str]:
    """Ranked codes of the review's scheme (``known``: CoreSC's unless the model's
    labels are another scheme's): 1 to 3, known, no repeats; :class:`UsageError`
    otherwise."""
    labels = list(labels)
    if not 1 <= len(labels) <= MAX_LABELS:
        raise UsageError(f"a sentence takes 1 to {MAX_LABELS} labels (got {len(labels)})")
    unknown = [lab for lab in labels if lab not in known]
    if unknown:
        raise UsageError(f"unknown label {unknown[0]!r} (known: {', '.join(known)})")
    if len(set(labels)) != len(labels):
        raise UsageError("a label occurs twice in one sentence")
    return labels


def _check_choice(value: str | None, allowed: Sequence[str], what: str) -> str | None:
    if value in (None, "", "None"):
        return None
    if value not in allowed:
        raise UsageError(f"{what} must be one of {', '.join(allowed)} (got {value!r})")
    return value


class ReusedRequest(UsageError):
    """A request id already carried out for another request (HTTP 409)."""


def request_purpose(sentence: int | None, asked: Sequence[Any] = ()) -> str:
    """What a request was for, to tell it from another one under the same id: ``undo``,
    or the sentence decided with a digest of what was asked for it."""
    if sentence is None:
        return "undo"
    digest = hashlib.sha256(json.dumps(list(asked)).encode("utf-8")).hexdigest()[:16]
    return f"sentence {sentence} {digest}"


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
    #: Adjudication (see :mod:`.adjudicate`): per disagreement, each annotator's labels.
    choices: dict[int, list[list[str]]] = field(default_factory=dict)
    #: The page's request ids already carried out: per id, what the request was
    #: (``for``: :func:`request_purpose`) and what was answered, saved with the state: a
    #: request the page sends again (the server saved it but died before answering) is
    #: answered again, not carried out twice (an undo would undo two).
    answered: dict[str, Any] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return len(self.suggestions)

    def uncertain(self) -> set[int]:
        """The least certain sentences by the model's primary score (a quarter); in an
        adjudication, the disagreements."""
        if self.choices:
            return set(self.choices)
        order = sorted(range(self.n), key=lambda j: self._score(j))
        return set(order[:round(self.n * UNCERTAIN_SHARE)])

    def _score(self, j: int) -> float:
        return self.suggestions[j][0][1] if self.suggestions[j] else 0.0

    def progress(self) -> dict[str, int]:
        if self.choices:  # an adjudication: the disagreements, and those settled
            done = [j for j in self.choices if j in self.decisions]
            changed = sum(self.decisions[j].labels not in self.choices[j] for j in done)
            return {"total": len(self.choices), "reviewed": len(done), "changed": changed}
        changed = sum(1 for d in self.decisions.values() if d.action == "changed")
        return {"total": self.n, "reviewed": len(self.decisions), "changed": changed}

    def expected_errors(self) -> float:
        """Sum over unreviewed sentences of 1 - the primary's calibrated score (in an
        adjudication, the disagreements left)."""
        if self.choices:
            return float(sum(j not in self.decisions for j in self.choices))
        return sum(1 - self._score(j) for j in range(self.n) if j not in self.decisions)

    # ------------------------------------------------------------ decisions

    def decide(self, j: int, labels: Sequence[str] | None, novelty: str | None = None,
               advantage: str | None = None, comment: str = "",
               known: Sequence[str] = LABELS) -> Decision:
        """Record a decision for sentence ``j``; ``labels`` None accepts what is shown:
        the person's earlier decision, else the model's *primary* label only (its
        secondary labels become gold only when the person takes them); ``[]`` says the
        sentence has no CoreSC label (acknowledgements, funding). A decision equal
        to the sentence's saved one is that one (``is``): one user action, one undo.
        ``known``: the labels of the review's scheme."""
        self._check_index(j)
        before = self.decisions.get(j)
        model = [lab for lab, _ in self.suggestions[j]]
        if labels is None:
            if before is not None:
                labels, novelty, advantage = before.labels, before.novelty, before.advantage
                comment = comment or before.comment
            elif not model:
                raise UsageError(f"sentence {j}: no label to accept; give its labels, or "
                                 "none ([]) for a sentence without a CoreSC label")
            else:
                labels = model[:1]
        labels = check_labels(labels, known) if labels else []  # []: it has no label
        novelty = _check_choice(novelty, NOVELTY, "novelty")
        advantage = _check_choice(advantage, ADVANTAGE, "advantage")
        if not labels and (novelty or advantage):
            raise UsageError("a sentence without a label has no novelty or advantage")
        if len(comment) > 2000:
            raise UsageError("a comment is at most 2000 characters")
        # confirmed: the model's primary, and any secondary taken in the model's order
        # (no label: confirmed only where the model gave none either)
        same = (labels == model[:len(labels)] if labels else not model) and \
            not (novelty or advantage)
        action = "adjudicated" if j in self.choices else "confirmed" if same else "changed"
        if before is not None and (before.labels, before.novelty, before.advantage,
                                   before.comment) == (labels, novelty, advantage, comment):
            return before  # nothing changes: nothing to save, nothing for undo to take back
        decision = Decision(labels, action, now(), novelty, advantage, comment)
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

    def remember(self, request: str | None, purpose: str, answer: Any) -> None:
        """Record what request ``request`` (None: one without an id) was for and what it
        was answered."""
        if request is None:
            return
        self.answered[request] = {"for": purpose, "answer": answer}
        while len(self.answered) > ANSWERED_KEPT:
            del self.answered[next(iter(self.answered))]

    def _check_index(self, j: int) -> None:
        if not 0 <= j < self.n:
            raise LookupError(f"sentence {j}: this paper has sentences 0 to {self.n - 1}")

    # ------------------------------------------------------------ files

    def state(self) -> dict[str, Any]:
        return {"version": STATE_VERSION, "paper": self.paper.id,
                "source": self.paper.source_path, "fingerprint": fingerprint(self.paper),
                "model": self.model, "suggestions": self.suggestions,
                "decisions": {str(j): asdict(d) for j, d in sorted(self.decisions.items())},
                "undo": [[j, asdict(d) if d else None] for j, d in self.undo_stack],
                "choices": {str(j): c for j, c in sorted(self.choices.items())},
                "answered": self.answered}

    def load_state(self, data: dict[str, Any]) -> None:
        self.model = data["model"]
        self.suggestions = [[(lab, float(sc)) for lab, sc in ranked]
                            for ranked in data["suggestions"]]
        self.decisions = {int(j): Decision(**d) for j, d in data["decisions"].items()}
        self.undo_stack = [(int(j), Decision(**d) if d else None) for j, d in data["undo"]]
        self.choices = {int(j): c for j, c in data.get("choices", {}).items()}
        memo = data.get("answered")  # only a memo: a damaged one is forgotten, not fatal
        self.answered = {k: v for k, v in memo.items() if isinstance(v, dict) and
                         isinstance(v.get("for"), str) and isinstance(v.get("answer"), dict)
                         } if isinstance(memo, dict) else {}

    def attributes(self, annotator: str) -> list[list[dict]]:
        """Per sentence, its ``CoreSc``/``CoreScWithheld``/``CoreScNone`` attribute dicts
        (see :mod:`.store`)."""
        out = []
        for j in range(self.n):
            d = self.decisions.get(j)
            if d is None:
                top = self.suggestions[j][0] if self.suggestions[j] else None
                out.append([] if top is None else [{
                    "_tag": WITHHELD_TAG, "type": top[0], "score": f"{top[1]:.3f}",
                    "review": "unreviewed", "model": self.model}])
                continue
            first = {k: v for k, v in (
                ("novelty", d.novelty), ("advantage", d.advantage), ("annotator", annotator),
                ("review", d.action), ("reviewedAt", d.at), ("comment", d.comment or None))
                if v}
            if not d.labels:  # the person's "no label": the gold reader skips it
                out.append([{"_tag": NO_LABEL_TAG, **first}])
                continue
            out.append([{"type": code, **(first if rank == 0 else {})}
                        for rank, code in enumerate(d.labels)])
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
