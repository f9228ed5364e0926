"""The corpus view: label distributions of the corpus and of each paper and, where
sentences carry both predictions and gold labels, the confusion matrix as a heat map."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ...document import Paper
from ...labels import LABEL_NAMES
from .page import page
from .styles import esc, label_styles, legend_labels, primary
from .summary import bar_svg, label_sources, legend, sentence_count


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
    from ...metrics import classification_scores

    gold, pred = zip(*pairs, strict=True)
    scores = classification_scores(gold, pred)
    labels = scores["confusion"]["labels"]
    rows = "".join(
        f"<tr><td>{esc(lab)}</td><td>{v['precision']:.3f}</td><td>{v['recall']:.3f}</td>"
        f"<td>{v['f1']:.3f}</td><td>{v['support']}</td></tr>"
        for lab, v in scores["per_label"].items())
    return f"""<h2>Predicted vs gold</h2>
<p class="note" id="scores">{sentence_count(scores['n'])} with both a predicted and a gold primary \
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
        f'<td class="bar">{bar_svg(c, styles, order, f"{name} label proportions")}</td></tr>'
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
            f"{bar_svg(c, styles, order, f'label proportions in {p.id}')}</td></tr>")

    body = f"""<header class="top">
<p class="meta">{len(papers)} papers · {len(sentences)} sentences · \
{esc(label_sources(sentences))}</p>
<h1>{esc(title)}</h1>
</header>
<main>
{legend(labels, shown, styles, buttons=False)}
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
    return page(title, body, script=False)
