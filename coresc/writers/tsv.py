"""TSV: the JSONL record's columns, one sentence per row, with a header row.

``gold`` is the ranked codes joined by ``|`` (``Res|Obs``); ``pred``, present when any
paper has predictions, is ``Label:score`` joined by ``|`` (``Res:0.912|Obs:0.071``).
After ``annotate --min-score`` a last column ``withheld`` gives, for a sentence left
without a label (empty ``pred``), the label it would have had as ``Label:score``.
The provenance columns come last, in every file (:data:`PROVENANCE_COLUMNS`: the
article's identifiers, version, licence, retraction status, source format, the model
and the coresc version; empty where unknown). Tabs, newlines and other control
characters inside a field become spaces, so every row is exactly one line with the same
number of columns.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TextIO

from ..document import Paper
from .jsonl import FIELDS, sentence_records
from .provenance import PROVENANCE_KEYS, provenance_strings

#: The provenance columns every row ends with (see :mod:`coresc.writers.provenance`).
PROVENANCE_COLUMNS = (*PROVENANCE_KEYS, "coresc_version")

_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")


def _field(value: object) -> str:
    return _CONTROL.sub(" ", str(value))


def _columns(with_pred: bool, with_withheld: bool = False) -> tuple[str, ...]:
    return (FIELDS + (("pred",) if with_pred else ()) + (("withheld",) if with_withheld else ())
            + PROVENANCE_COLUMNS)


def tsv_header(with_pred: bool, with_withheld: bool = False) -> str:
    """The header row (a ``pred`` column when the file has predictions, a ``withheld``
    column when a score threshold may have kept labels back)."""
    return "\t".join(_columns(with_pred, with_withheld)) + "\n"


def tsv_part(paper: Paper, with_pred: bool | None = None,
             with_withheld: bool | None = None) -> str:
    """One paper's rows (no header); ``None``: decided from the paper itself."""
    if with_pred is None:
        with_pred = any(s.annotated for s in paper.sentences())
    if with_withheld is None:
        with_withheld = _has_withheld(paper)
    columns = _columns(with_pred, with_withheld)
    prov = provenance_strings(paper)
    rows = []
    for rec in sentence_records(paper, with_pred=with_pred):
        rec["gold"] = "|".join(rec["gold"])
        if with_pred:
            rec["pred"] = "|".join(f"{p['label']}:{p['score']:.3f}" for p in rec["pred"])
        if with_withheld:
            w = rec.get("withheld")
            rec["withheld"] = f"{w['label']}:{w['score']:.3f}" if w else ""
        rec.update((k, prov.get(k, "")) for k in PROVENANCE_COLUMNS)
        rows.append("\t".join(_field(rec[c]) for c in columns) + "\n")
    return "".join(rows)


def _has_withheld(paper: Paper) -> bool:
    return "min_score" in paper.meta or any(s.withheld for s in paper.sentences())


def write_tsv(papers: Sequence[Paper], fh: TextIO) -> None:
    """Write every sentence of ``papers`` as a tab-separated row after one header row."""
    with_pred = any(s.annotated for paper in papers for s in paper.sentences())
    with_withheld = any(_has_withheld(p) for p in papers)
    fh.write(tsv_header(with_pred, with_withheld))
    for paper in papers:
        fh.write(tsv_part(paper, with_pred, with_withheld))
