"""Sentence splitting for scientific prose, with character offsets.

A rule-based splitter, chosen by measurement over pysbd and syntok (see
``docs/benchmarks.md``, "Sentence splitting"): on the gold paragraphs of the ART and CRA
corpora both libraries lose most of their errors on the same few things scientific text
does all the time, which a handful of rules get right:

* superscript citations glued after the full stop (``"... effect.6,7 In the same"``)
  and bracketed ones on either side of it (``"growth [3,4]. Next"``,
  ``"growth.[3] Next"``): the boundary goes after the citation;
* abbreviations that never end a sentence here (``Fig.``, ``et al.``, ``e.g.``, ``ca.``,
  ``Eq.``, ``Ref.`` ...), also with a citation glued on (``"Smith et al.14 showed"``);
* initials and species (``E. coli``, ``J. M. Smith``) and dotted abbreviations
  (``i.e.``, ``a.u.``);
* decimals (``0.1 M``) are never candidates, units (``10 min.``, ``42 °C.``) are not
  abbreviations;
* sentences may start with a digit (``13C NMR spectra ...``), an opening bracket or
  quote, or a lower-case symbol that is clearly a name (``p53``, ``mRNA``).

:func:`split_offsets` returns ``(start, end)`` character spans into the given text
(leading and trailing whitespace excluded), so callers can map sentences back onto
markup; :func:`split` returns the sentence strings.
"""

from __future__ import annotations

import re

#: Lower-cased abbreviations (without their final period) that do not end a sentence.
ABBREVIATIONS = frozenset("""
fig figs eq eqs eqn eqns ref refs vol vols pp ca approx cf vs viz al e.g i.e
resp sp spp subsp var cv ssp dr mr mrs prof jr sr inc ltd dept univ
tab suppl ed eds chap sect et incl esp ibid ff st circa
chem phys biol soc lett natl acad sci
""".split())

# A terminator, then closing quotes/brackets, then an optional citation (bracketed, or
# bare numbers as left by flattened superscripts), then more closers, then whitespace.
# The lookbehind makes a run of terminators a candidate only from its first character:
# without it, every position inside a run of 20,000 dots starts a match that scans to the
# run's end, which is quadratic (50 s for 20,000 dots).
_CANDIDATE = re.compile(
    r"(?P<term>(?<![.!?])[.!?]+|\u2026)"
    r"(?P<close>[\"'\u201d\u2019)\]]*)"
    r"(?P<cite>\[[\d\s,;\u2013\u2014-]+\]|\(\d+(?:[,\u2013-]\s?\d+)*\)|"
    r"\d+(?:[,\u2013-]\d+)*(?![\d.]))?"
    r"(?P<close2>[)\]]*)"
    r"(?P<space>\s+)"
)
_NEXT_TOKEN = re.compile(r"\S+")
_DOTTED = re.compile(r"^(?:[A-Za-z]\.)+[A-Za-z]$")
_OPENERS = "([\"'\u201c\u2018"
# Lower-case sentence starts that are names, not continuations: p53, mRNA, cDNA, pH;
# and enumerations "(ii) However, ...".
_NAME_LIKE = re.compile(r"^[a-z]+[A-Z0-9]")
_ENUMERATION = re.compile(r"^\((?:[ivx]+|[a-h])\)")


def _is_abbreviation(core: str, before: str) -> bool:
    """Whether ``core``, the token before a full stop, is an abbreviation or an initial.

    ``before`` is the text preceding the token (to tell "25 °C." from "J. C. Smith").
    """
    if not core:
        return False
    if len(core) == 1 and core.isalpha() and core.isupper():
        # Initials and genera ("E. coli", "J. Smith"), but not units after a number or
        # symbols after "=" ("at 60° C.", "to 725 K.", "is ΔAr = S.").
        last = before.rstrip()[-1:]
        return not (last.isdigit() or last in "\u00b0=")
    if _DOTTED.match(core):
        return True  # "i.e", "e.g", "a.u"
    if core in ("No", "Nos", "Co"):
        return True  # "No. 5", "Co. Ltd"; "no.", "NO." and "CO." end sentences
    if core.endswith("vs"):
        return True  # "MnIIvs." where the space was lost
    low = core.lower()
    if low in ABBREVIATIONS:
        return True
    # "et al14." / "al.,": a citation glued to the abbreviation.
    stripped = low.rstrip("0123456789,\u2013-")
    return stripped != low and stripped in ABBREVIATIONS


def _starts_sentence(nxt: str) -> bool:
    """Whether the token after a candidate boundary can begin a sentence."""
    if _ENUMERATION.match(nxt):
        return True
    first = nxt.lstrip(_OPENERS)
    if not first:
        return False
    c = first[0]
    if c.isupper() or c.isdigit():
        return True
    if c.isalpha() and not c.isascii():
        # Greek and other letters: "β-Carotene", "α-Helices"; lower-case ASCII stays out.
        return True
    return bool(_NAME_LIKE.match(first))


def _is_boundary(text: str, m: re.Match[str], stop: int) -> bool:
    term = m.group("term")
    nxt_m = _NEXT_TOKEN.match(text, m.end(), stop)
    if nxt_m is None:
        return False
    nxt = nxt_m.group()
    if not _starts_sentence(nxt):
        return False
    start = m.start()
    if m.group("cite") and m.group("cite")[0].isdigit() and start and text[start - 1].isdigit():
        return False  # "0.5 M", "7.4 The": a decimal, not a citation
    if term != ".":
        # "p1 ! p2": a symbol set apart before a name (an arrow a PDF's font gives as
        # "!"), not an exclamation
        return not (start and text[start - 1].isspace() and
                    nxt.lstrip(_OPENERS)[:1].islower())
    i = start  # the token before the terminator (a backwards scan: regex search is O(n))
    while i > 0 and not text[i - 1].isspace():
        i -= 1
    if i == start:
        return True
    core = text[i:start].lstrip(_OPENERS)
    if core in ("no", "nos") and nxt.lstrip(_OPENERS)[:1].isdigit():
        return False  # "CAS no. 100-42-5", "cannula (no. 200/300/050)"
    if _is_abbreviation(core, text[max(0, i - 8):i]):
        # An abbreviation can still end a sentence when a citation follows it.
        return bool(m.group("cite")) and not core.lower().startswith(("fig", "eq", "ref"))
    return True


# Chinese and Japanese full stops, exclamation and question marks end a sentence with
# no space after them; closing quotes and brackets stay with it.
_CJK_END = re.compile("[\u3002\uff01\uff1f\uff0e]+[\u300d\u300f\uff09\u3011\u201d)]*")


def split_offsets(text: str) -> list[tuple[int, int]]:
    """Sentence spans ``(start, end)`` in ``text``, in order, whitespace trimmed.

    Every non-whitespace character belongs to exactly one span; an empty or blank text
    gives ``[]``. Text is first cut after ``。！？`` (Chinese and Japanese);
    time is linear in the length of the text.
    """
    if text.isascii() or not _CJK_END.search(text):
        return _split_western(text, 0, len(text))
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _CJK_END.finditer(text):
        spans += _split_western(text, start, m.end())
        start = m.end()
    return spans + _split_western(text, start, len(text))


def _split_western(text: str, begin: int, stop: int) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    start = begin
    for m in _CANDIDATE.finditer(text, begin, stop):
        if _is_boundary(text, m, stop):
            end = m.start("space")
            if text[start:end].strip():
                spans.append((start, end))
            start = m.end()
    if text[start:stop].strip():
        spans.append((start, stop))
    return [_trim(text, s, e) for s, e in spans]


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def split(text: str) -> list[str]:
    """The sentences of ``text`` as strings (see :func:`split_offsets`)."""
    return [text[s:e] for s, e in split_offsets(text)]
