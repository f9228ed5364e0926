"""TSV: the JSONL record's columns, one sentence per row, with a header row.

``gold`` is the ranked codes joined by ``|`` (``Res|Obs``); ``pred``, present when any
paper has predictions, is ``Label:score`` joined by ``|`` (``Res:0.912|Obs:0.071``).
Tabs, newlines and other control characters inside a field become spaces, so every
row is exactly one line with the same number of columns.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TextIO

from ..document import Paper
from .jsonl import FIELDS, sentence_records

_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")


def _field(value: object) -> str:
    return _CONTROL.sub(" ", str(value))


def _columns(with_pred: bool) -> tuple[str, ...]:
    return FIELDS + (("pred",) if with_pred else ())


def tsv_header(with_pred: bool) -> str:
    """The header row (with a ``pred`` column when the file has predictions)."""
    return "\t".join(_columns(with_pred)) + "\n"


def tsv_part(paper: Paper, with_pred: bool | None = None) -> str:
    """One paper's rows (no header); ``with_pred=None``: when the paper has predictions."""
    if with_pred is None:
        with_pred = any(s.pred for s in paper.sentences())
    columns = _columns(with_pred)
    rows = []
    for rec in sentence_records(paper, with_pred=with_pred):
        rec["gold"] = "|".join(rec["gold"])
        if with_pred:
            rec["pred"] = "|".join(f"{p['label']}:{p['score']:.3f}" for p in rec["pred"])
        rows.append("\t".join(_field(rec[c]) for c in columns) + "\n")
    return "".join(rows)


def write_tsv(papers: Sequence[Paper], fh: TextIO) -> None:
    """Write every sentence of ``papers`` as a tab-separated row after one header row."""
    with_pred = any(s.pred for paper in papers for s in paper.sentences())
    fh.write(tsv_header(with_pred))
    for paper in papers:
        fh.write(tsv_part(paper, with_pred))
