"""Latin text set vertically, one upright letter under the other (stacked letters, or a
font in vertical writing mode), found among a page's runs (part of the child process,
:mod:`coresc.readers.pdf.extract`).

Each such letter stands alone on its line, so the reading made a line, or a sentence, of
every letter, or dropped them all as too short to be text, without a word. The letters
of a stack are joined into words (a wider step between two letters is a space). Where
stacks hold most of a page's letters, the page is written vertically: its columns,
left to right (right to left in Chinese and Japanese), become its lines, top to
bottom. Elsewhere (a label up a margin) a stack is taken out of the page's runs and
said in one line (``left_out``).
"""

from __future__ import annotations

#: Characters one above the other at least this many form a stack.
MIN_STACK = 4
#: How far apart consecutive letters of a stack stand (their baselines), in their size:
#: one line (up to ``_STEP[1]``) or a word's gap (up to ``_GAP``).
_STEP = (0.6, 1.6)
_GAP = 2.6
#: Share of a stack's characters that must be letters or digits.
_LETTERS = 0.75


def _letter(run: list) -> str:
    """The run's one character (a letter, a digit, a stop), else ''."""
    text = run[6].strip()
    return text if len(text) == 1 else ""


def _follows(prev: list, run: list) -> float:
    """The step, in sizes, from letter ``prev`` down to ``run`` standing right under it
    (0 when it does not)."""
    size = max(prev[5], run[5], 0.1)
    middle = (prev[0] + prev[2] - run[0] - run[2]) / 2
    step = (prev[4] - run[4]) / size
    return step if abs(middle) < 0.5 * size and _STEP[0] <= step <= _GAP else 0.0


def take_stacks(runs: list[list]) -> tuple[list[list], list[tuple[str, list[list]]]]:
    """The page's runs without its stacks of letters, and each stack's words and runs."""
    kept: list[list] = []
    stacks: list[tuple[str, list[list]]] = []
    i = 0
    while i < len(runs):
        j = i + 1
        if _letter(runs[i]):
            while j < len(runs) and _letter(runs[j]) and _follows(runs[j - 1], runs[j]):
                j += 1
        if j - i >= MIN_STACK and sum(_letter(r).isalnum() for r in runs[i:j]) >= \
                _LETTERS * (j - i):
            words = "".join(("" if k == i or _follows(runs[k - 1], runs[k]) <= _STEP[1]
                             else " ") + _letter(runs[k]) for k in range(i, j))
            stacks.append((words, runs[i:j]))
        else:
            kept.extend(runs[i:j])
        i = j
    return kept, stacks


def vertical_runs(runs: list[list]) -> tuple[list[list], list[str]]:
    """The page's runs with its stacks read as lines where they hold most of its letters,
    else taken out; and the words of the stacks taken out."""
    kept, stacks = take_stacks(runs)
    if not stacks:
        return runs, []
    stacked = sum(len(run) for _, run in stacks)
    if stacked > sum(len(r[6].strip()) for r in kept):
        return kept + _as_lines(stacks), []
    return kept, [words for words, _ in stacks]


def _as_lines(stacks: list[tuple[str, list[list]]]) -> list[list]:
    """Columns of letters, left to right (right to left for Chinese and Japanese), as
    lines from the top of the highest: runs of :mod:`~coresc.readers.pdf.extract`'s
    shape."""
    words = "".join(w for w, _ in stacks)
    cjk = sum(ch >= "\u2e80" for ch in words) > len(words) / 2  # read right to left
    stacks = sorted(stacks, key=lambda stack: stack[1][0][0], reverse=cjk)
    left = min(run[0][0] for _, run in stacks)
    base = max(run[0][3] for _, run in stacks)
    lines = []
    for words, run in stacks:
        first = run[0]
        size = sorted(r[5] for r in run)[len(run) // 2]
        base -= 1.25 * size
        lines.append([left, base - 0.2 * size, left + 0.5 * size * len(words), base + 0.8 * size,
                      base, size, words, first[7], first[8], first[9],
                      [[len(words), first[7] >= 0.5, first[8] >= 0.5, first[9]]]])
    return lines


def stacks_note(stacks: list[str]) -> str:
    """The one line saying what stacked text was left out."""
    letters = sum(len(s.replace(" ", "")) for s in stacks)
    first = stacks[0] if len(stacks[0]) <= 40 else stacks[0][:40] + "..."
    return (f"{letters:,} letters set vertically, one under another ({len(stacks):,} "
            f"column(s), the first \"{first}\"), not read")
