"""Domain feature augmentation (Daume III, 2007): a copy of every feature per domain."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..document import Paper

#: What can make a paper's domain for feature augmentation (``CoreSCClassifier.domains``).
DOMAIN_KINDS = ("corpus", "folder")
#: Fewest training papers of a domain for it to get label biases of its own.
MIN_DOMAIN_PAPERS = 5


def domain_kinds(domains: str | Sequence[str]) -> tuple[str, ...]:
    return (domains,) if isinstance(domains, str) else tuple(domains)


def domain_tag(kind: str, value: str) -> str:
    """The tag of one domain, as features and ``domains_`` spell it: ``corpus=cra``."""
    return f"{kind}={value}"


def paper_domains(paper: Paper, kinds: Sequence[str]) -> list[str]:
    """The paper's domain tags for the given kinds: ``corpus=cra``, ``folder=ann3``."""
    tags = []
    for kind in kinds:
        if kind == "corpus":
            value = paper.meta.get("corpus")
        else:
            value = Path(paper.source_path).parent.name if paper.source_path else None
        if value:
            tags.append(domain_tag(kind, value))
    return tags


def augment(x: list[dict[str, float]], tags: Sequence[str]) -> list[dict[str, float]]:
    """Each sentence's features plus one copy per domain tag (``"corpus=cra:w=cell"``)."""
    out = []
    for f in x:
        g = dict(f)
        for tag in tags:
            prefix = tag + ":"
            g.update({prefix + k: v for k, v in f.items()})
        out.append(g)
    return out
