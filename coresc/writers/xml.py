"""``--to xml``: each paper in its own XML dialect.

A paper read from TEI (GROBID's, or a PDF, by either reader) is written as TEI
(:mod:`coresc.writers.tei`); every other paper as SAPIENTA mode2
(:mod:`coresc.writers.mode2`), which ``--to mode2`` asks for whatever the input.
"""

from __future__ import annotations

from ..document import Paper
from .mode2 import render_mode2
from .tei import render_tei


def render_xml(paper: Paper, labels: str = "auto", in_place: bool = False) -> bytes:
    """The paper as TEI when it was read from TEI, else as mode2 (UTF-8 bytes);
    ``in_place``: mode2 may label the paper's own tree (see
    :func:`~coresc.writers.mode2.render_mode2`)."""
    if paper.source_format == "tei" and paper.tree is not None:
        return render_tei(paper, labels)
    return render_mode2(paper, labels, in_place)
