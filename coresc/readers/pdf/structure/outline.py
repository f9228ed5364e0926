"""The PDF's own bookmarks as headings: a block whose text is a bookmark's title, on the
page the bookmark points to (or the next), is a heading (its level then comes from its
number or its style, as for any heading: outlines nest abstracts and back matter as
they please).

Bookmarks are trusted only when most of them are found as text (some PDFs name them
"Section_1", "Section_2" ...); the title of the paper is left to the layout.
"""

from __future__ import annotations

from .blocks import Block
from .heads import name_heading
from .patterns import NUMBER


def _key(text: str) -> str:
    return "".join(c for c in text.lower() if c.isalnum())


def mark_outline(blocks: list[Block], outline: list[list]) -> float:
    """Mark the blocks that bookmarks name as headings (``kind``, ``heading_text``,
    ``number``, ``outlined``); returns the share of bookmarks found (0 when
    too few were found to trust them)."""
    entries = [(level, _key(title), page) for level, title, page in outline if _key(title)]
    if not entries:
        return 0.0
    by_page: dict[int, list[Block]] = {}
    for block in blocks:
        if len(block.lines) <= 3:
            by_page.setdefault(block.first.page, []).append(block)
    found: list[tuple[Block, int]] = []
    for level, key, page in entries:
        block = _find(by_page, key, page)
        if block is not None:
            found.append((block, level))
    if len(found) < max(2, 0.5 * len(entries)):
        return 0.0
    for block, _level in found:
        if block.kind == "title":
            continue
        block.kind = "heading"
        name_heading(block, block.text())  # (its number or label apart: "Appendix A.")
        block.outlined = True
    return len(found) / len(entries)


def _find(by_page: dict[int, list[Block]], key: str, page: int) -> Block | None:
    pages = (page, page + 1) if page >= 0 else sorted(by_page)
    for p in pages:
        for block in by_page.get(p, ()):
            text = _key(block.text())
            m = NUMBER.match(block.text())
            bare = _key(block.text()[m.end():]) if m else text
            if key in (text, bare):
                return block
    return None
