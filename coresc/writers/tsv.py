"""TSV: the JSONL record's columns, one sentence per row, with a header row.

``gold`` is the ranked codes joined by ``|`` (``Res|Obs``); ``pred``, present when any
paper has predictions, is ``Label:score`` joined by ``|`` (``Res:0.912|Obs:0.071``).
After ``annotate --min-score`` a last column ``withheld`` gives, for a sentence left
without a label (empty ``pred``), the label it would have had as ``Label:score``.
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


def write_tsv(papers: Sequence[Paper], fh: TextIO) -> None:
    """Write every sentence of ``papers`` as a tab-separated row after one header row."""
    with_pred = any(s.annotated for paper in papers for s in paper.sentences())
    with_withheld = any("min_score" in p.meta or any(s.withheld for s in p.sentences())
                        for p in papers)
    columns = FIELDS + (("pred",) if with_pred else ()) + (("withheld",) if with_withheld
                                                          else ())
    fh.write("\t".join(columns) + "\n")
    for paper in papers:
        for rec in sentence_records(paper, with_pred=with_pred):
            rec["gold"] = "|".join(rec["gold"])
            if with_pred:
                rec["pred"] = "|".join(f"{p['label']}:{p['score']:.3f}" for p in rec["pred"])
            if with_withheld:
                w = rec.get("withheld")
                rec["withheld"] = f"{w['label']}:{w['score']:.3f}" if w else ""
            fh.write("\t".join(_field(rec[c]) for c in columns) + "\n")
