"""Adjudication: a third person settles where two annotators disagree.

``coresc review --adjudicate reviews/alice reviews/bob --annotator carol -o reviews/``
opens the papers both annotators have (matched by id, sentences aligned as in
``coresc agreement``). Per sentence:

* both gave the same ranked labels: *agreed*, taken as they are (``review="agreed"``);
* only one labelled it: taken from that one (``review="one-annotator"``), as the
  consensus rules take it;
* both labelled it differently: a *disagreement*, the only sentences the page shows,
  with both choices; ``1`` or ``2`` takes one, a label's letter sets another, and the
  decision is saved as ``review="adjudicated"``;
* neither labelled it: left without a label.

An annotator's "no label" (a sentence with no CoreSC label, ``CoreScNone``) is a choice
like a label: against the other's label it is a disagreement, with both it is agreed.

The result is ``reviews/carol/<paper id>.xml``: gold where the two agreed and where
carol decided, read by every coresc command like any review (see :mod:`.store`). As in
INCEpTION's curation view, the agreed sentences are pre-filled and only the conflicts
need a person.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from ..agreement import AnnotationSet, align_sentences, common_papers, load_set
from ..document import Paper, Prediction, Sentence
from ..errors import UsageError
from .decisions import Decision, now
from .store import ReviewStore, open_store


def _labels(labels_of: AnnotationSet, sentence: Sentence | None) -> list[str] | None:
    """The sentence's labels in a set; ``[]`` where the annotator said it has no CoreSC
    label, None where the annotator did not label it."""
    if sentence is None:
        return None
    return labels_of.labels(sentence) or ([] if sentence.no_label else None)


Settled = dict[int, tuple[list[str], str]]


def _prepare(a: AnnotationSet, b: AnnotationSet, pid: str
             ) -> tuple[Paper, Settled, dict[int, list[list[str]]]]:
    """A's paper without labels; the sentences settled already (their labels and
    ``agreed`` or ``one-annotator``) and the disagreements, by sentence index."""
    paper = a.papers[pid]  # read for this only: its labels are replaced below
    partner = {id(x): y for x, y in align_sentences(paper, b.papers[pid])}
    settled: Settled = {}
    choices: dict[int, list[list[str]]] = {}
    for j, sentence in enumerate(paper.sentences()):
        la, lb = _labels(a, sentence), _labels(b, partner.get(id(sentence)))
        if la is not None and lb is not None and la != lb:
            choices[j] = [list(la), list(lb)]
        elif la is not None or lb is not None:
            settled[j] = (list(la if la is not None else lb),
                          "agreed" if la is not None and lb is not None else "one-annotator")
        # suggestions: what is settled (score 1); a disagreement has none
        sentence.gold, sentence.withheld, sentence.no_label = [], None, False
        sentence.pred = [Prediction(lab, 1.0) for lab in settled[j][0]] if j in settled else []
    return paper, settled, choices


def open_adjudication(folder: Path, annotator: str, sets: Sequence[str],
                      warn: Callable[[str], None]) -> ReviewStore:
    """The store for adjudicating the two annotation ``sets`` into ``folder``: resumed
    where a saved state exists; :class:`UsageError` when the two have nothing to settle."""
    if len(sets) != 2:
        raise UsageError("--adjudicate takes two annotation sets (two annotators' folders)")
    if Path(sets[0]).resolve() == Path(sets[1]).resolve():  # before reading either
        raise UsageError(f"--adjudicate {sets[0]} {sets[1]}: the same annotation set twice")
    if folder.resolve() in (Path(s).resolve() for s in sets):
        raise UsageError(f"{folder}: is one of the annotation sets being adjudicated; "
                         "choose another --annotator")
    a, b = (load_set(s, labels="gold") for s in sets)
    names = [Path(s).name or s for s in sets]
    prepared = {pid: _prepare(a, b, pid) for pid in common_papers([a, b])}
    store = open_store(folder, annotator, [p for p, _, _ in prepared.values()],
                       f"{names[0]} / {names[1]}", lambda papers: None, warn)
    store.adjudicating = names
    for review in store.papers:
        _, settled, choices = prepared[review.paper.id]
        review.model = f"{names[0]} / {names[1]}"
        if review.choices or review.decisions:
            continue  # resumed from its saved state
        review.choices = choices
        review.decisions = {j: Decision(labels, how, now())
                            for j, (labels, how) in settled.items()}
        store.save(review, {"event": "adjudicate", "sets": list(sets), "at": now()})
    store.find_labels()  # the choices are in play now
    if not any(r.choices for r in store.papers):
        warn(f"{sets[0]} and {sets[1]} agree on every sentence both labelled: nothing to "
             "adjudicate (the agreed labels are saved)")
    return store
