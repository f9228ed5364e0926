"""From lines in reading order to the parts of a paper: its title, abstract, headed
sections, paragraphs and captions, with what is not the paper's text left out.

Left out: running heads and feet, page and line numbers, the author and affiliation
block, footnotes and other small print, tables, figure text, keywords, and everything
under a back-matter heading (references, acknowledgements, funding, declarations ...).
Headings are lines set apart from the body text by weight, size, capitals, italic on a
line of their own, or centring, short and not ending like a sentence, or numbered ("2.1
Data"); a bold phrase that opens a paragraph ("Background: ...") is a run-in heading. A
heading's level comes from its number, else from how its style ranks against the style
of the paper's main headings.

The steps, a module each: ``blocks`` (lines into blocks), ``kinds`` (what each block
is), ``heads`` (whether a block is a heading, and its level), ``walk`` (the blocks
walked into parts), ``patterns`` (the words they look for).
"""

from __future__ import annotations

from .blocks import Block, body_size, join_lines, make_blocks
from .kinds import classify
from .walk import Part

__all__ = ["Block", "Part", "body_size", "classify", "join_lines", "make_blocks"]
