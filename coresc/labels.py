"""The CoreSC label set, its priority order and the Multi-CoreSC rank weights.

Source: ``../shared/docs/coresc-scheme.md`` (the Multi-CoreSC CRA corpus paper).
"""

from __future__ import annotations

from collections.abc import Iterable

#: The 11 CoreSC labels in the guidelines' priority order, highest first.
#: Rarer concepts rank higher; the order breaks ties (consensus, label choice).
LABELS: tuple[str, ...] = (
    "Hyp", "Goa", "Mot", "Obj", "Con", "Res", "Mod", "Obs", "Exp", "Met", "Bac",
)

LABEL_NAMES: dict[str, str] = {
    "Hyp": "Hypothesis",
    "Goa": "Goal",
    "Mot": "Motivation",
    "Obj": "Object",
    "Con": "Conclusion",
    "Res": "Result",
    "Mod": "Model",
    "Obs": "Observation",
    "Exp": "Experiment",
    "Met": "Method",
    "Bac": "Background",
}

#: Rank weights of a sentence's labels, by how many labels it has (guidelines).
RANK_WEIGHTS: dict[int, tuple[float, ...]] = {
    1: (1.0,),
    2: (0.6, 0.4),
    3: (0.6, 0.3, 0.1),
}

MAX_LABELS = 3


def priority(label: str) -> int:
    """Return the label's rank in the priority order (0 is highest).

    Labels outside the CoreSC set (other schemes read from JSONL) rank after all
    CoreSC labels, in alphabetical order, so sorting by priority stays total.
    """
    try:
        return LABELS.index(label)
    except ValueError:
        return len(LABELS)


def sort_key(label: str) -> tuple[int, str]:
    """Key that sorts labels by priority, then by name."""
    return (priority(label), label)


def scheme_of(codes: Iterable[str]) -> tuple[str, ...]:
    """The label set ``codes`` come from: CoreSC's 11 labels when one of them is a CoreSC
    label (or there is none), else the codes themselves (another scheme: CSAbstruct's
    ``background`` ... ``result``, PubMed RCT's, argumentative zoning's), sorted."""
    seen = set(codes)
    if not seen or seen & set(LABELS):
        return LABELS
    return tuple(sorted(seen, key=sort_key))


def is_coresc(codes: Iterable[str]) -> bool:
    """Whether ``codes`` (a model's labels, a corpus's) are CoreSC's (or empty)."""
    return scheme_of(codes) == LABELS


def rank_weights(n: int) -> tuple[float, ...]:
    """Weights for a ranked list of ``n`` labels (1 to 3); empty for 0."""
    if n == 0:
        return ()
    if n not in RANK_WEIGHTS:
        raise ValueError(f"a sentence carries 1 to {MAX_LABELS} labels, not {n}")
    return RANK_WEIGHTS[n]
