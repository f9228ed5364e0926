"""HTML view of annotated papers: one self-contained page per paper, and a corpus summary.

A paper page shows the title, every section under its heading (``<h2>``..``<h6>`` by
depth) and every sentence coloured by its primary label: the predicted one when the
sentence has predictions, else the gold one. Secondary labels follow the sentence as
small badges, scores are in the sentence's ``title`` (shown on hover), and sentences
whose predicted primary label differs from the gold one are outlined and carry a
``≠ gold`` badge. A sentence that a score threshold (``annotate --min-score``) left
without a label is shown uncoloured, with a dashed ``no label`` badge naming the label it
would have had (``data-withheld``). A summary at the top gives label counts (the legend,
whose buttons filter the sentences) and a stacked bar of label proportions per section
(inline SVG).

The corpus view gives the label distribution of the whole corpus and of each paper
and, when sentences carry both predictions and gold labels, the confusion matrix as a
heat map (from :func:`coresc.metrics.classification_scores`).

Pages are self-contained: CSS and JavaScript are inlined (from ``coresc/static/``), no
font, script or image is fetched, and a Content-Security-Policy allows only the page's
own script (by hash), so even text that escaped escaping could not run. All paper text
is HTML-escaped.

Every sentence is one element ``<span class="s" data-sid=.. data-label=..>`` with
``data-pred`` / ``data-gold`` (primary codes, when present) and ``data-match`` ("1" or
"0", when both are present), so a page can be checked by counting elements.

Colours: Paul Tol's colour-blind-safe "light" scheme (9 colours, made for labels under
black text) extended with lilac and tan; each label also has its own underline style,
and its code is printed before the sentence, so colour is never the only cue. Labels of
other schemes borrow the style of their CoreSC counterpart (CSAbstruct's ``background``
is shown as Bac, ``method`` as Met ...); unknown labels get a palette slot from a hash
of their name.
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
import sys
import zlib
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

from ..document import STDIN_ID, Paper, Section, Sentence
from ..errors import UsageError
from ..labels import LABEL_NAMES, LABELS, sort_key
from . import atomic_output, refuse_overwriting_inputs

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


@cache
def _static(name: str) -> str:
    return resources.files("coresc").joinpath("static", name).read_text(encoding="utf-8")


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


def _style_attr(style: tuple[str, str]) -> str:
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


# --------------------------------------------------------------------------- page parts


@dataclass(frozen=True)
class Addon:
    """What an application adds to a paper's page (``coresc review``): CSS, HTML at the
    top of the body (and data blocks), a script run after the view's own, and whether
    the page may talk to the server it came from (``connect-src 'self'``)."""

    css: str = ""
    html: str = ""
    script: str = ""
    connect: bool = False


def _sha256(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def _page(title: str, body: str, *, body_class: str = "", script: bool = True,
          addon: Addon | None = None) -> str:
    addon = addon or Addon()
    css = _static("view.css") + addon.css
    scripts = [js for js in (_static("view.js") if script else "", addon.script) if js]
    hashes = " ".join(f"'sha256-{_sha256(js)}'" for js in scripts) or f"'sha256-{_sha256('')}'"
    csp = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
           f"script-src {hashes}" + ("; connect-src 'self'" if addon.connect else ""))
    cls = f' class="{body_class}"' if body_class else ""
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="generator" content="coresc">\n'
        '<link rel="icon" href="data:,">\n'
        f"<title>{esc(title)}</title>\n<style>\n{css}</style>\n</head>\n"
        f"<body{cls}>\n{addon.html}{body}\n"
        + "".join(f"<script>{js}</script>\n" for js in scripts)
        + "</body>\n</html>\n"
    )


def html_page(title: str, body: str, addon: Addon | None = None) -> str:
    """A page in the view's style around ``body`` (HTML), without the view's script."""
    return _page(title, body, script=False, addon=addon)


def _bar_svg(counts: Counter, styles: dict[str, tuple[str, str]], order: Sequence[str],
             caption: str, width: int = 600, height: int = 18) -> str:
    """A horizontal stacked bar of label proportions; codes printed in wide segments."""
    total = sum(counts.values())
    parts = [f'<svg class="bar" viewBox="0 0 {width} {height}" role="img" '
             f'aria-label="{esc(caption)}" xmlns="http://www.w3.org/2000/svg">']
    x = 0.0
    for lab in order:
        n = counts.get(lab, 0)
        if not n:
            continue
        w = width * n / total
        colour = styles.get(lab, UNLABELLED)[0]
        name = lab or "unlabelled"
        parts.append(f'<rect x="{x:.2f}" y="0" width="{w:.2f}" height="{height}" '
                     f'fill="{colour}" stroke="#ffffff" stroke-width="0.6" data-label="{esc(lab)}">'
                     f"<title>{esc(name)}: {n} ({100 * n / total:.1f}%)</title></rect>")
        if w >= 8 * len(name) + 6:
            parts.append(f'<text x="{x + w / 2:.2f}" y="{height / 2 + 3.5:.1f}" '
                         f'text-anchor="middle" fill="#1b1b1b">{esc(name)}</text>')
        x += w
    parts.append("</svg>")
    return "".join(parts)


def _legend(labels: Sequence[str], counts: Counter, styles: dict[str, tuple[str, str]],
            *, buttons: bool) -> str:
    items = []
    for lab in labels:
        n = counts.get(lab, 0)
        name = LABEL_NAMES.get(lab, "")
        text = (f'<span class="code u">{esc(lab)}</span> {esc(name)}'
                f' <span class="n">{n}</span>')
        attrs = (f'class="f" data-label="{esc(lab)}" style="{_style_attr(styles[lab])}" '
                 f'title="{esc(name or lab)}: {_sentences(n)}"')
        if buttons:
            disabled = "" if n else " disabled"
            items.append(f'<li><button type="button" {attrs} aria-pressed="false"'
                         f"{disabled}>{text}</button></li>")
        else:
            items.append(f"<li><span {attrs}>{text}</span></li>")
    if counts.get(""):
        items.append(f'<li><span class="note">unlabelled: {counts[""]}</span></li>')
    return f'<ul class="legend" id="legend">{"".join(items)}</ul>'


def _scores_title(s: Sentence) -> str:
    parts = []
    if s.pred:
        parts.append("predicted: " + ", ".join(f"{p.label} {p.score:.3f}" for p in s.pred))
    elif s.withheld is not None:
        parts.append(f"no label: the best, {s.withheld.label} {s.withheld.score:.3f}, "
                     "is below the minimum score")
    if s.gold:
        parts.append("gold: " + ", ".join(s.gold_codes))
    parts.append(f"sentence {s.sid}")
    return " | ".join(parts)


def _sentence_html(s: Sentence, styles: dict[str, tuple[str, str]]) -> str:
    label = primary(s)
    style = styles.get(label, UNLABELLED)
    attrs = [f'class="s{" x" if s.pred and s.gold and s.pred[0].label != s.gold[0].code else ""}"',
             f'data-sid="{esc(s.sid)}"', f'data-label="{esc(label)}"']
    if s.pred:
        attrs.append(f'data-pred="{esc(s.pred[0].label)}"')
    if s.gold:
        attrs.append(f'data-gold="{esc(s.gold[0].code)}"')
    if s.pred and s.gold:
        attrs.append(f'data-match="{int(s.pred[0].label == s.gold[0].code)}"')
    if s.withheld is not None and not s.pred:
        attrs.append(f'data-withheld="{esc(s.withheld.label)}"')
    attrs.append(f'style="{_style_attr(style)}"')
    attrs.append(f'title="{esc(_scores_title(s))}"')
    badges = []
    if s.pred:
        for p in s.pred[1:]:
            badges.append(f'<span class="b" data-label="{esc(p.label)}" '
                          f'style="{_style_attr(styles.get(p.label, UNLABELLED))}">'
                          f"{esc(p.label)} {p.score:.2f}</span>")
        if s.gold and s.pred[0].label != s.gold[0].code:
            badges.append(f'<span class="g">&#8800; gold {esc("/".join(s.gold_codes))}</span>')
    elif s.withheld is not None:
        badges.append(f'<span class="w">no label ({esc(s.withheld.label)} '
                      f"{s.withheld.score:.2f})</span>")
    else:
        for code in s.gold_codes[1:]:
            badges.append(f'<span class="b" data-label="{esc(code)}" '
                          f'style="{_style_attr(styles.get(code, UNLABELLED))}">'
                          f"{esc(code)}</span>")
    return (f'<span {" ".join(attrs)}><span class="c">{esc(label or "–")}</span>'
            f'{esc(s.text)}{"".join(badges)}</span>')


def _heading_text(sec: Section, index: int) -> str:
    """The heading, or the name an untitled section goes by in its heading and the summary."""
    kind = "" if sec.type == "other" else f"{sec.type}, "
    return sec.heading.strip() or f"Section {index + 1} ({kind}without heading)"


def _section_html(i: int, sec: Section, styles: dict[str, tuple[str, str]],
                  title_done: bool) -> str:
    if title_done:  # its sentences are the page's <h1> already
        return ""
    out = [f'<section id="sec-{i}" data-type="{esc(sec.type)}" data-depth="{sec.depth}">']
    level = 2 if sec.depth <= 1 else min(sec.depth + 1, 6)
    untitled = "" if sec.heading.strip() else ' class="untitled"'
    out.append(f"<h{level}{untitled}>{esc(_heading_text(sec, i))}</h{level}>")
    for para in sec.paragraphs:
        if not para.sentences:
            continue
        caption = all(s.zone == "caption" for s in para.sentences)
        cls = ' class="caption"' if caption else ""
        out.append(f"<p{cls}>" + " ".join(_sentence_html(s, styles)
                                          for s in para.sentences) + "</p>")
    out.append("</section>")
    return "\n".join(out)


def _sentences(n: int) -> str:
    return f"{n} sentence" if n == 1 else f"{n} sentences"


def _label_sources(sentences: Sequence[Sentence]) -> str:
    def on(k: int) -> str:  # the header gives the total already: a count only for a part
        return "" if k == len(sentences) else f" ({_sentences(k)})"

    n_pred = sum(1 for s in sentences if s.pred)
    n_gold = sum(1 for s in sentences if s.gold)
    n_withheld = sum(1 for s in sentences if s.withheld is not None and not s.pred)
    some = "" if n_gold == len(sentences) else f" on {_sentences(n_gold)}"
    gold = f"; gold labels{some} are compared" if n_gold else ""
    if n_withheld:
        return (f"colours show predicted labels{on(n_pred)}; {_sentences(n_withheld)} "
                "left without a label (score below the minimum)" + gold)
    if n_pred:
        return f"colours show predicted labels{on(n_pred)}" + gold
    if n_gold:
        return f"colours show the file's gold labels{on(n_gold)}"
    return "no sentence carries a label"


def _untitled(paper: Paper) -> str:
    """A paper without a title goes by its id, except text from standard input ("stdin")."""
    return "Untitled text" if paper.id == STDIN_ID and paper.source_path is None else paper.id


def render_paper(paper: Paper, addon: Addon | None = None) -> str:
    """One paper as a self-contained HTML page (a string); ``addon``: what an application
    (``coresc review``) adds to it."""
    sentences = paper.sentences()
    labels = legend_labels([paper])
    styles = label_styles(labels)
    counts = Counter(primary(s) for s in sentences)
    order = [*labels, ""]

    title_sec = next((sec for sec in paper.sections if sec.type == "title"
                      and any(True for _ in sec.sentences())), None)
    if title_sec is not None:
        h1 = " ".join(_sentence_html(s, styles) for s in title_sec.sentences())
    else:
        h1 = esc(paper.title or _untitled(paper))
    title_text = paper.title or (" ".join(s.text for s in title_sec.sentences())
                                 if title_sec else _untitled(paper))

    both = [s for s in sentences if s.pred and s.gold]
    agree = sum(1 for s in both if s.pred[0].label == s.gold[0].code)
    mismatches = len(both) - agree

    rows = []
    for i, sec in enumerate(paper.sections):
        sec_counts = Counter(primary(s) for s in sec.sentences())
        n = sum(sec_counts.values())
        pad = 0.9 * max(sec.depth - 1, 0)
        name = _heading_text(sec, i)
        if not n:  # a heading over subsections: keep it so the nesting reads right
            if any(other.parent == i for other in paper.sections):
                rows.append(f'<tr><td class="name" style="padding-left:{pad + .4:.1f}rem">'
                            f'<a href="#sec-{i}">{esc(name)}</a></td><td class="n">0</td>'
                            "<td></td></tr>")
            continue
        rows.append(f'<tr><td class="name" style="padding-left:{pad + .4:.1f}rem" '
                    f'title="{esc(name)}"><a href="#sec-{i}">{esc(name)}</a></td>'
                    f'<td class="n">{n}</td><td class="bar">'
                    f"{_bar_svg(sec_counts, styles, order, f'label proportions in {name}')}"
                    "</td></tr>")

    tools = ['<button type="button" id="show-all">show all</button>',
             '<button type="button" id="toggle-codes" aria-pressed="true">label codes</button>']
    if mismatches:
        tools.append('<button type="button" id="only-mismatches" aria-pressed="false">'
                     f"only predicted &#8800; gold ({mismatches})</button>")
    tools.append('<span class="status" id="filter-status" aria-live="polite"></span>')

    agreement = ""
    if both:
        agreement = (f'<p class="note" id="agreement">predicted primary label equals the gold '
                     f"primary label on {agree} of {_sentences(len(both))} "
                     f"({100 * agree / len(both):.1f}%); {mismatches} mismatches are outlined "
                     "and marked &#8800;.</p>")

    source = Path(paper.source_path).name if paper.source_path else ""
    title_id = f' id="sec-{paper.sections.index(title_sec)}"' if title_sec is not None else ""
    main = "\n".join(filter(None, (_section_html(i, sec, styles, title_sec is sec)
                                   for i, sec in enumerate(paper.sections))))
    body = f"""<header class="top">
<p class="meta">{esc(paper.id)}{' · ' + esc(source) if source else ''}\
{' · ' + esc(paper.source_format) if paper.source_format else ''} · {len(sentences)} sentences \
· {esc(_label_sources(sentences))}</p>
<h1{title_id}>{h1}</h1>
</header>
<section class="summary ui" aria-label="summary">
<div class="ui">Labels (click to show only the chosen labels; hover a sentence for scores):</div>
{_legend(labels, counts, styles, buttons=True)}
<div class="tools">{''.join(tools)}</div>
{agreement}
<table class="bars" id="paper-bar"><tr><td class="name">whole paper</td>\
<td class="n">{len(sentences)}</td><td class="bar">\
{_bar_svg(counts, styles, order, 'label proportions in the whole paper')}</td></tr></table>
<details open><summary>label proportions per section</summary>
<table class="bars" id="section-bars"><tr><th>section</th><th>sentences</th><th>labels</th></tr>
{''.join(rows)}</table></details>
</section>
<main>
{main}
</main>"""
    return _page(title_text, body, addon=addon)


# --------------------------------------------------------------------------- corpus view


def _heat_svg(labels: Sequence[str], matrix: Sequence[Sequence[int]]) -> str:
    """Confusion matrix heat map: rows gold, columns predicted, shade = share of the row."""
    cell, left, top = 40, 48, 44
    n = len(labels)
    width, height = left + cell * n + 4, top + cell * n + 4
    parts = [f'<svg class="heat" id="confusion" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" role="img" xmlns="http://www.w3.org/2000/svg" '
             'aria-label="confusion matrix: rows gold, columns predicted">']
    parts.append(f'<text x="{left + cell * n / 2}" y="11" text-anchor="middle">predicted</text>')
    parts.append(f'<text x="10" y="{top + cell * n / 2}" text-anchor="middle" '
                 f'transform="rotate(-90 10 {top + cell * n / 2})">gold</text>')
    for j, lab in enumerate(labels):
        parts.append(f'<text x="{left + cell * j + cell / 2}" y="{top - 8}" '
                     f'text-anchor="middle">{esc(lab)}</text>')
    for i, (lab, row) in enumerate(zip(labels, matrix, strict=True)):
        y = top + cell * i
        parts.append(f'<text x="{left - 5}" y="{y + cell / 2 + 3.5}" '
                     f'text-anchor="end">{esc(lab)}</text>')
        total = sum(row)
        for j, count in enumerate(row):
            share = count / total if total else 0.0
            fill = _blue(share)
            ink = "#ffffff" if share > 0.5 else "#1b1b1b"
            x = left + cell * j
            tip = (f"gold {lab}, predicted {labels[j]}: {count}"
                   f" ({100 * share:.1f}% of gold {lab})")
            parts.append(f'<g data-gold="{esc(lab)}" data-pred="{esc(labels[j])}">'
                         f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" fill="{fill}" '
                         f'stroke="{"#1b1b1b" if i == j else "#ffffff"}" stroke-width="1">'
                         f"<title>{esc(tip)}</title></rect>")
            if count:
                parts.append(f'<text x="{x + cell / 2}" y="{y + cell / 2 + 3.5}" '
                             f'text-anchor="middle" fill="{ink}">{count}</text>')
            parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)


def _blue(share: float) -> str:
    """White to dark blue (sequential, readable in greyscale and for colour-blind readers)."""
    lo, hi = (0xF7, 0xFB, 0xFF), (0x08, 0x30, 0x6B)
    rgb = (round(a + (b - a) * share) for a, b in zip(lo, hi, strict=True))
    return "#" + "".join(f"{c:02X}" for c in rgb)


def _confusion_html(papers: Sequence[Paper]) -> str:
    pairs = [(s.gold[0].code, s.pred[0].label) for p in papers for s in p.sentences()
             if s.gold and s.pred]
    if not pairs:
        return ""
    from ..metrics import classification_scores

    gold, pred = zip(*pairs, strict=True)
    scores = classification_scores(gold, pred)
    labels = scores["confusion"]["labels"]
    rows = "".join(
        f"<tr><td>{esc(lab)}</td><td>{v['precision']:.3f}</td><td>{v['recall']:.3f}</td>"
        f"<td>{v['f1']:.3f}</td><td>{v['support']}</td></tr>"
        for lab, v in scores["per_label"].items())
    return f"""<h2>Predicted vs gold</h2>
<p class="note" id="scores">{_sentences(scores['n'])} with both a predicted and a gold primary \
label: accuracy {scores['accuracy']:.3f}, macro F1 {scores['macro_f1']:.3f} \
(primary labels; scored with coresc.metrics).</p>
{_heat_svg(labels, scores['confusion']['matrix'])}
<p class="note">rows: gold primary label; columns: predicted primary label; shade: share of \
the gold row; outlined diagonal: agreement.</p>
<table class="scores"><tr><th>label</th><th>precision</th><th>recall</th><th>F1</th>\
<th>gold support</th></tr>{rows}</table>"""


def render_corpus(papers: Sequence[Paper], *, links: dict[str, str] | None = None,
                  title: str = "coresc corpus summary") -> str:
    """The corpus view (a string): label distributions and, if possible, a confusion map.

    ``links`` maps paper ids to the URLs of their pages (relative), to link each row.
    """
    links = links or {}
    labels = legend_labels(papers)
    order = [*labels, ""]
    styles = label_styles(labels)
    sentences = [s for p in papers for s in p.sentences()]
    shown = Counter(primary(s) for s in sentences)
    gold = Counter(s.gold[0].code for s in sentences if s.gold)
    pred = Counter(s.pred[0].label for s in sentences if s.pred)

    corpus_rows = [(name, c) for name, c in (("gold", gold), ("predicted", pred)) if c]
    if not corpus_rows:
        corpus_rows = [("unlabelled", shown)]
    corpus_table = "".join(
        f'<tr><td class="name">{esc(name)}</td><td class="n">{sum(c.values())}</td>'
        f'<td class="bar">{_bar_svg(c, styles, order, f"{name} label proportions")}</td></tr>'
        for name, c in corpus_rows)
    count_head = ("<tr><th>label</th><th>name</th>"
                  + "".join(f"<th>{name}</th>" for name, _ in corpus_rows) + "</tr>")
    count_rows = "".join(
        f'<tr><td>{esc(lab)}</td><td>{esc(LABEL_NAMES.get(lab, ""))}</td>'
        + "".join(f"<td>{c.get(lab, 0)}</td>" for _, c in corpus_rows) + "</tr>"
        for lab in labels)

    paper_rows = []
    for p in papers:
        c = Counter(primary(s) for s in p.sentences())
        name = f"{p.id}: {p.title}" if p.title else p.id
        cell = (f'<a href="{esc(links[p.id])}">{esc(name)}</a>' if p.id in links
                else esc(name))
        paper_rows.append(
            f'<tr data-paper="{esc(p.id)}"><td class="name" title="{esc(name)}">{cell}</td>'
            f'<td class="n">{len(p)}</td><td class="bar">'
            f"{_bar_svg(c, styles, order, f'label proportions in {p.id}')}</td></tr>")

    body = f"""<header class="top">
<p class="meta">{len(papers)} papers · {len(sentences)} sentences · \
{esc(_label_sources(sentences))}</p>
<h1>{esc(title)}</h1>
</header>
<main>
{_legend(labels, shown, styles, buttons=False)}
<h2>Label distribution in the corpus</h2>
<table class="bars" id="corpus-bars"><tr><th>labels</th><th>sentences</th><th>proportions</th></tr>
{corpus_table}</table>
<table class="scores" id="label-counts">{count_head}{count_rows}</table>
<h2>Label distribution per paper</h2>
<p class="note">primary label of each sentence: predicted where present, else gold.</p>
<table class="bars" id="paper-bars"><tr><th>paper</th><th>sentences</th><th>labels</th></tr>
{''.join(paper_rows)}</table>
{_confusion_html(papers)}
</main>"""
    return _page(title, body, script=False)


# --------------------------------------------------------------------------- writing


def _page_names(papers: Sequence[Paper]) -> list[str]:
    """File names for per-paper pages: the paper id made safe, de-duplicated."""
    names, used = [], set()
    for p in papers:
        base = re.sub(r"[^A-Za-z0-9._-]+", "_", p.id).strip("._") or "paper"
        name, k = f"{base}.html", 2
        while name.lower() in used or name.lower() == "index.html":
            name, k = f"{base}-{k}.html", k + 1
        used.add(name.lower())
        names.append(name)
    return names


def render_html(paper: Paper) -> bytes:
    """One paper's page as UTF-8 bytes (the ``html`` entry of :data:`coresc.writers.WRITERS`)."""
    return render_paper(paper).encode("utf-8")


def write_html(papers: Sequence[Paper], out: str | Path, *,
               inputs: Iterable[str | Path] = ()) -> list[Path]:
    """Write papers as HTML; return the files written.

    One paper: the page goes to ``out`` (``-`` writes it to stdout). Several papers:
    ``out`` is a directory that receives one page per paper (``<paper id>.html``) and
    ``index.html``, the corpus view linking to them. Files are written atomically and
    never over an input file.
    """
    papers = list(papers)
    inputs = list(inputs)
    if not papers:
        raise UsageError("no papers to write as HTML")
    if len(papers) == 1 and not Path(out).is_dir():
        if str(out) == "-":
            sys.stdout.write(render_paper(papers[0]))
            return []
        refuse_overwriting_inputs(out, inputs)
        with atomic_output(out) as fh:
            fh.write(render_paper(papers[0]))
        return [Path(out)]
    if str(out) == "-" or Path(out).suffix.lower() in (".html", ".htm"):
        raise UsageError(f"{out}: {len(papers)} papers need a directory for their HTML pages "
                         "(or use `coresc view` for a one-file corpus summary)")
    return write_pages(papers, out, inputs=inputs)


def write_pages(papers: Sequence[Paper], directory: str | Path, *,
                inputs: Iterable[str | Path] = (), index: bool = True) -> list[Path]:
    """Write one page per paper (``<paper id>.html``) into ``directory``, and with
    ``index`` the corpus view linking them as ``index.html``; return the files written
    (pages in the order of ``papers``, then the index)."""
    papers, inputs = list(papers), list(inputs)
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"{directory}: exists and is not a directory")
    names = _page_names(papers)
    targets = [directory / n for n in names] + ([directory / "index.html"] if index else [])
    for target in targets:
        refuse_overwriting_inputs(target, inputs)
    for paper, target in zip(papers, targets, strict=False):
        with atomic_output(target) as fh:
            fh.write(render_paper(paper))
    if index:
        links = {p.id: n for p, n in zip(papers, names, strict=True)}
        with atomic_output(targets[-1]) as fh:
            fh.write(render_corpus(papers, links=links))
    return targets


def write_corpus_html(papers: Sequence[Paper], out: str | Path, *,
                      inputs: Iterable[str | Path] = (),
                      links: dict[str, str] | None = None) -> Path:
    """Write the corpus view of ``papers`` to one file ``out``."""
    papers = list(papers)
    if not papers:
        raise UsageError("no papers for the corpus view")
    refuse_overwriting_inputs(out, inputs)
    with atomic_output(out) as fh:
        fh.write(render_corpus(papers, links=links))
    return Path(out)
