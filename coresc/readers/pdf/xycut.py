"""Reading order by recursive XY-cuts: a page's runs split where white space runs through
them, into regions read in order.

A region is cut first down its columns: at every vertical strip of white space that runs
through the region's whole height and is wide enough for a gutter, when there is text of
several lines on both sides. Where no such strip runs through (a title or a figure spans
the columns), it is cut across at the wide horizontal gaps (under a title, around a figure
or a box), and each part is cut again. So a box set over two of three columns is read
before them, and the third column after, instead of the box's lines cutting every column
into bands. Regions are read top to bottom, and left to right; a region that no cut
splits is one column of text (a leaf).

Each level sorts the runs once and cuts at all its gaps at once, and the depth is bounded:
about n log n for a page of n runs.
"""

from __future__ import annotations

import bisect
from collections import Counter

#: Deeper than this a region is not cut again (its runs are read top to bottom).
MAX_DEPTH = 16


def xy_leaves(runs: list[list], body: float) -> list[list[list]]:
    """The page's runs (``extract``'s lists: x0, y0, x1, y1 first) grouped into leaf
    regions, in reading order."""
    out: list[list[list]] = []
    _cut(runs, body, 0, out)
    return out


def _cut(runs: list[list], body: float, depth: int, out: list[list[list]]) -> None:
    if len(runs) <= 1 or depth >= MAX_DEPTH:
        if runs:
            out.append(runs)
        return
    parts = _columns(runs, body)
    if parts is None:  # (the region's gaps across, measured once for both ways of cutting)
        gaps, spaced = _gaps_across(runs, body)
        parts = _across(runs, body, gaps, spaced) or _opening(runs, body, gaps, spaced) \
            or _over_columns(runs, body)
    if parts is None:
        out.append(runs)
        return
    for part in parts:
        _cut(part, body, depth + 1, out)


def _rows_gaps(runs: list[list], least: float) -> list[tuple[float, float]]:
    """The horizontal gaps at least ``least`` high that run across all of ``runs``, top to
    bottom: (height, middle), the middle as minus its y (ascending down the page)."""
    spans = sorted((-r[3], -r[1]) for r in runs)
    gaps = []
    reach = spans[0][1]
    for a, b in spans[1:]:
        if a - reach >= least:
            gaps.append((a - reach, (a + reach) / 2))
        reach = max(reach, b)
    return gaps


def _split(runs: list[list], cuts: list[float], key, keep_empty: bool = False
           ) -> list[list[list]]:
    """``runs`` parted at ``cuts`` (ascending) by ``key``, in the cuts' order (the empty
    parts left out, unless ``keep_empty``)."""
    parts: list[list[list]] = [[] for _ in range(len(cuts) + 1)]
    for r in runs:
        parts[bisect.bisect_left(cuts, key(r))].append(r)
    return parts if keep_empty else [p for p in parts if p]


def _columns(runs: list[list], body: float) -> list[list[list]] | None:
    """The region cut at its gutters, left to right; None where none runs through.

    A few runs may cross a gutter (a page number, a running head, a short title over the
    columns): the gutter still counts, and each crossing run is read before the columns
    when it lies above them, after them when below, else with the column it mostly lies
    in."""
    # (word gaps line up through a few lines only: a region of many runs is not checked)
    cuts = [cut for cut in _gutters(runs, 0.6 * body, max(1, len(runs) // 50))
            if len(runs) > 80 or not _word_spaces(runs, cut)]
    if not cuts:
        return None
    crossing = [r for r in runs if _crosses(r, cuts)]
    inside = [r for r in runs if not _crosses(r, cuts)]
    if not inside:
        return None
    parts = _split(inside, cuts, lambda r: (r[0] + r[2]) / 2, keep_empty=True)
    # a column holds text of several lines (not a number and its heading, or a margin
    # note beside one line); margin line numbers are a column of their own
    if sum(1 for p in parts if _lines(p, body) >= 2) < 2:
        return None
    band = _new_band(runs, [p for p in parts if p], body)
    if band is not None:
        return _split(runs, [band], _down)
    if not crossing:
        return [p for p in parts if p]
    top, bottom = max(r[3] for r in inside), min(r[1] for r in inside)
    above = [r for r in crossing if r[1] >= top]
    below = [r for r in crossing if r[3] <= bottom and r[1] < top]
    middle = [r for r in crossing if r[3] > bottom and r[1] < top]
    if any(_spans(r, cuts, body) for r in middle):
        across = _across(runs, body, *_gaps_across(runs, body))
        if across:
            return across  # a caption across the columns, its short lines under it
    for r in middle:
        parts[_part_of(r, cuts)].append(r)
    return [p for p in (above, *parts, below) if p]


def _word_spaces(runs: list[list], cut: float) -> bool:
    """Whether the white strip at ``cut`` is only the spaces of a few justified lines
    that happen to line up (a loose paragraph whose words are runs of their own): most
    lines with words on both sides of it have there a gap of a word's space (no wider
    than 1.6 times the line's widest other gap between its runs, nor than 1.6 ems, in a
    line of words, not of a table's numbers), or a word of the line runs across it."""
    lines: dict[int, list[list]] = {}
    for r in runs:
        lines.setdefault(round(r[4]), []).append(r)
    judged = spaces = 0
    for line in lines.values():
        if len(line) < 2:
            continue
        judged += 1
        if any(r[0] < cut < r[2] for r in line):
            judged, spaces = judged + 1, spaces + 2  # (the surest sign: it counts twice)
            continue
        line.sort(key=lambda r: r[0])
        at, other = [], []
        for a, b in zip(line, line[1:], strict=False):
            (at if a[2] <= cut <= b[0] else other).append(b[0] - a[2])
        size = max(r[5] for r in line)
        other = [g for g in other if g > 0]
        text = "".join(r[6] for r in line).replace(" ", "")
        words = sum(c.isalpha() for c in text) >= 0.7 * len(text)  # (not a table's row)
        spaces += bool(words and at and other and at[0] <= 1.6 * min(size, max(other)))
    return judged >= 2 and 2 * spaces > judged


def _new_band(runs: list[list], columns: list[list[list]], body: float) -> float | None:
    """Where the columns end together and new ones begin in another size (a reference
    list set in two columns of small print under balanced columns of text): the middle
    of that gap across the region, else None. Without it each column would be read
    through the band's end, the reference list's first column before the text's second."""
    cols = [sorted(col, key=_down) for col in columns]  # each column sorted once, down
    downs = [[_down(r) for r in col] for col in cols]
    for _height, middle in _rows_gaps(runs, 0.5 * body):
        sides = [(col[:k], col[k:]) for col, down in zip(cols, downs, strict=True)
                 for k in [bisect.bisect_left(down, middle)]]
        if not all(_lines(side, body) >= 2 for pair in sides for side in pair):
            continue  # (a running head over the columns is not a band of text)
        below = [_size_of(b) for _a, b in sides]
        above = [_size_of(a) for a, _b in sides]
        if not all(_lines([r for r in a if abs(r[5] - size) <= 0.3], body) >= 2
                   for (a, _b), size in zip(sides, above, strict=True)):
            continue  # (nor a running head over a heading atop each column)
        if max(below) - min(below) <= 0.3 and all(abs(a - below[0]) >= 0.5 for a in above) \
                and all(_edge(a, b, below[0], body) for a, b in sides):
            return middle
    return None


def _edge(above: list[list], below: list[list], size: float, body: float) -> bool:
    """Whether the band's size begins right under the gap in a column (a heading over
    it aside) and its last line above is set otherwise: the gap is the band's edge, not
    a gap higher up in the text over it. ``above`` and ``below``: the column's runs on
    either side of the gap, down the page."""
    if abs(above[-1][5] - size) <= 0.3:
        return False
    first = [r for r in below if abs(r[4] - below[0][4]) > 0.5 * body][:1] \
        if below[0][5] > size + 0.3 else below[:1]  # past one heading line
    return bool(first) and abs(first[0][5] - size) <= 0.3


def _size_of(runs: list[list]) -> float:
    """The size most of a column's runs on one side of a gap are set in (a heading at a
    column's top does not make a band)."""
    return Counter(round(r[5] * 2) / 2 for r in runs).most_common(1)[0][0]


def _crosses(run: list, cuts: list[float]) -> bool:
    i = bisect.bisect_right(cuts, run[0])
    return i < len(cuts) and cuts[i] < run[2]


def _spans(run: list, cuts: list[float], body: float) -> bool:
    """Whether a run reaches well into the columns on both sides of a gutter (a line of
    text set across them, not a page number or a figure's label on the gutter)."""
    return any(run[0] < cut - 8 * body and run[2] > cut + 8 * body for cut in cuts)


def _part_of(run: list, cuts: list[float]) -> int:
    return bisect.bisect_left(cuts, (run[0] + run[2]) / 2)


def _gutters(runs: list[list], least: float, crossers: int) -> list[float]:
    """The middles of the vertical strips at least ``least`` wide that at most
    ``crossers`` runs cross, between the region's left and right edges."""
    events = sorted([(r[0], 1) for r in runs] + [(r[2], -1) for r in runs])
    left, right = events[0][0], events[-1][0]
    cuts, depth, start = [], 0, None
    for x, step in events:
        depth += step
        if depth <= crossers and start is None:
            start = x
        elif depth > crossers and start is not None:
            if x - start >= least and start > left and x < right:
                cuts.append((start + x) / 2)
            start = None
    return cuts


def _across(runs: list[list], body: float, gaps: list[tuple[float, float]],
            spaced: float) -> list[list[list]] | None:
    """The region cut at its wide horizontal gaps (a body line's height or more), top to
    bottom; None where none. Two parts whose columns run on across the gap (the same
    gutter above and below: a heading's gap in one column beside a paragraph's in the
    other) stay one, so that each column is read whole. ``gaps``: the region's
    :func:`_rows_gaps`; ``spaced``: its :func:`_line_gap`, under which no cut is made."""
    least = max(body, 1.5 * spaced)
    cuts = [middle for height, middle in gaps if height >= least]
    if not cuts:
        return None
    parts = _split(runs, cuts, _down)
    merged = [parts[0]]
    below = _gutters(parts[0], 0.6 * body, 0) if len(parts[0]) > 1 else []
    for part in parts[1:]:
        gutters = _gutters(part, 0.6 * body, 0) if len(part) > 1 else []
        # (or text in one column only, beside a float at the other's top or foot: the
        # gap is across the region only there)
        if any(abs(a - b) < body for a in below for b in gutters) or \
                not below and _one_side(merged[-1], gutters):
            merged[-1] = merged[-1] + part
            below = gutters or below
        else:
            merged.append(part)
            below = gutters
    return merged if len(merged) > 1 else None


def _one_side(part: list[list], gutters: list[float]) -> bool:
    """Whether all of ``part`` lies on one side of one of ``gutters`` (another part's)."""
    return any(all(r[2] <= g for r in part) or all(r[0] >= g for r in part) for g in gutters)


def _gaps_across(runs: list[list], body: float) -> tuple[list[tuple[float, float]], float]:
    """The region's horizontal gaps (:func:`_rows_gaps`, a quarter of a line or more) and
    the white space between its lines where it is set double-spaced (:func:`_line_gap`)."""
    gaps = _rows_gaps(runs, 0.25 * body)
    return gaps, _line_gap(gaps, body, _lines(runs, body))


def _line_gap(gaps: list[tuple[float, float]], body: float, lines: int) -> float:
    """The white space between the lines of text set double-spaced or looser (a
    manuscript: 18 points between lines of 10.5), where most of the region's gaps are of
    that one height and there is such a gap under most of its ``lines`` (one column: in
    two, the columns' gaps seldom fall level); else 0. A cut at such a gap would make
    every line a region."""
    heights = sorted(h for h, _middle in gaps if h >= 0.6 * body)
    best, most = 0.0, 0
    for h in heights:  # the height most gaps come within a tenth of
        n = bisect.bisect_right(heights, 1.1 * h) - bisect.bisect_left(heights, h)
        if n > most:
            best, most = h, n
    return best if most >= 3 and most >= 0.5 * len(gaps) and most >= 0.5 * (lines - 1) \
        else 0.0


def _opening(runs: list[list], body: float, gaps: list[tuple[float, float]], spaced: float,
             tries: int = 8) -> list[list[list]] | None:
    """The region cut across at a narrower gap that opens columns on one side of it (a
    figure or a table set close above two columns of text): of its widest gaps, the
    first where one side has a gutter (never between a double-spaced text's own lines,
    ``spaced`` apart)."""
    wide = [g for g in gaps if not spaced or g[0] > 1.25 * spaced]
    for _height, cut in sorted(wide, reverse=True)[:tries]:
        parts = _split(runs, [cut], _down)
        if len(parts) == 2 and any(_columns(p, body) for p in parts):
            return parts
    return None


def _over_columns(runs: list[list], body: float) -> list[list[list]] | None:
    """The region cut over the columns its lower part is set in, where no gap is wider
    than its lines' own (a word processor's abstract across the page right over two
    columns, single spaced): under the lowest line that runs across a gutter of the
    lower third. None where that third has no gutter, or no columns under the line."""
    down = sorted(runs, key=_down)
    lower = down[2 * len(down) // 3:]
    for cut in _gutters(lower, 0.6 * body, max(1, len(lower) // 50)):
        # (a line of text across the gutter, not the page number on it)
        crossing = [_down(r) for r in runs if _spans(r, [cut], body)]
        if not crossing:
            continue
        last = max(crossing)
        under = [r for r in runs if _down(r) > last + 0.5 * body]
        sides = ([r[3] for r in under if r[2] <= cut], [r[3] for r in under if r[0] >= cut])
        if not all(sides):
            continue
        # (the columns start at the lower of their first lines: a paragraph's short last
        # line over them, in the left one's place, is not theirs)
        top = min(max(side) for side in sides)
        below = [r for r in runs if (r[1] + r[3]) / 2 < top]
        above = [r for r in runs if (r[1] + r[3]) / 2 >= top]
        if above and below and _columns(below, body) is not None:
            return [above, below]
    return None


def _down(run: list) -> float:
    """A run's middle as the horizontal cuts measure it (minus its y: down the page)."""
    return -(run[1] + run[3]) / 2


def _lines(runs: list[list], body: float) -> int:
    """How many lines a region's runs lie on (distinct baselines)."""
    bases = sorted(r[4] for r in runs)
    count, last = 0, None
    for b in bases:
        if last is None or b - last > 0.5 * body:
            count += 1
            last = b
    return count
