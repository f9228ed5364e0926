"""Feature groups: the names a model configuration switches on or off (the table is in
:mod:`coresc.features`)."""

from __future__ import annotations

from collections.abc import Iterable

FEATURE_GROUPS: tuple[str, ...] = (
    "location", "section", "length", "citations", "ngrams", "verbs", "verbclass",
    "syntax", "cues", "heading", "zone", "context",
)

#: The groups a model uses unless told otherwise: all but ``context``, which lowered
#: CRA 3-fold accuracy (0.6995 with it, 0.7042 without; docs/benchmarks.md, ablation):
#: the CRF's transitions already carry what neighbours say about a sentence's label.
DEFAULT_FEATURES: tuple[str, ...] = tuple(g for g in FEATURE_GROUPS if g != "context")

Features = dict[str, float]


def check_groups(groups: Iterable[str]) -> tuple[str, ...]:
    """Validate feature-group names; return them in canonical order."""
    groups = tuple(groups)
    unknown = sorted(set(groups) - set(FEATURE_GROUPS))
    if unknown:
        raise ValueError(f"unknown feature group(s) {', '.join(unknown)}; "
                         f"known: {', '.join(FEATURE_GROUPS)}")
    return tuple(g for g in FEATURE_GROUPS if g in groups)


