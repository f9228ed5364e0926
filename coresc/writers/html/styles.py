"""How labels look: a colour and an underline style per label, the label a sentence is
shown with, the labels a legend lists, and escaping text for HTML.

Colours: Paul Tol's colour-blind-safe "light" scheme (9 colours, made for labels under
black text) extended with lilac and tan; each label also has its own underline style,
and its code is printed before the sentence, so colour is never the only cue. Labels of
other schemes borrow the style of their CoreSC counterpart (CSAbstruct's ``background``
is shown as Bac, ``method`` as Met ...); unknown labels get a palette slot from a hash
of their name.
"""

from __future__ import annotations

import html
import re
import zlib
from collections.abc import Iterable, Sequence

from ...document import Paper, Sentence
from ...labels import LABELS, sort_key

#: Background colour and underline style per CoreSC label. Neighbours that colour-blind
#: readers may confuse (olive / pear / yellow / tan / orange, blue / cyan / lilac) differ
#: in underline style.
CORESC_STYLES: dict[str, tuple[str, str]] = {
    "Hyp": ("#FFAABB", "wavy"),
    "Goa": ("#EE8866", "double"),
    "Mot": ("#EEDD88", "dotted"),
    "Obj": ("#BBCC33", "dashed"),
    "Con": ("#AAAA00", "solid"),
    "Res": ("#44BB99", "none"),
    "Mod": ("#CCBBEE", "double"),
    "Obs": ("#99DDFF", "dashed"),
    "Exp": ("#E8C39E", "wavy"),
    "Met": ("#77AADD", "dotted"),
    "Bac": ("#DDDDDD", "none"),
}
#: Labels of other schemes (CSAbstruct, PubMed RCT) shown like their CoreSC counterpart,
#: so a label keeps its colour on every page.
SCHEME_ALIASES: dict[str, str] = {
    "background": "Bac", "objective": "Goa", "objectives": "Goa", "method": "Met",
    "methods": "Met", "result": "Res", "results": "Res", "conclusion": "Con",
    "conclusions": "Con", "other": "Mod",
}
#: For any other label: a palette slot chosen from the label's name (stable across pages).
FALLBACK_STYLES: tuple[tuple[str, str], ...] = tuple(CORESC_STYLES[lab] for lab in LABELS)
UNLABELLED = ("#FFFFFF", "none")

# C0 control characters are not allowed in HTML text (tab, newline, CR are).
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def esc(text: object) -> str:
    """Escape text for HTML content and quoted attributes; drop control characters."""
    return html.escape(_CONTROL.sub("", str(text)), quote=True)



def label_styles(labels: Iterable[str]) -> dict[str, tuple[str, str]]:
    """Background colour and underline style of every label in ``labels``.

    CoreSC labels have fixed styles; known labels of other schemes borrow their CoreSC
    counterpart's; any other label gets a slot picked by a hash of its name, moving to
    the next free slot when that one is taken on this page.
    """
    labels = list(dict.fromkeys(labels))
    styles: dict[str, tuple[str, str]] = {}
    for lab in labels:
        code = lab if lab in CORESC_STYLES else SCHEME_ALIASES.get(lab.lower())
        if code is not None:
            styles[lab] = CORESC_STYLES[code]
    n = len(FALLBACK_STYLES)
    for lab in sorted(lab for lab in labels if lab not in styles):
        used = set(styles.values())
        start = zlib.crc32(lab.encode("utf-8")) % n
        slot = next((FALLBACK_STYLES[(start + k) % n] for k in range(n)
                     if FALLBACK_STYLES[(start + k) % n] not in used), FALLBACK_STYLES[start])
        styles[lab] = slot
    return styles


def style_attr(style: tuple[str, str]) -> str:
    colour, line = style
    under = "none" if line == "none" else "underline"
    return f"--c:{colour};--u:{under};--us:{'solid' if line == 'none' else line}"


def primary(sentence: Sentence) -> str:
    """The label a sentence is shown with: predicted primary, else gold primary, else ''
    ('' too for a sentence a score threshold left without a label)."""
    if sentence.pred:
        return sentence.pred[0].label
    if sentence.withheld is not None:
        return ""
    if sentence.gold:
        return sentence.gold[0].code
    return ""


def legend_labels(papers: Sequence[Paper]) -> list[str]:
    """Labels to list in a legend: all 11 CoreSC labels when the papers use CoreSC (or
    carry no labels), plus any other label that occurs, in priority order."""
    seen = {code for p in papers for s in p.sentences()
            for code in (*s.gold_codes, *s.pred_codes)}
    labels = set(seen)
    if not seen or seen & set(LABELS):
        labels |= set(LABELS)
    return sorted(labels, key=sort_key)
