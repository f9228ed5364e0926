"""Writing pages to files: one paper to a file (or stdout), several to a directory of
pages with the corpus view as its index, or the corpus view alone."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from ...document import Paper
from ...errors import UsageError
from .. import atomic_output, refuse_overwriting_inputs
from .corpus import render_corpus
from .paper import render_paper


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
