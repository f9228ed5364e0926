"""Pieces the paper page and the corpus view share: the stacked bar of label proportions,
the legend with counts, and the line saying where the colours come from."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ...document import Sentence
from ...labels import LABEL_NAMES
from .styles import UNLABELLED, esc, style_attr


def bar_svg(counts: Counter, styles: dict[str, tuple[str, str]], order: Sequence[str],
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


def legend(labels: Sequence[str], counts: Counter, styles: dict[str, tuple[str, str]],
            *, buttons: bool) -> str:
    items = []
    for lab in labels:
        n = counts.get(lab, 0)
        name = LABEL_NAMES.get(lab, "")
        text = (f'<span class="code u">{esc(lab)}</span> {esc(name)}'
                f' <span class="n">{n}</span>')
        attrs = (f'class="f" data-label="{esc(lab)}" style="{style_attr(styles[lab])}" '
                 f'title="{esc(name or lab)}: {sentence_count(n)}"')
        if buttons:
            disabled = "" if n else " disabled"
            items.append(f'<li><button type="button" {attrs} aria-pressed="false"'
                         f"{disabled}>{text}</button></li>")
        else:
            items.append(f"<li><span {attrs}>{text}</span></li>")
    if counts.get(""):
        items.append(f'<li><span class="note">unlabelled: {counts[""]}</span></li>')
    return f'<ul class="legend" id="legend">{"".join(items)}</ul>'


def sentence_count(n: int) -> str:
    return f"{n} sentence" if n == 1 else f"{n} sentences"


def label_sources(sentences: Sequence[Sentence]) -> str:
    def on(k: int) -> str:  # the header gives the total already: a count only for a part
        return "" if k == len(sentences) else f" ({sentence_count(k)})"

    n_pred = sum(1 for s in sentences if s.pred)
    n_gold = sum(1 for s in sentences if s.gold)
    n_withheld = sum(1 for s in sentences if s.withheld is not None and not s.pred)
    some = "" if n_gold == len(sentences) else f" on {sentence_count(n_gold)}"
    gold = f"; gold labels{some} are compared" if n_gold else ""
    if n_withheld:
        return (f"colours show predicted labels{on(n_pred)}; {sentence_count(n_withheld)} "
                "left without a label (score below the minimum)" + gold)
    if n_pred:
        return f"colours show predicted labels{on(n_pred)}" + gold
    if n_gold:
        return f"colours show the file's gold labels{on(n_gold)}"
    return "no sentence carries a label"
