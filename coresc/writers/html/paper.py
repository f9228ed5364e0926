"""One paper as a page: its sections and coloured sentences, and a summary on top (the
legend as filter buttons, the agreement with gold labels, where the paper came from, label
proportions per section)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from ...document import STDIN_ID, Paper, Section, Sentence, name_text
from ..provenance import provenance
from .page import Addon, page
from .pages import embedded_src, has_pages, pages_pane
from .styles import UNLABELLED, esc, label_styles, legend_labels, primary, style_attr
from .summary import bar_svg, label_sources, legend, sentence_count


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
    attrs.append(f'style="{style_attr(style)}"')
    attrs.append(f'title="{esc(_scores_title(s))}"')
    badges = []
    if s.pred:
        for p in s.pred[1:]:
            badges.append(f'<span class="b" data-label="{esc(p.label)}" '
                          f'style="{style_attr(styles.get(p.label, UNLABELLED))}">'
                          f"{esc(p.label)} {p.score:.2f}</span>")
        if s.gold and s.pred[0].label != s.gold[0].code:
            badges.append(f'<span class="g">&#8800; gold {esc("/".join(s.gold_codes))}</span>')
    elif s.withheld is not None:
        badges.append(f'<span class="w">no label ({esc(s.withheld.label)} '
                      f"{s.withheld.score:.2f})</span>")
    else:
        for code in s.gold_codes[1:]:
            badges.append(f'<span class="b" data-label="{esc(code)}" '
                          f'style="{style_attr(styles.get(code, UNLABELLED))}">'
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
                    f"{bar_svg(sec_counts, styles, order, f'label proportions in {name}')}"
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
                     f"primary label on {agree} of {sentence_count(len(both))} "
                     f"({100 * agree / len(both):.1f}%); {mismatches} mismatches are outlined "
                     "and marked &#8800;.</p>")

    source = name_text(Path(paper.source_path).name) if paper.source_path else ""
    title_id = f' id="sec-{paper.sections.index(title_sec)}"' if title_sec is not None else ""
    main = "\n".join(filter(None, (_section_html(i, sec, styles, title_sec is sec)
                                   for i, sec in enumerate(paper.sections))))
    body = f"""<header class="top">
<p class="meta">{esc(paper.id)}{' · ' + esc(source) if source else ''}\
{' · ' + esc(paper.source_format) if paper.source_format else ''} · {len(sentences)} sentences \
· {esc(label_sources(sentences))}</p>
<h1{title_id}>{h1}</h1>
</header>
<section class="summary ui" aria-label="summary">
<div class="ui">Labels (click to show only the chosen labels; hover a sentence for scores):</div>
{legend(labels, counts, styles, buttons=True)}
<div class="tools">{''.join(tools)}</div>
{agreement}{_reading_note(paper)}{provenance_note(paper)}
<table class="bars" id="paper-bar"><tr><td class="name">whole paper</td>\
<td class="n">{len(sentences)}</td><td class="bar">\
{bar_svg(counts, styles, order, 'label proportions in the whole paper')}</td></tr></table>
<details open><summary>label proportions per section</summary>
<table class="bars" id="section-bars"><tr><th>section</th><th>sentences</th><th>labels</th></tr>
{''.join(rows)}</table></details>
</section>
<main>
{main}
</main>"""
    if not has_pages(paper):
        return page(title_text, body, addon=addon)
    pane = pages_pane(paper, styles, _page_src(paper, addon))
    return page(title_text, body + "\n" + pane, body_class="with-pages", addon=addon)


def _page_src(paper: Paper, addon: Addon | None):
    """Where a page's image comes from: the application's server, else embedded."""
    if addon is not None and addon.pages:
        return lambda n: addon.pages.format(n=n)
    return embedded_src(paper)


#: The provenance a page shows, in order, with the words it names each by.
PROVENANCE_NAMES = {"pmcid": "PMCID", "pmid": "PMID", "doi": "DOI", "version": "version",
                    "license": "licence", "journal": "journal", "year": "year",
                    "source_format": "read from", "model": "model",
                    "model_version": "model trained"}


def provenance_note(paper: Paper) -> str:
    """Where the paper came from and what labelled it (a retracted article's in a
    warning), from :func:`~coresc.writers.provenance.provenance`."""
    prov = provenance(paper)
    parts = " · ".join(f"{name} {esc(str(prov[key]))}"
                       for key, name in PROVENANCE_NAMES.items() if key in prov)
    if prov.get("retracted") is True:
        return (f'<p class="note warn" id="provenance" role="alert">Retracted article. '
                f"{parts}</p>")
    return f'<p class="note" id="provenance">{parts}</p>'


def _reading_note(paper: Paper) -> str:
    """For a paper read from a PDF: how well it was read, and a warning when doubtful."""
    quality = paper.meta.get("pdf_quality")
    if not quality:
        return ""
    found = quality.get("doubts", [])
    figures = (f"{100 * quality['unended']:.0f}% of its sentences end without punctuation, "
               f"{quality['headings']} headings, abstract "
               f"{'found' if quality['abstract'] else 'not found'}, "
               f"{100 * quality['body_share']:.0f}% of its text layer kept")
    if found:
        return (f'<p class="note warn" id="reading" role="alert">Read from a PDF, perhaps '
                f"badly: {esc('; '.join(found))} ({esc(figures)}). Check the text below, or "
                "read the PDF with --grobid.</p>")
    return f'<p class="note" id="reading">Read from a PDF: {esc(figures)}.</p>'
