"""Choose which papers to review next: those whose labels the model is least sure of.

Each unreviewed paper (any format coresc reads) is labelled by MODEL and scored by
--utility: 'weak' (the default) is the model's uncertainty about each label, per
sentence, weighted towards the labels it expects rarely in the pool, averaged over the
paper's sentences; 'total' is the paper's expected errors (the sum over its sentences of
1 - the calibrated score of the primary label), 'rate' their share of its sentences.
Papers are chosen greedily by that score, discounted by their word similarity to the
papers already chosen (--diversity), so a budget is not spent on near-identical papers.
Papers that carry gold labels, and papers whose id matches one under --exclude (e.g. the
folder `coresc review` writes to), count as reviewed and are skipped.

Prints the chosen paths one per line, most useful first; -o writes the same list to a
file (atomically), which `coresc review --from-list` and `coresc train --from-list` read.
--scores adds, after a tab, why each paper was chosen: the primary labels the model
expects to be wrong in it, its sentences, the weak labels it expects to find there (with
how many sentences of each), its utility, its similarity to the papers chosen before it
and the gain the choice went by; '#' lines above the table explain the order (a list
file skips them). With --budget larger than the pool every paper is listed.

examples:
  coresc select ../shared/data/jats --model fast --budget 3
  coresc select papers/ --model my-model/ --budget 5 --exclude reviewed/ -o next.txt
  coresc select papers/ --model fast --budget 5 --utility rate --scores
  coresc review --from-list next.txt --annotator alice -o reviews/
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import UsageError
from .options import (
    BUDGET,
    FLOAT,
    MODEL_HELP_SHORT,
    OUTPUT_FILE,
    add_format_argument,
    add_model_argument,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ..selection import DEFAULT_DIVERSITY, UTILITIES

    parser.add_argument("papers", nargs="+", metavar="PAPERS",
                        help="paper files or directories to choose from")
    add_model_argument(parser, MODEL_HELP_SHORT)
    parser.add_argument("--budget", type=BUDGET, required=True, metavar="N",
                        help="how many papers to choose")
    parser.add_argument("-o", "--output", type=OUTPUT_FILE, metavar="FILE",
                        help="also write the chosen paths to FILE, one per line")
    parser.add_argument("--exclude", action="append", default=[], metavar="PATH",
                        help="papers already reviewed (files or folders; repeatable): "
                             "papers with the same id are skipped")
    parser.add_argument("--utility", choices=UTILITIES, default="weak",
                        help="rank by the uncertainty about each label weighted towards "
                             "the rare labels, per sentence ('weak', the default), or by "
                             "expected wrong labels per paper ('total') or per sentence "
                             "('rate')")
    parser.add_argument("--diversity", type=FLOAT, default=DEFAULT_DIVERSITY, metavar="D",
                        help="0..1: how much similarity to papers already chosen discounts "
                             f"a paper (default {DEFAULT_DIVERSITY}; 0: none)")
    parser.add_argument("--scores", action="store_true",
                        help="print why each paper was chosen beside its path (tab-separated: "
                             "expected wrong labels, sentences, weak labels, utility, "
                             "similarity, gain), under '#' lines explaining the order")
    add_format_argument(parser)


def run(args: argparse.Namespace) -> int:
    from ..pipeline import open_model
    from ..selection import select_papers, unreviewed

    if not 0.0 <= args.diversity <= 1.0:  # also refuses nan
        raise UsageError(f"--diversity must be between 0 and 1, not {args.diversity}")
    papers, failed = _read(args.papers, args.format)
    papers = _once(papers)
    reviewed = _reviewed_ids(args.exclude)
    pool = unreviewed(papers, reviewed)
    if not pool:
        raise UsageError(f"{', '.join(args.papers)}: no unreviewed paper to choose from "
                         f"({len(papers)} read, all with gold labels or excluded)")
    model = open_model(args.model)  # a bad --model is refused before any note
    if args.budget >= len(pool):
        print(f"coresc select: note: the budget ({args.budget}) covers the whole pool "
              f"({len(pool)} unreviewed papers): all are listed", file=sys.stderr)
    chosen = select_papers(model, pool, args.budget, args.utility, args.diversity)
    names = _names([c.paper for c in chosen], pool)
    lines = ([*_explained(args, len(chosen), len(pool)),
              *(_row(n, c) for n, c in zip(names, chosen, strict=True))]
             if args.scores else names)
    text = "".join(line + "\n" for line in lines)
    if args.output:
        from ..writers import atomic_output

        with atomic_output(args.output, "wb") as fh:  # a path that is not UTF-8: its bytes
            fh.write(text.encode("utf-8", "surrogateescape"))
    sys.stdout.write(text)
    return 1 if failed else 0  # as annotate: 1 when some inputs could not be read


def _read(paths: list[str], fmt: str) -> tuple[list, int]:
    """The papers that can be read, and how many inputs cannot: each of those is one
    line on standard error and the others go on, as in annotate and review (issue 53: one
    damaged PDF stopped the whole folder). None read at all is an error."""
    from ..errors import InputError
    from ..readers import read_inputs

    result = read_inputs(paths, fmt)
    if not result.files and not result.errors:
        raise InputError(", ".join(paths), "no readable files found")
    if not result.papers and len(result.errors) == 1:
        raise result.errors[0]  # the one input given cannot be read: its line alone
    for error in result.errors:
        print(f"coresc select: error: {error} (skipped)", file=sys.stderr)
    if not result.papers and result.errors:
        raise UsageError(f"{', '.join(paths)}: no paper could be read "
                         f"({len(result.errors)} input(s) failed, above)")
    return result.papers, len(result.errors)


#: The columns of ``--scores``, after the path.
SCORE_COLUMNS = ("expected_wrong", "sentences", "weak_labels", "utility", "similarity", "gain")


def _explained(args: argparse.Namespace, n_chosen: int, n_pool: int) -> list[str]:
    """The ``#`` lines above the ``--scores`` table: what was chosen, and in what order."""
    from ..selection import explain_order

    return [f"# coresc select: {n_chosen} of {n_pool} unreviewed papers, "
            f"{explain_order(args.utility, args.diversity)[0]}",
            *(f"# {line}" for line in explain_order(args.utility, args.diversity)[1:]),
            "# " + "\t".join(("path", *SCORE_COLUMNS))]


def _row(name: str, c) -> str:
    weak = " ".join(f"{lab}:{n:.1f}" for lab, n in c.weak_labels) or "-"
    return "\t".join((name, f"{c.expected_errors:.1f}", str(c.n_sentences), weak,
                      f"{c.utility:.4g}", f"{c.similarity:.2f}", f"{c.gain:.4g}"))


def _reviewed_ids(paths: list[str]) -> set[str]:
    """Ids of the papers under ``--exclude`` (a review folder may still be empty)."""
    from ..errors import InputError
    from ..readers import read_inputs

    for path in paths:
        if not Path(path).exists():
            raise InputError(path, "no such file or directory")
    result = read_inputs(paths) if paths else None
    if result is not None and result.errors:
        raise result.errors[0]
    return {p.id for p in result.papers} if result else set()


def _source(paper) -> str:
    """Where a paper was read from, as given (``-``: standard input)."""
    return str(paper.source_path) if paper.source_path else "-"


def _once(papers: list) -> list:
    """Each paper once: the same file given twice (or through a link), or a paper id
    repeated within a file, is kept at its first place, with a note."""
    seen: set[tuple[str, str]] = set()
    kept, repeated = [], []
    for paper in papers:
        try:
            where = str(Path(paper.source_path).resolve()) if paper.source_path else "-"
        except (OSError, RuntimeError):
            where = _source(paper)
        # a link names the same file with another id (the file name): its text tells
        text = "\n".join(s.text for s in paper.sentences())
        keys = {(where, "id:" + paper.id), (where, "text:" + text)}
        if keys & seen:
            repeated.append(paper)
            continue
        seen |= keys
        kept.append(paper)
    if repeated:
        print(f"coresc select: note: {len(repeated)} paper(s) given more than once are "
              f"listed once (the first: {_source(repeated[0])}#{repeated[0].id})",
              file=sys.stderr)
    return kept


def _names(chosen, pool) -> list[str]:
    """Each chosen paper's path; ``path#id`` when its file holds more than one paper."""
    from collections import Counter

    per_file = Counter(_source(p) for p in pool)
    return [_source(p) if per_file[_source(p)] == 1 else f"{_source(p)}#{p.id}"
            for p in chosen]
