"""What a model was trained on: paper ids and content hashes, to tell held-out papers.

:func:`training_record` goes into a model's ``meta.json`` (``training_data``) when it is
trained; :func:`seen_in_training` tells, for papers about to be evaluated, which of them
the model has seen. A paper's content hash (:func:`paper_fingerprint`) is the SHA-256 of
its sentence texts with whitespace normalised and joined by single spaces, so it does not
depend on the file format's markup, on labels (an annotated copy hashes like the
original) or on where the text was split into sentences.

:func:`known_corpus` tells, by those hashes and ids, which training papers belong to a
corpus coresc knows (``known_corpora.json``, written by ``experiments/known_corpora.py``):
what a model card says about licences rests on that, never on folder names.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..document import Paper

_WS = re.compile(r"\s+")

#: Paper ids and content hashes of the corpora coresc knows (ART, CRA, CSAbstruct).
KNOWN_CORPORA_FILE = Path(__file__).with_name("known_corpora.json")
#: How many hex digits of a content hash ``known_corpora.json`` keeps (64 bits).
HASH_DIGITS = 16


def paper_fingerprint(paper: Paper) -> str:
    """SHA-256 (hex) of the paper's sentence texts (NFC, whitespace collapsed)."""
    text = " ".join(s.text for s in paper.sentences())
    text = _WS.sub(" ", unicodedata.normalize("NFC", text)).strip()
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def training_record(papers: Sequence[Paper]) -> dict[str, Any]:
    """Per corpus: papers, sentences and labelled sentences; primary gold label counts;
    and every paper's id, corpus (``Paper.meta["corpus"]``) and content hash."""
    corpora: dict[str, dict[str, int]] = {}
    labels: Counter[str] = Counter()
    listed = []
    for p in papers:
        corpus = str(p.meta.get("corpus") or "")
        sents = p.sentences()
        c = corpora.setdefault(corpus, {"papers": 0, "sentences": 0, "labelled": 0})
        c["papers"] += 1
        c["sentences"] += len(sents)
        c["labelled"] += sum(1 for s in sents if s.gold)
        labels.update(s.gold_codes[0] for s in sents if s.gold)
        listed.append({"id": p.id, "corpus": corpus, "sha256": paper_fingerprint(p)})
    return {"hash": "sha256 of the sentence texts, whitespace-normalised",
            "corpora": corpora, "label_counts": dict(labels.most_common()),
            "papers": listed}


def seen_in_training(meta: Mapping[str, Any], papers: Sequence[Paper]) -> list[str | None]:
    """Per paper: ``"same text"`` when its content hash is one the model was trained on,
    ``"same id"`` when only its id is, else ``None``.

    Raises ``LookupError`` when ``meta`` (a model's ``meta.json``) records no training
    papers (models saved before coresc recorded them).
    """
    record = meta.get("training_data")
    if not isinstance(record, Mapping) or not isinstance(record.get("papers"), list):
        raise LookupError("the model does not record its training papers")
    hashes = {p.get("sha256") for p in record["papers"] if isinstance(p, Mapping)}
    ids = {p.get("id") for p in record["papers"] if isinstance(p, Mapping)}
    out: list[str | None] = []
    for paper in papers:
        if paper_fingerprint(paper) in hashes:
            out.append("same text")
        elif paper.id in ids:
            out.append("same id")
        else:
            out.append(None)
    return out


@lru_cache(maxsize=1)
def _known() -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    data = json.loads(KNOWN_CORPORA_FILE.read_text(encoding="utf-8"))
    return {name: (frozenset(c["ids"]), frozenset(c["sha256"]))
            for name, c in data["corpora"].items()}


def known_corpus(paper: Mapping[str, Any]) -> str | None:
    """The known corpus (``"art"``, ``"cra"``, ``"csabstruct"``) of a training paper as
    ``training_record`` lists it (``id``, ``sha256``): by its content hash, else by its
    id (ART and CRA ids name one paper each); ``None`` when it is none of them."""
    digest = str(paper.get("sha256") or "")[:HASH_DIGITS]
    known = _known()
    for name, (_, hashes) in known.items():
        if digest in hashes:
            return name
    for name, (ids, _) in known.items():
        if paper.get("id") in ids:
            return name
    return None
