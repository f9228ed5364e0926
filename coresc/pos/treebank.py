"""Reading the Penn-Treebank parses the tagger is trained on."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

__all__ = ["read_treebank", "join_hyphens"]

_TREE_TOKEN = re.compile(r"\(|\)|[^\s()]+")


def read_treebank(path: str | Path) -> list[list[tuple[str, str]]]:
    """``(word, tag)`` leaves of every tree in a PTB bracketed file, traces dropped.

    Leaves look like ``(NN word)``; a tree ends when its brackets balance. ``-NONE-``
    leaves (traces such as ``*T*``) are not words and are left out.
    """
    toks = _TREE_TOKEN.findall(Path(path).read_text(encoding="utf-8"))
    sentences: list[list[tuple[str, str]]] = []
    leaves: list[tuple[str, str]] = []
    depth = 0
    i, n = 0, len(toks)
    while i < n:
        t = toks[i]
        if (
            t == "(" and i + 3 < n and toks[i + 3] == ")"
            and toks[i + 1] not in "()" and toks[i + 2] not in "()"
        ):
            if toks[i + 1] != "-NONE-":
                leaves.append((toks[i + 2], toks[i + 1]))
            i += 4
            continue
        if t == "(":
            depth += 1
        elif t == ")":
            depth -= 1
            if depth < 0:
                raise ValueError(f"{path}: unbalanced brackets near token {i}")
            if depth == 0:
                if leaves:
                    sentences.append(leaves)
                leaves = []
        i += 1
    if depth != 0:
        raise ValueError(f"{path}: unbalanced brackets at end of file")
    return sentences


def join_hyphens(sentence: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """Rejoin ``word HYPH word`` as one token, the way :func:`coresc.tokenize.tokenize` does.

    The treebank splits hyphenated words (``well - known``); our tokenizer keeps them
    whole. The joined token takes the tag of its last part, except that a participle
    (``time-consuming``, ``well-known``) before a noun or adjective becomes ``JJ``, as
    PTB tags prenominal hyphenated modifiers.
    """
    out: list[tuple[str, str]] = []
    i, n = 0, len(sentence)
    while i < n:
        word, tag = sentence[i]
        if tag == "HYPH" and out and i + 1 < n and out[-1][1] not in _PUNCT_TAGS \
                and sentence[i + 1][1] not in _PUNCT_TAGS:
            prev_word, _ = out.pop()
            next_word, next_tag = sentence[i + 1]
            out.append((f"{prev_word}-{next_word}", next_tag))
            i += 2
            continue
        out.append((word, tag))
        i += 1
    for j, (word, tag) in enumerate(out):
        if "-" in word[1:] and tag in ("VBN", "VBG") and j + 1 < len(out) \
                and out[j + 1][1][:2] in ("NN", "JJ"):
            out[j] = (word, "JJ")
    return out


_PUNCT_TAGS = {",", ".", ":", "-LRB-", "-RRB-", "``", "''", "HYPH", "NFP", "SYM"}
