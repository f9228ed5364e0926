"""Gold papers rendered to PDF through real publishing templates: a layout corpus whose
structure and labels are exact, to judge (and fit) the embedded PDF reader on layouts it
was never built on.

Each paper (read from its XML by coresc, so its gold labels come with it) is written as
LaTeX in each layout of :data:`LAYOUTS` (TeX Live's article in one and two columns,
IEEEtran, acmart sigconf and acmsmall, llncs, elsarticle with line numbers, revtex, and
babel's German, French, Italian and Dutch names for the abstract and references, and
the twenty-four layouts of issue 50's fifth to seventh steps, below), with
what real papers carry around their text: an author block and affiliations, running
heads and page numbers, footnotes, a figure and a table with captions, display
equations, a reference list and, in some layouts, an appendix after the references.
``pdflatex`` makes the PDF (``xelatex`` for ctex's Chinese); beside it
``NAME.truth.json`` records the source, the layout and every element in order with its
role (title, author, abstract, heading and level, paragraph, caption, table, equation,
footnote, reference, appendix heading ...), and the captions' texts (which a reader
should keep).

    python experiments/render_layouts.py --corpus cra -o out/layouts      # 50 x 36 PDFs
    python experiments/render_layouts.py --corpus cra --layouts article-2col,llncs \
        --papers 5 -o out/layouts
    python experiments/render_layouts.py data/example-paper.xml -o data/layouts-sample \
        --layouts article-2col,ieeetran-conf,elsarticle-lineno     # the committed sample

The layouts of issue 50's fifth step (a thesis in report with chapters and a table of
contents, MNRAS, Elsevier's CAS double column, ACS's achemso manuscript, AASTeX
two-column, PMLR, amsart, KOMA-Script two-column, Nature), sixth (IEEE's journal
class, Tufte's handout, APA's manuscript, babel's Russian, ctex's Chinese, JACoW, AIAA,
SPIE, Oxford University Press) and seventh (IEEE's Computer Society journal, Elsevier's
final two-column layout with a sideways table, LNI, smfart, TUGboat, memoir) were held
out until measured, then fitted on; they are in :data:`tex_layouts.LAYOUTS` now. The
layouts held out now (:data:`tex_layouts.HELD_OUT`: ASME's journal, APA's journal
style, the Annals of Mathematics, AIP's revtex, ACM's TOG, a KOMA-Script thesis with its
tables on landscape pages, two columns with line numbers; and
``render_word_layouts.py``'s Word report) are rendered apart, to judge the reader on
layouts it was not built on (measured before any rule was chosen on them:
docs/benchmarks.md):

    python experiments/render_layouts.py --corpus cra --layouts held-out -o out/heldout
    python benchmarks/pdf_layouts.py --root out/heldout --corpus cra --cv 3

Needs TeX Live (Debian: ``apt-get install texlive-latex-extra texlive-publishers
texlive-fonts-recommended texlive-lang-german texlive-lang-french texlive-science
texlive-lang-cyrillic texlive-lang-chinese texlive-xetex tex-gyre cm-super``: PMLR's
class needs texlive-science, JACoW's TeX Gyre, ctex's Chinese XeLaTeX; without cm-super
the T1 and T2A fonts are bitmaps, Type 3 fonts whose Cyrillic no reader can name);
kept out of CI.

Resumable: a PDF already made is kept. ``benchmarks/pdf_layouts.py`` reads them back.
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess
import sys
import tempfile
import unicodedata
from pathlib import Path

from layout_corpus import Renderer, render_corpus
from lxml import etree
from tex_layouts import _HEADS, HELD_OUT, LAYOUTS, Layout

from coresc.document import Paper

_SYMBOLS = {"\u00b1": r"$\pm$", "\u00d7": r"$\times$", "\u00b0": r"\textdegree{}",
            "\u00b5": r"$\mu$", "\u2264": r"$\leq$", "\u2265": r"$\geq$",
            "\u2192": r"$\rightarrow$", "\u2013": "--", "\u2014": "---", "\u2018": "`",
            "\u2019": "'", "\u201c": "``", "\u201d": "''", "\u2022": r"\textbullet{}",
            "\u2032": "'", "\u2212": "-", "\u00a0": "~", "\u2009": r"\,", "\u2026": r"\dots{}",
            "\u0127": r"$\hbar$", "\u0126": "H"}  # (h-bar: Latin Extended-A, not in T1)
# Unicode's names of Greek letters that TeX spells otherwise (or has no command for).
_GREEK = {"lamda": r"$\lambda$", "final sigma": r"$\varsigma$", "omicron": "o"}
_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
            "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
            "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}"}


def escape(text: str) -> str:
    """``text`` as LaTeX that pdflatex sets with T1 fonts: TeX's special characters
    escaped, Greek letters and common symbols as their commands, other characters beyond
    Latin-1 reduced to their base letters (or dropped)."""
    out = []
    for ch in text:
        if ch in _SPECIAL:
            out.append(_SPECIAL[ch])
        elif ch in _SYMBOLS:
            out.append(_SYMBOLS[ch])
        elif ord(ch) < 0x180 and ch.isprintable():  # Latin-1 and Extended-A: T1 has them
            out.append(ch)
        elif unicodedata.name(ch, "").startswith("GREEK SMALL LETTER "):
            name = unicodedata.name(ch)[19:].lower()
            out.append(_GREEK.get(name, rf"$\{name}$" if name.isalpha() else ""))
        elif ch.isspace():
            out.append(" ")
        else:
            base = unicodedata.normalize("NFKD", ch)
            out.append("".join(c for c in base if ord(c) < 0x180 and c.isprintable()))
    return re.sub(r"\s+", " ", "".join(out)).strip()


_NAMES = ["Ana Ribeiro", "Tomasz Nowak", "Mei Lin", "Jonas Berg", "Priya Natarajan",
          "Lucas Moreau", "Sofia Rossi", "Kwame Mensah", "Elena Petrova", "David Cohen"]
_CAPTIONS = ["Distribution of the measured values across the study groups, with the "
             "median and the interquartile range of each group.",
             "Overview of the procedure used in this study, from the samples collected to "
             "the statistical analysis of the results.",
             "Comparison of the observed and expected incidence in the exposed and the "
             "unexposed groups over the whole follow-up period."]
_TABLE_CAPTION = "Characteristics of the participants included in the analysis."


class _Writer:
    """Writes one paper's body as LaTeX in one layout, recording each element's role
    (``markup``: the body's pieces; ``truth``: its elements in order)."""

    def __init__(self, layout: Layout, rng: random.Random,
                 cited: dict[str, str] | None = None) -> None:
        self.layout = layout
        self.rng = rng
        self.markup: list[str] = []
        self.truth: list[dict] = []
        self.captions: list[str] = []
        self.paragraphs = 0
        self.cited = cited or {}  # sentence -> its LaTeX with citations raised

    def write(self, sections: list[tuple[str, int, list[list[str]], str]]) -> None:
        """The body's sections (as :func:`_sections` gives them), in order."""
        for heading, depth, paras, _type in sections:
            if heading:
                self.heading(heading, depth)
            for sentences in paras:
                self.paragraph(sentences)

    def add(self, role: str, text: str, tex: str, **extra) -> None:
        self.truth.append({"role": role, "text": text, **extra})
        self.markup.append(tex)

    def heading(self, text: str, depth: int) -> None:
        command = self.layout.sectioning[min(max(depth, 1), 3) - 1]
        star = "" if self.layout.numbered else "*"
        self.add("heading", text, rf"\{command}{star}{{{escape(text)}}}", level=depth)

    def paragraph(self, sentences: list[str]) -> None:
        self.paragraphs += 1
        body = " ".join(self.cited.get(s) or escape(s) for s in sentences)
        if self.paragraphs == 2:  # a footnote mark inside the text, the note at the foot
            body += r"\footnote{The data are available from the authors on request.}"
            self.truth.append({"role": "footnote",
                               "text": "The data are available from the authors on request."})
        self.add("paragraph", " ".join(sentences), body + "\n\n")
        if self.paragraphs == 3:
            self.figure()
        elif self.paragraphs == 6:
            self.equation()
        elif self.paragraphs == 9:
            self.table()

    def figure(self) -> None:
        text = self.rng.choice(_CAPTIONS)
        self.captions.append(text)
        self.add("caption", text, r"\begin{figure}" + self.layout.floats
                 + r"\centering\fbox{\rule{0pt}{3cm}"
                 r"\rule{0.8\linewidth}{0pt}}\caption{" + text + "}\\end{figure}\n",
                 float="figure")

    def equation(self) -> None:
        self.add("equation", "", r"\begin{equation}R_{i} = \frac{\sum_{j=1}^{n} w_{ij}"
                 r" x_{j}}{\sigma_{i}^{2} + \lambda}\end{equation}" "\n")

    def table(self) -> None:
        rows = " \\\\\n".join(f"Group {k} & {self.rng.randint(20, 90)} & "
                              f"{self.rng.uniform(0, 1):.2f} & {self.rng.randint(1, 9)}.{k}"
                              for k in range(1, 5))
        self.captions.append(_TABLE_CAPTION)
        env = self.layout.table_env
        # (a landscape page holds a table float of its own, set where it stands)
        outer, env, place = ((env, "table", "[h]") if env == "landscape" else
                             ("", env, self.layout.floats if env == "table" else ""))
        tex = (rf"\begin{{{env}}}" + place + r"\centering\caption{" + _TABLE_CAPTION
               + r"}\begin{tabular}{lrrr}\hline Group & n & Rate & Dose \\ \hline" "\n"
               + rows + r" \\ \hline\end{tabular}" rf"\end{{{env}}}")
        if outer:
            tex = rf"\begin{{{outer}}}" + tex + rf"\end{{{outer}}}"
        self.add("caption", _TABLE_CAPTION, tex + "\n", float="table")
        self.truth.append({"role": "table", "text": ""})


_NUMERIC_CITE = re.compile(r"\d+(?:\s*[,\u2013-]\s*\d+)*")


def cite_spans(sentence) -> list[tuple[int, int]]:
    """Where a sentence's numeric citations (SciXML's ``REF``, JATS's ``xref``) stand in
    its text: ``(start, end)`` spans, in order; [] when it has none."""
    el = getattr(sentence, "element", None)
    if el is None or etree.QName(el).localname not in ("s", "S"):
        return []  # (a paragraph's element holds its other sentences' citations too)
    refs = [(r.text or "").strip() for r in el.iter("{*}REF", "{*}xref")]
    spans, at = [], 0
    for ref in refs:
        k = sentence.text.find(ref, at) if _NUMERIC_CITE.fullmatch(ref) else -1
        if k >= 0:
            spans.append((k, k + len(ref)))
            at = k + len(ref)
    return spans


def cited_tex(sentence) -> str | None:
    """A sentence's LaTeX with its numeric citations raised, as journals that cite by
    number set them ("... ions.\\textsuperscript{3,4}"); None when it has none."""
    spans = cite_spans(sentence)
    if not spans:
        return None
    text, out, at = sentence.text, [], 0
    for k, end in spans:
        out.append(escape(text[at:k]) + rf"\textsuperscript{{{escape(text[k:end])}}}")
        at = end
    return "".join(out) + escape(text[at:])


def _sections(paper: Paper) -> list[tuple[str, int, list[list[str]], str]]:
    """(heading, depth, paragraphs as sentence texts, type) of the paper's body."""
    out = []
    for sec in paper.sections:
        if sec.type in ("title", "abstract") or sec.depth == 0 and not sec.paragraphs:
            continue
        paras = [[s.text for s in p.sentences] for p in sec.paragraphs if p.sentences]
        out.append((sec.heading, sec.depth, paras, sec.type))
    return out


def _abstract(paper: Paper) -> tuple[str, list[dict]]:
    parts, truth = [], []
    for sec in paper.sections:
        if sec.type != "abstract":
            continue
        for para in sec.paragraphs:
            texts = [s.text for s in para.sentences]
            if not texts:
                continue
            lead = rf"\textbf{{{escape(sec.heading)}:}} " if sec.depth >= 1 else ""
            parts.append(lead + " ".join(escape(t) for t in texts))
            truth.append({"role": "abstract", "text": " ".join(texts)})
    return "\n\n".join(parts), truth


def _references(rng: random.Random, name: str,
                labels: bool = False) -> tuple[str, list[dict]]:
    items, truth = [], []
    for k in range(1, 13):
        a, b = rng.sample(_NAMES, 2)
        text = (f"{a.split()[1]} {a[0]}, {b.split()[1]} {b[0]}. Effects of exposure in "
                f"cohort {k}. J Risk Stud. {1990 + k}; {k + 10}: {100 + 7 * k}-{109 + 7 * k}.")
        label = f"[{a.split()[1]} et~al.({1990 + k})]" if labels else ""
        items.append(rf"\bibitem{label}{{r{k}}} {text}")
        truth.append({"role": "reference", "text": text})
    # (a class with chapters names its list \bibname)
    tex = (rf"\providecommand{{\refname}}{{}}\renewcommand{{\refname}}{{{name}}}"
           rf"\providecommand{{\bibname}}{{}}\renewcommand{{\bibname}}{{{name}}}" "\n"
           r"\begin{thebibliography}{99}" "\n" + "\n".join(items) +
           "\n\\end{thebibliography}\n")
    return tex, [{"role": "heading", "text": name, "level": 1, "back": "references"}, *truth]


def latex_of(paper: Paper, layout: Layout, seed: int = 0) -> tuple[str, dict]:
    """The LaTeX of ``paper`` set in ``layout``, and its truth (see the module's
    docstring)."""
    rng = random.Random(f"{paper.id}:{seed}")
    title = paper.title or next((s.text for s in paper.sentences() if s.zone == "title"), "")
    authors = rng.sample(_NAMES, 3)
    abstract, abstract_truth = _abstract(paper)
    abstract = abstract.replace("\n\n", layout.abstract_par)
    cited = {s.text: t for s in paper.sentences() if (t := cited_tex(s))}
    writer = _Writer(layout, rng, cited)
    sections = _sections(paper)
    if layout.opening_section and sections and not sections[0][0]:
        sections[0] = ("Introduction", 1, *sections[0][2:])
    after = [sections.pop()] if layout.appendix and len(sections) > 2 else []
    writer.write(sections)
    refs_tex, refs_truth = _references(rng, layout.refs_name, layout.cite_labels)
    body = "".join(t if t.endswith("\n") else t + "\n" for t in writer.markup)
    back = ""
    appendix_truth: list[dict] = []
    if after:
        tail = _Writer(layout, rng, cited)
        tail.paragraphs = 100  # no more floats
        tail.heading(after[0][0] or "Supplementary methods", 1)
        for sentences in after[0][2]:
            tail.paragraph(sentences)
        back = "\\appendix\n" + "".join(t + "\n" for t in tail.markup)
        appendix_truth = tail.truth
        appendix_truth[0]["back"] = "appendix"
        if layout.appendix_name:
            appendix_truth[0]["text"] = layout.appendix_name
    short = escape(title.split(":")[0][:60])
    front, preface = (text.replace("@TITLE@", escape(title)).replace(
        "@AUTHORS@", layout.author_sep.join(authors)).replace("@ABSTRACT@", abstract)
        for text in (layout.front, layout.preface))
    heads = _HEADS.replace("{short}", short) if layout.heads else ""
    names = (rf"\renewcommand{{\abstractname}}{{{layout.abstract_name}}}"
             if layout.abstract_name != "Abstract" else "")
    # (a blank line after the front: article's two-column abstract does not end its
    # paragraph, and the body's first one would run on from it)
    program = f"% !TEX program = {layout.engine}\n" if layout.engine != "pdflatex" else ""
    tex = (program + layout.preamble + heads + preface + "\n\\begin{document}\n" + names
           + "\n" + front + "\n" + body + refs_tex + back + "\\end{document}\n")
    truth = {"paper": paper.id, "source": paper.source_path, "title": title,
             "captions": writer.captions,
             "elements": [{"role": "title", "text": title},
                          *({"role": "author", "text": a} for a in authors),
                          *abstract_truth, *writer.truth, *refs_truth, *appendix_truth]}
    return tex, truth


_PROGRAM = re.compile(r"% !TEX program = (xelatex|lualatex)\n")


def render(tex: str, pdf: Path, timeout: float = 120.0) -> str | None:
    """``tex`` made into ``pdf`` by pdflatex, or by the program its first line names
    ("% !TEX program = xelatex"), twice, for the floats' numbers; None when it worked,
    else the last lines of TeX's log."""
    named = _PROGRAM.match(tex)
    program = named.group(1) if named else "pdflatex"
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "paper.tex"
        src.write_text(tex, encoding="utf-8")
        for _ in range(2):
            try:
                done = subprocess.run([program, "-interaction=batchmode", "-halt-on-error",
                                       "paper.tex"], cwd=tmp, capture_output=True,
                                      timeout=timeout, check=False)
            except subprocess.TimeoutExpired:
                return f"{program} took over {timeout:g} s"
        out = Path(tmp) / "paper.pdf"
        if done.returncode != 0 or not out.exists():
            log = (Path(tmp) / "paper.log").read_text("latin-1", "replace")
            errors = [ln for ln in log.splitlines() if ln.startswith("!")]
            return (errors[:1] or log.splitlines()[-3:] or ["no log"])[0]
        shutil.copyfile(out, pdf)
    return None


def main(argv: list[str] | None = None) -> int:
    return render_corpus(Renderer("render_layouts", LAYOUTS, "pdflatex", "TeX Live",
                                  latex_of, render, HELD_OUT), argv, __doc__.split("\n\n")[0])


if __name__ == "__main__":
    sys.exit(main())
