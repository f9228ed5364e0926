"""The tagger's features: token normalisation, word keys and shapes, and the feature
names a word contributes in each of the five window roles (offsets 0, -1, +1, -2, +2).

Every feature but the tag history looks at one word at a fixed offset, which is what lets
the tagger cache score vectors per word type (see :mod:`coresc.pos`)."""

from __future__ import annotations

import re

import numpy as np

# Token normalisation shared by training and tagging: the treebank writes brackets as
# -LRB-/-RRB- (and sometimes raw "["), and quotes as `` and ''.
NORMALISE = {
    "(": "-LRB-", "[": "-LRB-", "{": "-LRB-",
    ")": "-RRB-", "]": "-RRB-", "}": "-RRB-",
    "-LCB-": "-LRB-", "-RCB-": "-RRB-", "-LSB-": "-LRB-", "-RSB-": "-RRB-",
    '"': "''", "\u201c": "``", "\u201d": "''", "\u2018": "`", "\u2019": "'",
}
ROLES = 5  # offsets 0, -1, +1, -2, +2 in that order
PAD_LEFT = ("-START2-", "-START-")
PAD_RIGHT = ("-END-", "-END2-")
ROLE_STARTS = np.array([0, 14, 18, 22, 23])  # where each role's features start (below)


def word_shape(word: str) -> str:
    """Compressed word shape: every run of letters or digits becomes ``u``, the rest stays.

    ``Fig.`` -> ``u.``, ``0.05`` -> ``u.u``, ``well-known`` -> ``u-u``. The last pass also
    rewrites the ``X``/``x``/``d`` marks of the earlier ones, so case and digits are lost;
    the shipped model was trained with this shape, so it is kept as it is.
    """
    s = _UPPER("X", word)
    s = _LOWER("x", s)
    s = _DIGIT("d", s)
    s = _OTHER("u", s)  # other letters (Greek ...)
    return s[:6]


_UPPER = re.compile(r"[A-Z]+").sub
_LOWER = re.compile(r"[a-z]+").sub
_DIGIT = re.compile(r"\d+").sub
_OTHER = re.compile(r"[^\W\d_]+").sub


def word_key(word: str) -> str:
    """The word as features see it: lower case, numbers collapsed."""
    low = word.lower()
    # (the letter test first: most words fail it at their first character)
    if not any(c.isalpha() for c in low) and any(c.isdigit() for c in low):
        return "!NUM"
    return low


def word_features(word: str, clusters: dict[str, int]) -> tuple[list[str], ...]:
    """Feature names of ``word`` for each role (current, prev, next, prev2, next2).

    ``clusters`` maps a word key (:func:`word_key`) to its distributional cluster, learnt from
    unlabelled text (:func:`learn_word_clusters`); it lets words never seen in the small
    treebank borrow evidence from words with similar contexts.
    """
    f = flat_features(word, clusters)
    return f[:14], f[14:18], f[18:22], f[22:23], f[23:]


def flat_features(word: str, clusters: dict[str, int]) -> list[str]:
    """The feature names of :func:`word_features`, all roles in one list (24 names)."""
    k = word_key(word)
    shape = word_shape(word)
    cl = str(clusters.get(k, "?"))
    s3 = k[-3:]
    return [
        "b",
        "w " + k,
        "s1 " + k[-1:],
        "s2 " + k[-2:],
        "s3 " + s3,
        "s4 " + k[-4:],
        "p1 " + k[:1],
        "p2 " + k[:2],
        "p3 " + k[:3],
        "s5 " + k[-5:],
        "sh " + shape,
        "cap " + str(word[:1].isupper()),
        "hy " + str("-" in word[1:]),
        "c " + cl,
        "w-1 " + k, "s3-1 " + s3, "sh-1 " + shape, "c-1 " + cl,
        "w+1 " + k, "s3+1 " + s3, "sh+1 " + shape, "c+1 " + cl,
        "w-2 " + k,
        "w+2 " + k,
    ]
