"""Annotation sets and their alignment: what ``coresc agreement`` and ``consensus`` compare.

An *annotation set* is every paper read from one argument (a file or a directory, any
readable format): one annotator's work, or one model's output. Two sets are compared
paper by paper (papers matched by id) and sentence by sentence: by ``sid`` when both
sides have the same sid and the same normalised text, otherwise by normalised text
(see :func:`align_sentences`). A sentence missing or unlabelled on either side is left
out, as in the CRA corpus paper. The measures themselves are in :mod:`coresc.metrics`.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

from .document import Paper, Sentence
from .errors import CorescError, InputError
from .metrics import MEASURES, agreement
from .readers import read_inputs

#: Which labels of a set are compared: gold, predicted, or ``auto``: predictions when the
#: set carries any (it is a model's output), else gold. A model's mode2 output reads back
#: as gold, so it is compared as such.
LABEL_SOURCES = ("auto", "gold", "pred")


class AlignmentError(CorescError):
    """Two annotation sets that cannot be compared (nothing in common)."""


@dataclass
class AnnotationSet:
    """The papers of one annotator (or model), by paper id, and which labels to use."""

    name: str
    papers: dict[str, Paper]
    source: str = "gold"  # "gold" or "pred", resolved from LABEL_SOURCES
    paths: list[Path] = field(default_factory=list)

    def labels(self, sentence: Sentence) -> list[str]:
        """The sentence's ranked label codes in this set (empty when unlabelled)."""
        return sentence.pred_codes if self.source == "pred" else sentence.gold_codes


def load_set(path: str | Path, name: str | None = None,
             labels: str = "auto") -> AnnotationSet:
    """Read one annotation set; :class:`InputError` when any file of it is unreadable.

    Raises InputError too when the set holds no paper, two papers with the same id, or
    (``labels`` given or ``auto``) no label at all.
    """
    if labels not in LABEL_SOURCES:
        raise ValueError(f"labels must be one of {LABEL_SOURCES}, not {labels!r}")
    path = Path(path)
    if not path.exists():
        raise InputError(path, "no such file or directory")
    result = read_inputs([path])
    if result.errors:
        raise result.errors[0]
    if not result.papers:
        raise InputError(path, "no readable papers found")
    papers: dict[str, Paper] = {}
    for paper in result.papers:
        if paper.id in papers:
            raise InputError(path, f"paper id {paper.id!r} occurs twice "
                                   f"({papers[paper.id].source_path} and {paper.source_path})")
        papers[paper.id] = paper
    sentences = [s for p in papers.values() for s in p.sentences()]
    has_gold = any(s.gold for s in sentences)
    has_pred = any(s.pred for s in sentences)
    source = ("pred" if has_pred else "gold") if labels == "auto" else labels
    if not (has_gold if source == "gold" else has_pred):
        what = "gold or predicted labels" if labels == "auto" else f"{labels} labels"
        raise InputError(path, f"no sentence carries {what}")
    return AnnotationSet(name or str(path), papers, source, result.files)


def load_sets(paths: Sequence[str | Path], labels: str = "auto") -> list[AnnotationSet]:
    """Read several sets, named by their argument (unique names required)."""
    names = [str(p) for p in paths]
    if len(set(names)) != len(names):
        raise AlignmentError("the same annotation set is named twice")
    return [load_set(p, n, labels) for p, n in zip(paths, names, strict=True)]


_NON_WORD = re.compile(r"[\W_]+", re.UNICODE)


def normalise_text(text: str) -> str:
    """Text key for matching sentences: NFKC, case-folded, only letters and digits kept.

    Formats differ in spacing, inline markup and punctuation around citations; the
    words stay the same.
    """
    return _NON_WORD.sub("", unicodedata.normalize("NFKC", text).casefold())


def align_sentences(a: Paper, b: Paper) -> list[tuple[Sentence, Sentence]]:
    """Pairs of the same sentence in two readings of one paper, in ``a``'s order.

    First by ``sid``: a sid that occurs once on each side and whose two sentences have
    the same normalised text. Sentences left over (no sid, a sid missing or repeated on
    one side, or the sid names different text) are then matched by normalised text,
    the k-th occurrence of a text on one side with the k-th unmatched one on the other.
    Anything still unmatched is left out.
    """
    sa, sb = a.sentences(), b.sentences()
    key_a, key_b = [normalise_text(s.text) for s in sa], [normalise_text(s.text) for s in sb]
    by_sid_b = _unique_sids(sb)
    by_sid_a = _unique_sids(sa)
    pair_of: dict[int, int] = {}
    used_b: set[int] = set()
    for i, s in enumerate(sa):
        j = by_sid_b.get(s.sid) if s.sid in by_sid_a else None
        if j is not None and key_a[i] == key_b[j]:
            pair_of[i] = j
            used_b.add(j)
    free_b: dict[str, deque[int]] = defaultdict(deque)
    for j, key in enumerate(key_b):
        if j not in used_b and key:
            free_b[key].append(j)
    for i, key in enumerate(key_a):
        if i not in pair_of and free_b.get(key):
            pair_of[i] = free_b[key].popleft()
    return [(sa[i], sb[pair_of[i]]) for i in sorted(pair_of)]


def _unique_sids(sentences: list[Sentence]) -> dict[str, int]:
    seen: dict[str, int] = {}
    repeated: set[str] = set()
    for i, s in enumerate(sentences):
        if not s.sid:
            continue
        if s.sid in seen:
            repeated.add(s.sid)
        seen[s.sid] = i
    return {sid: i for sid, i in seen.items() if sid not in repeated}


def common_papers(sets: Sequence[AnnotationSet]) -> list[str]:
    """Ids of the papers every set has, in the first set's order; AlignmentError if none."""
    common = [pid for pid in sets[0].papers if all(pid in s.papers for s in sets[1:])]
    if not common:
        names = " and ".join(s.name for s in sets)
        raise AlignmentError(f"{names} have no paper in common (papers are matched by id, "
                             f"taken from the file name or the JSONL 'paper' field)")
    return common


def aligned_labels(a: AnnotationSet, b: AnnotationSet
                   ) -> tuple[dict[str, list[list[str]]], dict[str, list[list[str]]]]:
    """Per common paper, the label lists of the sentences both sets have, aligned.

    Raises AlignmentError when the sets share no paper, or a shared paper has no
    sentence in common (different documents under one id).
    """
    la: dict[str, list[list[str]]] = {}
    lb: dict[str, list[list[str]]] = {}
    for pid in common_papers([a, b]):
        pairs = align_sentences(a.papers[pid], b.papers[pid])
        if not pairs:
            raise AlignmentError(f"paper {pid}: no sentence in common between {a.name} and "
                                 f"{b.name} (neither sids with the same text nor equal texts)")
        la[pid] = [a.labels(x) for x, _ in pairs]
        lb[pid] = [b.labels(y) for _, y in pairs]
    return la, lb


def compare(a: AnnotationSet, b: AnnotationSet) -> dict[str, Any]:
    """The five measures between two sets: ``metrics.agreement`` plus the set names."""
    la, lb = aligned_labels(a, b)
    try:
        result = agreement(la, lb)
    except ValueError:
        raise AlignmentError(f"{a.name} and {b.name}: no sentence is labelled in both") from None
    return {"a": a.name, "b": b.name, **result}


def pairwise(sets: Sequence[AnnotationSet]) -> list[dict[str, Any]]:
    """:func:`compare` for every pair of sets, in argument order."""
    return [compare(a, b) for a, b in combinations(sets, 2)]


def reliability(names: Sequence[str], pairs: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Each set's mean micro kappa with the others over the five measures.

    The CRA paper calls the annotator who does best on all measures the most reliable
    and follows them where the consensus rules leave disagreement.
    """
    scores: dict[str, list[float]] = {n: [] for n in names}
    for r in pairs:
        values = [r["micro"][m] for m in MEASURES]
        scores[r["a"]].extend(values)
        scores[r["b"]].extend(values)
    return {n: sum(v) / len(v) if v else 0.0 for n, v in scores.items()}
