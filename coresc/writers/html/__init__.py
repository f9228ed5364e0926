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

The package, one idea a module: ``styles`` (how labels look, escaping), ``page`` (the page
shell and its Content-Security-Policy), ``summary`` (the bar, legend and label-source line
both views share), ``paper`` (one paper's page), ``pages`` (a PDF paper's own pages with
its sentences' boxes), ``corpus`` (the corpus view) and
``files`` (writing pages to files). Colours and underline styles: see ``styles``.
"""

from __future__ import annotations

from .corpus import render_corpus
from .files import render_html, write_corpus_html, write_html, write_pages
from .page import Addon, html_page
from .paper import render_paper
from .styles import (
    CORESC_STYLES,
    FALLBACK_STYLES,
    SCHEME_ALIASES,
    UNLABELLED,
    esc,
    label_styles,
    legend_labels,
    primary,
)

__all__ = [
    "CORESC_STYLES", "FALLBACK_STYLES", "SCHEME_ALIASES", "UNLABELLED", "Addon", "esc",
    "html_page", "label_styles", "legend_labels", "primary", "render_corpus", "render_html",
    "render_paper", "write_corpus_html", "write_html", "write_pages",
]
