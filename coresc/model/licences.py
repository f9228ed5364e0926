"""What a model's training data allows: the corpora coresc knows, recognised among its
training papers by content hash and id (never by folder name), and their licences, as the
model card states them (:mod:`~coresc.model.card`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

#: The corpora whose terms coresc knows, by the key :func:`~.provenance.known_corpus`
#: gives: a short name, what it is, its licence. Source: ../shared/data/README.md.
CORPUS_LICENCES: dict[str, tuple[str, str, str]] = {
    "art": ("ART corpus", "ART corpus (Liakata et al.), chemistry and biochemistry papers",
            "CC BY-NC 3.0 (non-commercial use, with attribution)"),
    "cra": ("CRA corpus", "Multi-CoreSC CRA corpus, cancer risk assessment papers",
            "research use (see the corpus paper)"),
    "csabstruct": ("CSAbstruct", "CSAbstruct, computer-science abstracts", "Apache-2.0"),
}
UNKNOWN_TERMS = "unknown: check the data's terms"


def recognised(meta: Mapping[str, Any]) -> dict[str, Counter] | None:
    """Per corpus name of the training data: how many of its papers belong to each corpus
    coresc knows (:data:`CORPUS_LICENCES`; ``None``: to none), recognised by content hash
    and paper id, never by the name. ``None`` when the model records no training papers.
    """
    from .provenance import known_corpus

    papers = recorded_training(meta).get("papers")
    if not isinstance(papers, list):
        return None
    out: dict[str, Counter] = {}
    for p in papers:
        if isinstance(p, Mapping):
            out.setdefault(str(p.get("corpus") or ""), Counter())[known_corpus(p)] += 1
    return out


def corpus_totals(meta: Mapping[str, Any]) -> Counter | None:
    """How many training papers belong to each corpus coresc knows, all names together."""
    by_name = recognised(meta)
    return None if by_name is None else sum(by_name.values(), Counter())


def uses_art(meta: Mapping[str, Any]) -> bool:
    """Whether any training paper is an ART corpus paper (CC BY-NC), by content or id;
    an adapted model's record holds its source's papers too."""
    return bool((corpus_totals(meta) or {}).get("art"))


def recorded_training(meta: Mapping[str, Any]) -> Mapping[str, Any]:
    """``meta.json``'s ``training_data`` record (empty when there is none)."""
    record = meta.get("training_data")
    return record if isinstance(record, Mapping) else {}


def what_and_licence(counts: Counter | None) -> tuple[str, str]:
    """A training-data row's "what" and "licence", from what its papers were recognised as."""
    if not counts:
        return "", "unknown: the training papers are not recorded"
    if len(counts) == 1:
        key = next(iter(counts))
        return (CORPUS_LICENCES[key][1], CORPUS_LICENCES[key][2]) if key else \
            ("papers of no corpus coresc knows", UNKNOWN_TERMS)
    parts = sorted(counts.items(), key=lambda kv: (kv[0] is None, kv[0] or ""))
    what = ", ".join(f"{n} {CORPUS_LICENCES[k][0] if k else 'unknown to coresc'}"
                     for k, n in parts)
    licence = "; ".join(f"{CORPUS_LICENCES[k][2]} ({CORPUS_LICENCES[k][0]})" if k else
                        f"{UNKNOWN_TERMS} (the rest)" for k, _ in parts)
    return what, licence


def licence_section(meta: Mapping[str, Any]) -> list[str]:
    """The card's "Licence and use" lines: the terms of each corpus recognised."""
    lines = ["## Licence and use", "",
             "The coresc code is MIT-licensed. A trained model is made from its training "
             "corpora, whose terms follow it. coresc tells the corpora it knows by their "
             "papers' content hashes and ids, never by folder names:", ""]
    totals = corpus_totals(meta)
    if totals is None:
        return lines + ["- coresc cannot tell what this model was trained on (it records no "
                        "training papers): check the terms of its training data.", "",
                        "This is not legal advice.", ""]
    n = sum(totals.values())
    if totals.get("art"):
        lines += [
            f"- **This model was trained on the ART corpus ({totals['art']} of its {n} "
            "training papers), licensed CC BY-NC 3.0.** Whether "
            "a statistical model is an adaptation of its training data is not settled law; "
            "coresc treats the model as one. Use it, and the labels it produces, for "
            "non-commercial purposes only, and credit the ART corpus (Liakata et al.). "
            "For commercial use, train a model without ART (see *Rebuild*) and check "
            "the terms of the data you train it on."]
    elif not totals.get(None):
        lines += ["- This model was trained without the ART corpus (no CC BY-NC data): "
                  "coresc recognises every one of its training papers."]
    for key in sorted(k for k in totals if k and k != "art"):
        _, what, licence = CORPUS_LICENCES[key]
        lines.append(f"- {what} ({totals[key]} papers): {licence}.")
    if totals.get(None):
        lines.append(f"- {totals[None]} of the {n} training papers are from no corpus coresc "
                     "knows: their licence is unknown to coresc (and whether any is an ART "
                     "paper in another form); check their terms.")
    return lines + ["", "This is not legal advice.", ""]
