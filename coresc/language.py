"""Whether a paper's text looks like English: the models were trained on English only.

A cheap check on the first sentences: most letters are Latin, and common English
function words ("the", "of", "and" ...) make up a fair share of the words. Scientific
English has 20-30 % of them; German, French or Spanish in Latin letters about 2 %, and
Chinese or Japanese has almost no Latin letters at all. Too little text is not judged.
"""

from __future__ import annotations

import re

from .document import Paper

_FUNCTION_WORDS = frozenset(
    "the of and in to a is was were for with that by on we are as be this from at an "
    "or which these it not has have been can our than".split())
_WORD = re.compile(r"[^\W\d_]+")
#: Letters looked at (the first sentences), and the fewest judged.
SAMPLE_LETTERS = 5_000
MIN_LETTERS = 200
MIN_LATIN_SHARE = 0.6
MIN_FUNCTION_SHARE = 0.06


def language_problem(paper: Paper) -> str | None:
    """Why the paper does not look like English, or ``None`` when it does (or is too short)."""
    words: list[str] = []
    n_letters = 0
    for s in paper.sentences():
        # a sample, not the whole of a runaway 50 MB "sentence"
        found = _WORD.findall(s.text[:10 * SAMPLE_LETTERS])
        words += found
        n_letters += sum(map(len, found))
        if n_letters >= SAMPLE_LETTERS:
            break
    if n_letters < MIN_LETTERS:
        return None
    latin = sum(len(w) for w in words if w.isascii()) / n_letters
    if latin < MIN_LATIN_SHARE:
        return f"text does not look like English (only {latin:.0%} Latin letters)"
    function = sum(w.lower() in _FUNCTION_WORDS for w in words) / len(words)
    if function < MIN_FUNCTION_SHARE:
        return (f"text does not look like English ({function:.0%} common English words, "
                f"expected 20-30 %)")
    return None
