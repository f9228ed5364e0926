"""A page's furniture, taken out before the text is read: running heads and feet (near
a page's top or bottom, or in a band set apart there, and repeated, or carrying the
page's number), page numbers, and a manuscript's line numbers."""

from __future__ import annotations

import re
from collections import Counter

from .layout import Line, unmark

_DIGITS = re.compile(r"\d+")


def repeated_margins(pages_lines: list[list[Line]], heights: list[float]) -> set[int]:
    """``id``s of the lines that are running heads or feet: near the top or bottom of a
    page (or a page's first or last band, set apart) and repeated on other pages (digits
    aside), or only a page number, or beside the page's number, or carrying it at one end
    as other pages' heads do (a journal's odd pages' head, "Rendered layouts 3", may
    stand once in a short paper)."""
    seen: Counter = Counter()
    folios: Counter = Counter()  # printed page number less the page's index: pages
    marginal: list[tuple[Line, str, int | None, bool, tuple]] = []
    for p, (lines, height) in enumerate(zip(pages_lines, heights, strict=True)):
        keys, offsets = set(), set()
        edges = _set_apart_edges(lines)
        numbered = {band for line in lines if (band := edges.get(id(line))) and
                    _PAGE_NUMBER.match(_DIGITS.sub("#", line.text.strip()))}
        for line in lines:
            zone = "top" if line.y0 > height * 0.9 else "bottom" if line.y1 < height * 0.09 \
                else ""
            edge = edges.get(id(line), "")
            if not zone and not edge:
                continue
            key = (zone or edge) + _DIGITS.sub("#", line.text.lower().replace(" ", ""))
            folio = _folio(line.text)
            offset = None if folio is None else folio - p
            # (a page's head that opens with its own number, "2 RIBEIRO ET AL.", though
            # no other page has one: a short paper's second page after its first)
            own = zone == "top" and folio == p + 1 and line.bold < 0.6 and \
                bool(_OWN_HEAD.match(line.text.strip()))
            marginal.append((line, key, offset, bool(edge) and edge in numbered or own,
                             (p, edge)))
            keys.add(key)
            offsets.add(offset)
        seen.update(keys)
        folios.update(offsets - {None})
    # a band set apart that holds a running head with the page's number holds only
    # running heads ("2 / PREPRINT FOR REVIEW" beside "Transactions of the ASME")
    headed = {band for _ln, _key, offset, _beside, band in marginal
              if band[1] and offset is not None and folios[offset] >= 2}
    tops: dict[int, list[tuple[int, float]]] = {}  # offset -> (page, top) of its lines
    for line, _key, offset, _beside, band in marginal:
        if offset is not None:
            tops.setdefault(offset, []).append((band[0], line.y1))
    out = set()
    for line, key, offset, beside_number, band in marginal:
        bare = key[3:] if key.startswith("top") else key[6:]
        # (a section's number may be the page's: "2 **Materials and methods**" at a
        # page's top, in bold, is a head only where set apart from the text under it, or
        # where another page's head stands as high)
        folio = offset is not None and folios[offset] >= 2 and (
            bool(band[1]) or not line.text.strip()[:1].isdigit() or line.bold < 0.6 or
            any(q != band[0] and abs(top - line.y1) < 2 for q, top in tops[offset]))
        if seen[key] >= 2 or _is_page_number(bare) or beside_number or band in headed or \
                folio:
            out.add(id(line))
    return out


def _set_apart_edges(lines: list[Line]) -> dict[int, str]:
    """The lines of a page's first and last bands where each band stands apart from the
    rest (a gap over its height), by ``id``: "top" or "bottom". They are its margins'
    too, however wide (amsart sets its heads 13% down the page), and count as heads when
    repeated or set beside the page's number."""
    if len(lines) < 3:
        return {}
    out: dict[int, str] = {}
    top = max(ln.y1 for ln in lines)
    band = [ln for ln in lines if ln.y1 > top - 0.5 * ln.size]
    rest = [ln.y1 for ln in lines if not ln.y1 > top - 0.5 * ln.size]
    if rest and min(ln.y0 for ln in band) - max(rest) > 1.2 * max(ln.size for ln in band):
        out.update((id(ln), "top") for ln in band)
    bottom = min(ln.y0 for ln in lines)
    band = [ln for ln in lines if ln.y0 < bottom + 0.5 * ln.size]
    rest = [ln.y0 for ln in lines if not ln.y0 < bottom + 0.5 * ln.size]
    if rest and min(rest) - max(ln.y1 for ln in band) > 1.2 * max(ln.size for ln in band):
        out.update((id(ln), "bottom") for ln in band)
    return out


# A page number at a running head's start or end, the head's words beside it.
# ("2 / PREPRINT FOR REVIEW": a rule or bullet may stand between them, and where one
# does, the words may hold figures: "Copyright © 2026 by ASME ... / 1")
_FOLIO = re.compile(r"^(\d{1,4})\s+(?:[/|\u2022\u00b7]\s+)?([^\W\d_][^\d]{2,120})$|"
                    r"^([^\W\d_][^\d]{2,120})\s(\d{1,4})$|"
                    r"^([^\W\d_].{2,160}?)\s[/|\u2022\u00b7]\s(\d{1,4})$")


# A running head after its page's number: a few words, the first a capital's.
_OWN_HEAD = re.compile(r"^\d{1,4}\s+[A-Z][^\d\s]*(?:\s+[^\d\s]+){0,6}$")


def _folio(text: str) -> int | None:
    """The page number a line is, or a running head carries at its start or end beside
    two words or more ("Figure 3" at a page's top is no head)."""
    text = text.strip()
    if text.isdecimal():
        return int(text)
    m = _FOLIO.match(text)
    if m is None or len((m.group(2) or m.group(3) or m.group(5)).split()) < 2:
        return None
    return int(m.group(1) or m.group(4) or m.group(6))


_PAGE_NUMBER = re.compile(r"^(?:page)?#(?:of#)?$|^[ivxlc]+$|^#[-/]#$")


def _is_page_number(key: str) -> bool:
    return bool(_PAGE_NUMBER.match(key)) or len(key) <= 2


_LINE_NUMBER = re.compile(r"^\d{1,4}$")


def drop_line_numbers(pages: list[dict]) -> int:
    """Take out the line numbers of a manuscript set with ``lineno`` (or a journal's
    review copy): runs of one number, aligned on one edge down many pages, counting up.
    Only runs standing apart at a line's start or end are counted, so a table's column
    of figures, with text in the cells beside it, is left alone. Returns how many runs
    were dropped; changes ``pages`` in place."""
    edges: dict[tuple[str, int], list[tuple[int, int, int]]] = {}
    for p, page in enumerate(pages):
        runs = page["runs"]
        for i, r in enumerate(runs):
            text = unmark(r[6]).strip()
            if _LINE_NUMBER.match(text):
                # aligned on the right (numbers left of the text) or on the left
                for side, x in (("r", r[2]), ("l", r[0])):
                    edges.setdefault((side, round(x / 2)), []).append((p, i, int(text)))
    best = max(edges.values(), key=len, default=[])
    if len(best) < 20 or not _counts_up([n for _p, _i, n in best]):
        return 0
    gone: dict[int, set[int]] = {}
    for p, i, _n in best:
        gone.setdefault(p, set()).add(i)
    for p, indices in gone.items():
        pages[p]["runs"] = [r for i, r in enumerate(pages[p]["runs"]) if i not in indices]
    return len(best)


def _counts_up(numbers: list[int]) -> bool:
    """Whether most neighbours in content order count up (line numbers do, page after
    page; a table column's figures do not)."""
    up = sum(1 for a, b in zip(numbers, numbers[1:], strict=False) if 0 < b - a <= 10)
    return up >= 0.7 * (len(numbers) - 1)
