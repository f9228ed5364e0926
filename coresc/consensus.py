"""Consensus gold from several annotators, after the Multi-CoreSC CRA paper (section 3.3).

:func:`decide` turns the annotators' ranked label lists for one sentence into one gold
list and names the rule that decided it; :func:`build_consensus` applies it to whole
annotation sets (see :mod:`coresc.agreement`) and puts the result in ``Sentence.gold``
of the first set's papers, ready for the mode2 writer.

The rules, for the ``n`` annotators who labelled the sentence (``votes(y)`` = how many
of them chose label ``y`` at any rank; a *majority* label has ``votes > n / 2``, i.e.
at least 2 of 3; ``k`` = the largest number of labels that more than half of them
reached, the median label count for three annotators):

``unanimous``   every annotator gave the same ranked list: keep it;
``majority``    all gave one label, or fewer than two majority labels exist, or
                ``k = 1``: the majority label with most votes (ties: priority);
``priority``    all gave a single label and all differ: the highest-priority label
                (Table 7, example 2); also the fallback when ``reliable`` is unknown;
``multi-label`` ``k >= 2`` (at least two annotators gave several labels) and at least
                two majority labels: the top ``k`` majority labels by votes, ties by
                priority (weights 0.6/0.4 or 0.6/0.3/0.1 follow from the count);
``reliable``    somebody gave several labels and no label has a majority: follow the
                most reliable annotator (their first label, or their whole list when
                ``k >= 2``) (Table 7, example 6);
``unlabelled``  nobody labelled the sentence.

With **two** annotators a disagreement has no majority, and their agreement with each
other is one number, the same for both: nobody is more reliable. A label both chose
is kept (``majority``, ``multi-label`` as above); a sentence where they share no label is

``unresolved``  left without gold, unless ``prefer`` names whose labels win:
``preferred``   the preferred annotator's labels.

``coresc review --adjudicate`` settles the unresolved ones by hand.

This reproduces all six worked examples of the paper's Table 7 (tests/test_consensus.py);
``docs/agreement.md`` explains the choices the paper leaves open.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .agreement import AnnotationSet, align_sentences, common_papers, pairwise, reliability
from .document import Label, Paper, Sentence
from .errors import UsageError
from .labels import MAX_LABELS, sort_key

#: Rule names, in the order reports list them.
RULES: tuple[str, ...] = (
    "unanimous", "majority", "priority", "multi-label", "reliable", "preferred",
    "unresolved", "unlabelled",
)


def _clean(labels: Sequence[str]) -> tuple[str, ...]:
    out: list[str] = []
    for lab in labels:
        if lab not in out:
            out.append(lab)
    return tuple(out[:MAX_LABELS])


def decide(annotations: Sequence[Sequence[str]], reliable: int | None = None,
           prefer: int | None = None) -> tuple[list[str], str]:
    """The consensus label list for one sentence and the rule that gave it.

    ``annotations``: one ranked label list per annotator (empty when that annotator
    left the sentence unlabelled or lacks it). ``reliable``: index of the most reliable
    annotator, or ``None`` (three or more annotators). ``prefer``: with two annotators,
    whose labels settle a disagreement (``None``: it stays unresolved). Returns
    ``(labels, rule)``, ``rule`` one of :data:`RULES`.
    """
    ranked = [_clean(a) for a in annotations]
    present = [r for r in ranked if r]
    n = len(present)
    if n == 0:
        return [], "unlabelled"
    if all(r == present[0] for r in present):
        return list(present[0]), "unanimous"
    votes = Counter(lab for r in present for lab in r)
    majority = sorted((lab for lab, v in votes.items() if 2 * v > n),
                      key=lambda lab: (-votes[lab], sort_key(lab)))
    if len(ranked) == 2 and not majority:  # two people, no shared label: no majority
        if prefer is not None and ranked[prefer]:
            return list(ranked[prefer]), "preferred"
        return [], "unresolved"
    if all(len(r) == 1 for r in present):
        if majority:
            return [majority[0]], "majority"
        return [min(votes, key=sort_key)], "priority"
    k = max(m for m in range(1, MAX_LABELS + 1) if 2 * sum(len(r) >= m for r in present) > n)
    if k >= 2 and len(majority) >= 2:
        return majority[:k], "multi-label"
    if majority:
        return [majority[0]], "majority"
    if reliable is not None and ranked[reliable]:
        chosen = ranked[reliable]
        return list(chosen if k >= 2 else chosen[:1]), "reliable"
    return [min(votes, key=sort_key)], "priority"


@dataclass
class ConsensusResult:
    """Consensus papers (gold set, predictions cleared) and how they were decided."""

    papers: list[Paper]
    counts: Counter[str]
    decisions: list[dict[str, Any]]
    reliable: str | None  # None with two annotators: see the module
    reliability: dict[str, float]
    pairwise: list[dict[str, Any]]
    left_out: list[str] = field(default_factory=list)
    prefer: str | None = None

    def summary(self) -> dict[str, Any]:
        return {
            "annotators": list(self.reliability),
            "reliable": self.reliable,
            "prefer": self.prefer,
            "reliability": self.reliability,
            "rules": {rule: self.counts.get(rule, 0) for rule in RULES},
            "n_sentences": sum(self.counts.values()),
            "n_papers": len(self.papers),
            "papers_left_out": self.left_out,
            "pairwise_agreement": self.pairwise,
        }


def _label_objects(codes: list[str], sources: Sequence[Sentence | None]) -> list[Label]:
    """Gold labels with the attributes (conceptID, novelty...) of an annotator who chose them."""
    out = []
    for code in codes:
        found = next((lab for s in sources if s is not None for lab in s.gold
                      if lab.code == code), None)
        out.append(Label(code, found.concept_id, found.novelty, found.advantage)
                   if found else Label(code))
    return out


def build_consensus(sets: Sequence[AnnotationSet], reliable: str | None = None,
                    prefer: str | None = None) -> ConsensusResult:
    """Consensus of two or more annotation sets, on the papers they all have.

    The first set's papers are the skeleton (their sentences, their XML): each of its
    sentences is matched in the other sets with :func:`coresc.agreement.align_sentences`
    (a sentence another set lacks counts as unlabelled there); its ``gold`` becomes the
    consensus and ``pred`` (and any withheld label) is cleared. Three or more sets:
    ``reliable`` names the set to follow where disagreement remains; by default the one
    with the highest mean agreement with the others over the five measures. Two sets: a
    disagreement without a shared label stays unresolved unless ``prefer`` names the set
    whose labels win.
    Raises AlignmentError / UsageError on bad sets.
    """
    if len(sets) < 2:
        raise UsageError("a consensus needs at least two annotation sets")
    names = [s.name for s in sets]
    pairs = pairwise(sets)  # also checks that every pair has papers and sentences in common
    scores = reliability(names, pairs)
    two = len(sets) == 2
    if two and reliable is not None:
        raise UsageError(f"--reliable {reliable}: two annotators agree with each other "
                         "equally; use --prefer to say whose labels settle a disagreement")
    if not two and prefer is not None:
        raise UsageError(f"--prefer {prefer}: for two annotation sets; with three or more "
                         "the majority decides, then --reliable")
    p_index = None if prefer is None else names.index(_set_name(prefer, names, "--prefer"))
    if two:
        reliable = None
    elif reliable is None:
        reliable = max(names, key=lambda n: scores[n])  # first listed wins ties
    else:
        reliable = _set_name(reliable, names, "--reliable")
    r_index = None if reliable is None else names.index(reliable)
    common = common_papers(sets)
    left_out = [pid for s in sets for pid in s.papers if pid not in common]
    counts: Counter[str] = Counter()
    decisions: list[dict[str, Any]] = []
    papers = []
    for pid in common:
        base = sets[0].papers[pid]
        partner: list[dict[int, Sentence]] = [{id(s): s for s in base.sentences()}]
        for other in sets[1:]:
            partner.append({id(x): y for x, y in align_sentences(base, other.papers[pid])})
        gold: list[list[Label]] = []
        for sent in base.sentences():
            matched = [p.get(id(sent)) for p in partner]
            lists = [st.labels(m) if m is not None else [] for st, m in zip(sets, matched,
                                                                            strict=True)]
            codes, rule = decide(lists, r_index, p_index)
            counts[rule] += 1
            # Attributes come from the reliable (preferred) annotator first, then in
            # argument order.
            first = r_index if r_index is not None else p_index
            order = [*([first] if first is not None else []), *range(len(sets))]
            gold.append(_label_objects(codes, [matched[i] for i in order
                                               if sets[i].source == "gold"]))
            decisions.append({"paper": pid, "sid": sent.sid, "rule": rule, "gold": codes,
                              "annotations": lists})
        for sent, labels in zip(base.sentences(), gold, strict=True):
            # a label a model suggested (a review's unreviewed sentence) is no gold
            sent.gold, sent.pred, sent.withheld = labels, [], None
        papers.append(base)
    return ConsensusResult(papers, counts, decisions, reliable, scores, pairs,
                           sorted(set(left_out)),
                           None if p_index is None else names[p_index])


def _set_name(given: str, names: Sequence[str], option: str) -> str:
    """The set ``given`` names: "ann1" names the set given as "ann1/" or "./ann1" too."""
    if given in names:
        return given
    same = [n for n in names if Path(n).resolve() == Path(given).resolve()] or \
        [n for n in names if Path(n).name == given]  # "alice" for reviews/alice
    if len(same) != 1:
        raise UsageError(f"{option} {given}: not one of the annotation sets "
                         f"({', '.join(names)})")
    return same[0]


def warn_left_out(result: ConsensusResult) -> None:
    """One stderr line when some papers were not in every set."""
    if result.left_out:
        shown = ", ".join(result.left_out[:5]) + (" ..." if len(result.left_out) > 5 else "")
        print(f"[coresc] {len(result.left_out)} papers are not in every set and were left "
              f"out: {shown}", file=sys.stderr)
