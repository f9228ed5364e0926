"""The pages: a paper to review (the HTML view's page with the review's script, styles
and key map added) and the list of papers with their progress.

The paper page is rendered on the server with every sentence's current labels (the
person's where decided, else the model's), so it paints before any script runs; its
data (suggestions, decisions, which sentences are uncertain) travel in a JSON block
that :file:`static/review.js` reads.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from importlib import resources

from ..document import PDF_PAGES, Paper, Paragraph, Prediction, Section, Sentence
from ..labels import LABEL_NAMES
from ..writers.html import Addon, esc, html_page, label_styles, render_paper
from .decisions import ADVANTAGE, NOVELTY, PaperReview
from .store import ReviewStore

#: The key of each label: one letter, mostly its initial or a letter of its name.
LABEL_KEYS: dict[str, str] = {
    "Hyp": "h", "Goa": "g", "Mot": "t", "Obj": "o", "Con": "c", "Res": "r",
    "Mod": "d", "Obs": "v", "Exp": "x", "Met": "m", "Bac": "b",
}
#: The key that says a sentence has no CoreSC label (acknowledgements, funding).
NO_LABEL_KEY = "-"

#: Letters review.js gives to actions (``u``: Shift+u is ``U``, adapt), never a label's.
ACTION_LETTERS = frozenset("aeijknuz")


def label_keys(labels: Sequence[str]) -> dict[str, str]:
    """The key of each of ``labels``: CoreSC's fixed ones; a label of another scheme
    gets the first free letter of its name, else of the alphabet (a label left without
    one, past the 18 free letters, is set with its button)."""
    keys: dict[str, str] = {}
    for lab in labels:
        if lab in LABEL_KEYS:
            keys[lab] = LABEL_KEYS[lab]
    taken = set(keys.values()) | ACTION_LETTERS
    for lab in labels:
        if lab in keys:
            continue
        free = [c for c in lab.lower() + "abcdefghijklmnopqrstuvwxyz"
                if "a" <= c <= "z" and c not in taken]
        if free:
            keys[lab] = free[0]
            taken.add(free[0])
    return keys


def label_names(labels: Sequence[str]) -> dict[str, str]:
    """What each label stands for (a label of another scheme names itself)."""
    return {lab: LABEL_NAMES.get(lab, lab) for lab in labels}
#: The other keys, as the key map shows them (review.js implements them).
ACTION_KEYS: tuple[tuple[str, str], ...] = (
    ("Enter / Space", "accept the primary label (and any secondary you took), go on"),
    ("letter", "set the primary label (then Enter to go on)"),
    (NO_LABEL_KEY, "no label: the sentence has no CoreSC label (acknowledgements, "
                   "funding); then Enter to go on"),
    ("Shift + letter", "add (or remove) a secondary label, up to 3 in all; a "
                       "suggested one (shown with '?') is gold only once taken"),
    ("Backspace", "drop the last secondary label"),
    ("e", "novelty: New, Old, Future, none"),
    ("a", "advantage: Advantage, Disadvantage, none"),
    ("i", "comment"),
    ("z / Ctrl+Z", "undo the last decision"),
    ("n", "next unreviewed uncertain sentence"),
    ("j / ↓, k / ↑", "next / previous sentence"),
    ("[ / ]", "previous / next paper"),
    ("U", "switch to a model adapted to the reviewed papers"),
    ("?", "show or hide this key map"),
)


@cache
def _asset(name: str) -> str:
    return (resources.files("coresc.review") / "static" / name).read_text(encoding="utf-8")


def view_paper(review: PaperReview) -> Paper:
    """A copy of the paper for the HTML view: sids are sentence indexes (the page's
    handles), the labels shown are the current ones; a PDF paper's boxes on its pages."""
    sections, j = [], 0
    for sec in review.paper.sections:
        paragraphs = []
        for para in sec.paragraphs:
            sentences = []
            for s in para.sentences:
                sentences.append(Sentence(str(j), s.text, s.zone, pred=_shown(review, j),
                                          boxes=s.boxes))
                j += 1
            paragraphs.append(Paragraph(sentences))
        sections.append(Section(sec.heading, sec.type, sec.depth, sec.parent, paragraphs))
    p = review.paper
    copy = Paper(p.id, p.title, p.source_format, p.source_path, sections)
    if PDF_PAGES in p.meta:  # the images come from the server (``/paper/{i}/page/{n}.png``)
        copy.meta[PDF_PAGES] = p.meta[PDF_PAGES]
    return copy


def _shown(review: PaperReview, j: int) -> list[Prediction]:
    scores = dict(review.suggestions[j])
    d = review.decisions.get(j)
    if d is None:
        return [Prediction(lab, sc) for lab, sc in review.suggestions[j]]
    return [Prediction(lab, scores.get(lab, 1.0)) for lab in d.labels]


def page_data(store: ReviewStore, i: int) -> dict:
    """What review.js needs: per sentence the model's ranked labels [m], the decision [d]
    and whether it is among the least certain [u]; the styles and keys of the labels."""
    review = store.paper(i)
    uncertain = review.uncertain()
    sentences = []
    for j in range(review.n):
        d = review.decisions.get(j)
        sentences.append({"m": review.suggestions[j], "u": j in uncertain,
                          "d": None if d is None else d.__dict__,
                          "c": review.choices.get(j)})
    return {"paper": i, "papers": len(store.papers), "id": review.paper.id,
            "annotator": store.annotator, "model": review.model,
            "model_name": model_name(store, review),
            "adjudicating": store.adjudicating, "sentences": sentences,
            "labels": list(store.labels), "names": label_names(store.labels),
            "keys": label_keys(store.labels), "no_label_key": NO_LABEL_KEY,
            "styles": label_styles(store.labels),
            "novelty": NOVELTY, "advantage": ADVANTAGE,
            "progress": store.progress()}


def review_page(store: ReviewStore, i: int) -> str:
    review = store.paper(i)
    data = json.dumps(page_data(store, i)).replace("<", "\\u003c")
    actions = ACTION_KEYS
    if store.adjudicating:  # two annotators' choices, one key each
        a, b = store.adjudicating
        actions = (("1 / 2", f"take {a}'s / {b}'s labels, go to the next disagreement"),
                   *actions[:-2], actions[-1])  # no model to adapt
    keys = "".join(f"<tr><td><kbd>{esc(k)}</kbd></td><td>{esc(what)}</td></tr>"
                   for k, what in actions)
    names = label_names(store.labels)
    labels = "".join(f"<tr><td><kbd>{k}</kbd></td><td>{esc(lab)}"
                     f"{'' if names[lab] == lab else ' ' + esc(names[lab])}</td></tr>"
                     for lab, k in label_keys(store.labels).items())
    bar = f"""<nav class="rv-bar ui" id="rv-bar">
<a href="./">&#8592; all papers</a>
<span id="rv-where" title="labels by {esc(review.model)}">paper {i + 1} of \
{len(store.papers)} · annotator <b>{esc(store.annotator)}</b> \
· labels by <b id="rv-model">{esc(model_name(store, review))}</b></span>
<span id="rv-finished" hidden>&#10003; paper finished</span>
<span id="rv-progress" aria-live="polite"></span>
<span id="rv-saved" aria-live="polite"></span>
<button type="button" id="rv-adapt" title="U"{" hidden" if store.adjudicating else ""}>\
adapt the model</button>
<span id="rv-adapt-status" aria-live="polite"></span>
</nav>
<aside class="rv-panel ui" id="rv-panel">
<div id="rv-alert" class="error" role="alert" hidden></div>
<div class="rv-legend"><span class="rv-key-done">reviewed &#10003;</span> \
<span class="rv-key-todo">not reviewed</span> \
<span class="rv-key-unc">uncertain</span> \
<span class="rv-key-unsaved">not saved !</span></div>
<div id="rv-current" aria-live="polite"></div>
<div id="rv-adapt-message" aria-live="polite"></div>
<div id="rv-buttons"></div>
<details id="rv-keymap" open><summary>keys</summary>
<table>{keys}</table><table class="rv-labels">{labels}</table></details>
</aside>
<script type="application/json" id="rv-data">{data}</script>
"""
    addon = Addon(css=_asset("review.css"), html=bar, script=_asset("review.js"), connect=True,
                  pages=f"{i}/page/{{n}}.png")
    return render_paper(view_paper(review), addon)


def short_name(model: str) -> str:
    """A model folder's own name (``reviews/alice-adapted-model``), not its whole path:
    the bar keeps one line; the whole path is its tooltip."""
    return model.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1] or model


def model_name(store: ReviewStore, review: PaperReview) -> str:
    """What the bar names as the labels' source: a model folder's own name; in an
    adjudication, the two annotators as they are (``alice / bob`` is no path)."""
    return review.model if store.adjudicating else short_name(review.model)


def short_title(title: str, limit: int = 90) -> str:
    """``title`` cut at the last word boundary within ``limit`` characters, with an
    ellipsis (one long word is cut where it must)."""
    if len(title) <= limit:
        return title
    head = title[:limit]
    if title[limit] != " " and " " in head:
        head = head.rsplit(" ", 1)[0]
    return head.rstrip(" ,;:.-") + "…"


def _finished(p: dict) -> str:
    return ' <b class="rv-finished">&#10003; finished</b>' \
        if p["total"] and p["reviewed"] == p["total"] else ""


def index_page(store: ReviewStore) -> str:
    """The papers with their progress, and the model in use."""
    progress = store.progress()
    rows = "".join(
        f'<tr><td><a href="paper/{p["index"]}">{esc(p["id"])}</a></td>'
        f'<td>{esc(short_title(p["title"]))}</td>'
        f'<td class="n">{p["reviewed"]} / {p["total"]}{_finished(p)}</td>'
        f'<td class="n">{p["changed"]}</td><td class="n">{p["expected_errors"]}</td>'
        f'<td>{esc(p["model"])}</td></tr>' for p in progress["papers"])
    total = progress["all"]
    body = f"""<header class="top"><p class="meta">coresc review · annotator \
<b>{esc(store.annotator)}</b> · files in {esc(store.folder)}</p>
<h1>Papers to review</h1></header>
<main><p class="note" id="rv-total">reviewed {total["reviewed"]} of {total["total"]} \
sentences; changed {total["changed"]} of the reviewed</p>
<table class="scores" id="rv-papers"><tr><th>paper</th><th>title</th><th>reviewed</th>\
<th>changed</th><th>expected errors left</th><th>labels by</th></tr>{rows}</table>
</main>"""
    return html_page("coresc review", body)


def token_page() -> str:
    """What a browser without this server's token sees (HTTP 401)."""
    return message_page(401, "This review server needs its token. Open the address it "
                             "printed when it started (the one ending in ?token=...) in "
                             "this browser; it sets a cookie for this server only.")


def message_page(status: int, message: str) -> str:
    """A short page for a person: what went wrong and where to go."""
    body = f"""<header class="top"><p class="meta">coresc review</p>
<h1>{status}</h1></header>
<main><p class="note" id="rv-message">{esc(message)}</p>
<p><a href="/">the papers</a></p></main>"""
    return html_page(f"coresc review: {status}", body)
