"""What a block's look and words say, for the walk over the blocks
(:mod:`~coresc.readers.pdf.structure.walk`): a paragraph's indent, an abstract with no
heading, a heading that opens a back section, a paragraph carried on across a column, a
run-in head and a structured abstract's parts set inside its lines."""

from __future__ import annotations

import re
from collections import Counter

from ..extract import SUP_CLOSE, SUP_OPEN
from ..layout import Line, unmark
from .blocks import Block, join_lines
from .patterns import ABSTRACT, APPENDIX, FRONT_LABEL, NUMBER, SENTENCE_END


def indented(block: Block) -> bool:
    """Whether a block's first line is indented in its column (a paragraph's indent)."""
    line = block.first
    return 0.6 * line.size < line.x0 - line.col_left < 5 * line.size


def set_width(block: Block) -> float:
    """How wide a block of two or more lines is set (0 for one line: it may be short)."""
    if len(block.lines) < 2:
        return 0.0
    return max(ln.x1 for ln in block.lines) - min(ln.x0 for ln in block.lines)


def abstract_heading(text: str) -> bool:
    """Whether a heading is the abstract's name alone ("Abstract", "Zusammenfassung"),
    not a section such as "Summary of results"."""
    m = ABSTRACT.match(text)
    return m is not None and m.end() >= len(text.rstrip(".: "))


def opens_abstract(block: Block, text: str) -> bool:
    """Whether a block opens with "Abstract" set apart: bold, in capitals, or a bold
    run-in word ("Abstract. We ...")."""
    line = block.first
    return bool(ABSTRACT.match(text)) and (
        line.bold > 0.5 or line.text[:8].isupper()
        or bool(ABSTRACT.match(unmark(line.bold_prefix()).strip())))


def unheaded_abstract(block: Block, text: str, body: float) -> bool:
    """An abstract with no heading, set smaller than the body before it begins (revtex,
    acmart's acmsmall): running text of several lines, no e-mail, no front label."""
    return body - 2.5 <= block.size <= body - 0.5 and len(block.lines) >= 3 and \
        len(text) > 300 and text.count(". ") >= 2 and "@" not in text and \
        not FRONT_LABEL.match(text)


def body_measure(blocks: list[Block], body: float) -> float:
    """The width the body's text is set at: its regions' commonest width, over the lines
    of the body's size (0.0 where there are none)."""
    widths = Counter(round(ln.col_right - ln.col_left) for b in blocks if b.kind == "body"
                     for ln in b.lines if abs(ln.size - body) <= 0.6)
    return float(widths.most_common(1)[0][0]) if widths else 0.0


def back_section(block: Block) -> bool:
    """Whether a heading after the references opens a section of the paper's own text:
    an appendix ("Appendix A", "A. Proofs"), online or supplementary methods."""
    lettered = bool(block.number) and block.number[:1] in "ABCDEFGH" and block.level == 1
    # (the whole line too: "Appendix A" is the number of "Appendix A Discussion")
    return bool(APPENDIX.match(block.heading_text) or APPENDIX.match(block.text())) or lettered


def body_like(block: Block, text: str, body: float) -> bool:
    """Running text of the body's size: several lines or long, with sentences, no e-mail."""
    return abs(block.size - body) <= 0.6 and (len(block.lines) >= 3 or len(text) > 250) \
        and text.count(". ") >= 1 and "@" not in text and not FRONT_LABEL.match(text)


def carries_on(before: str, text: str, block: Block) -> bool:
    line = block.first
    if line.x0 - line.col_left > 0.6 * line.size:
        return False  # indented: a new paragraph
    if before.rstrip().endswith(":") and text[:1].isupper() and line.bold_prefix().strip():
        return False  # "... two tasks:" then "**Co-Views** Our ...": an item of its own
    return text[:1].islower() or not ends_sentence(before) or \
        before.endswith(("-", "\u00ad"))


_SUPERSCRIPT = re.compile(f"{SUP_OPEN}[^{SUP_CLOSE}]*{SUP_CLOSE}\\s*$")


def ends_sentence(marked: str) -> bool:
    """Whether marked text ends a sentence, a footnote mark after its stop aside."""
    return bool(SENTENCE_END.search(unmark(_SUPERSCRIPT.sub("", marked.rstrip()))))


def run_in_head(block: Block) -> tuple[str, str] | None:
    """A bold phrase opening a paragraph, ending in a stop or colon or followed by a new
    sentence: (heading, rest)."""
    wrapped = _wrapped_run_in(block)
    if wrapped is not None:
        return wrapped
    line = block.first
    prefix = line.bold_prefix().strip()
    if not prefix or len(prefix) >= len(line.text.strip()) - 1:
        return None
    # (a head may open in lower case: a gene's name, "emm-types and emm-patterns")
    if len(prefix.split()) > 10 or not (prefix[:1].isupper() or len(prefix.split()) >= 2) \
            or prefix.split()[-1].lower() in _OPEN_ENDED:
        return None  # "sampled populations of": a bold caption title's next line
    after = line.marked[len(line.bold_prefix()):].lstrip()
    stops = prefix.endswith((".", ":", "\u2014")) or after.startswith((".", ":", "\u2014"))
    # without a stop: a word or a phrase of a few, then a new sentence ("Patients The
    # ...", Nature's "Safety Styrene was ...")
    opens = after[:1].isupper() or after[:1].isdigit()  # "New sub-types 8 new ..."
    if not stops and not (1 <= len(prefix.split()) <= 8 and opens
                          and not SENTENCE_END.search(prefix)):
        return None
    head = unmark(prefix).rstrip(".:\u2014 ")
    if ABSTRACT.fullmatch(head):
        return None  # "Abstract\u2014" opening the abstract (IEEE): no part of its own
    rest = block.marked()[len(line.bold_prefix()):].lstrip().lstrip(".:\u2014").strip()
    return head, rest


def _wrapped_run_in(block: Block) -> tuple[str, str] | None:
    """A run-in head that fills its first line in bold and ends a few bold words into
    the second ("... clinical presentation and site / **preference** emm pattern A-C
    strains are ..."): (heading, rest), or None."""
    if len(block.lines) < 2:
        return None
    first, second = block.lines[0], block.lines[1]
    if len(first.bold_prefix()) < len(first.marked):
        return None
    # (an italic head after a number set upright: the Annals' "2.3. *Experiment 1:
    # methylation and ... protoonco-*" / "*gene.* DCA was ...")
    italic = bool(first.styles) and not first.styles[0][1]
    more = second.italic_lead() if italic else second.bold_prefix()
    # (a numbered head may carry more words onto its second line)
    if not _lead(second, more, 8 if NUMBER.match(first.text) else 4):
        return None
    head = unmark(join_lines([first.marked, more.strip()], mark=True)).rstrip(".:\u2014 ")
    words = head.split()
    # (a numbered head may be longer: "3.2 Inhibition of MAP kinases prevents the
    # suppression of apoptosis by the PP nafenopin.")
    numbered = bool(re.fullmatch(r"[\d.]+", words[0]))
    if len(words) - numbered > (16 if numbered else 12) or words[-1].lower() in _OPEN_ENDED:
        return None
    rest = join_lines([second.marked[len(more):].lstrip()] +
                      [ln.marked for ln in block.lines[2:]], mark=True)
    return head, rest.lstrip(".:\u2014 ").strip()


def bold_lead(line: Line) -> bool:
    """Whether a line opens with a few bold words and goes on in another style (the end
    of a run-in head wrapped onto it)."""
    return _lead(line, line.bold_prefix())


def _lead(line: Line, prefix: str, most: int = 4) -> bool:
    """Whether ``prefix``, the start of ``line`` in a head's style, is a few words (at
    most ``most``) that the line goes on after."""
    prefix = prefix.strip()
    return 0 < len(prefix.split()) <= most and len(prefix) < len(line.text.strip()) - 1


#: Words a heading does not end on.
_OPEN_ENDED = frozenset("a an and as at between by for from in into of on or the to with "
                        "de da do das dos e em et la le les el los y und der die von".split())

_INLINE_HEAD = re.compile(r"[A-Z\u00c0-\u00dd][^\W\d_]+(?:[ /&,-]+[^\W\d_]+){0,4}[.:]")


def inline_parts(block: Block, text: str) -> list[tuple[str, str]]:
    """A paragraph of a structured abstract cut where a bold part name stands inside a
    line after a sentence ("... understood. **Methods and Findings.** We ..."):
    ``[("", before), (head, text), ...]``, or [] where there is none."""
    heads = []
    for line in block.lines:
        pos = 0
        for count, bold, *_ in line.styles:
            piece = unmark(line.marked[pos:pos + count]).strip()
            if bold and pos and _INLINE_HEAD.fullmatch(piece):
                heads.append(piece)
            pos += count
    found: list[tuple[str, str]] = [("", text)]
    for head in heads:
        before = found[-1][1]
        at = before.find(" " + head + " ")
        if at <= 0 or not ends_sentence(before[:at]):
            continue
        found[-1] = (found[-1][0], before[:at].strip())
        found.append((head.rstrip(".:"), before[at + len(head) + 1:].strip()))
    return found if len(found) > 1 else []
