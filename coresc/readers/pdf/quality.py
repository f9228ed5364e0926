"""How well a PDF was read, as far as the reader can tell from its own output: the
figures a user needs to know that a reading went wrong (lines read as sentences, a
layout taken apart, the body left out), so that a bad reading is never silent.

* ``unended``: the share of body sentences with no closing punctuation (a sentence cut
  at every printed line ends without one);
* ``sentences_per_line``: body sentences per printed line of body text (well under 1 in
  running text; near 1 when every line became a sentence);
* ``headings``, ``abstract``: the section headings and whether an abstract was found;
* ``body_share``: the share of the text layer's characters kept as body text.

``doubts``: what looks wrong, in words (empty when nothing does). A reading is
*doubtful* when many sentences end without punctuation or the body holds little of the
text layer (sentences per line alone is no sign: some papers write short
sentences); :func:`doubts` says why in words.
"""

from __future__ import annotations

import re
from statistics import median

from ...document import Paper

_ENDED = re.compile(r"[.!?:;][\"'\u201d\u2019)\]]*\s*$|[\u3002\uff01\uff1f]\s*$")

#: Above this a reading is doubtful (and above the next, that is said too).
MAX_UNENDED = 0.15
MAX_SENTENCES_PER_LINE = 0.8
#: Below this share of the text layer kept as body, a reading is doubtful.
MIN_BODY_SHARE = 0.35


def text_layer_counts(pages: list[dict]) -> tuple[int, float]:
    """The text layer's characters (spaces aside) and the median length of its runs of
    body text (a printed line's worth, as near as the runs tell)."""
    chars = sum(len(r[6].replace(" ", "")) for page in pages for r in page["runs"])
    lengths = [len(r[6]) for page in pages for r in page["runs"] if len(r[6]) >= 20]
    return chars, float(median(lengths)) if lengths else 60.0


def reading_quality(paper: Paper, text_chars: int, line_chars: float) -> dict:
    """The figures of the module's docstring for ``paper`` read from a PDF whose text
    layer holds ``text_chars`` characters in lines of about ``line_chars``."""
    body = [s.text for s in paper.sentences() if s.zone == "body"]
    body_chars = sum(len(t) for t in body)
    lines = max(body_chars / max(line_chars, 1.0), 1.0)
    kept = sum(len(s.text.replace(" ", "")) for s in paper.sentences() if s.zone != "title")
    quality = {
        "unended": round(sum(1 for t in body if not _ENDED.search(t)) / len(body), 3)
        if body else 1.0,
        "sentences_per_line": round(len(body) / lines, 3),
        "headings": sum(1 for sec in paper.sections if sec.depth >= 1 and sec.heading
                        and sec.type != "abstract"),
        "abstract": any(s.zone == "abstract" for s in paper.sentences()),
        "body_share": round(min(kept / text_chars, 1.0), 3) if text_chars else 0.0,
    }
    quality["doubts"] = doubts(quality)
    return quality


def doubts(quality: dict) -> list[str]:
    """What looks wrong with a reading, in words (empty when nothing does)."""
    out = []
    if quality["unended"] > MAX_UNENDED:
        out.append(f"{100 * quality['unended']:.0f}% of its sentences end without "
                   "punctuation")
    if out and quality["sentences_per_line"] > MAX_SENTENCES_PER_LINE:
        out.append(f"{quality['sentences_per_line']:.2f} sentences per printed line")
    if quality["body_share"] < MIN_BODY_SHARE:
        out.append(f"only {100 * quality['body_share']:.0f}% of its text kept as the paper's")
    if out and not quality["headings"]:
        out.append("no heading found")
    if out and not quality["abstract"]:
        out.append("no abstract found")
    return out


def doubt_line(quality: dict, where: str) -> str | None:
    """One line for standard error when a reading looks doubtful, else None."""
    found = quality.get("doubts", [])
    if not found:
        return None
    return (f"{where}: the PDF may be read badly ({'; '.join(found)}); check the output, "
            "or read it with --grobid URL")
