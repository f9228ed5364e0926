"""Inter-annotator agreement: the five kappas of the CRA corpus paper between annotation sets.

Each ANNOTATION_SET is a file or directory of annotated papers in any readable format,
one set per annotator or per model output. Papers are matched by id, sentences by sid
(else by text); sentences missing or unlabelled on either side are left out. For every
pair of sets: weighted, loose, all-but-one (abo), CoreSC1 and strict kappa, micro (all
sentences pooled) and macro (per paper, then averaged), with the papers and sentences
compared, then each set's mean agreement with the others. Each kappa is printed with
the observed agreement beside it (the share of sentences on which the two agree, before
chance is taken out), e.g. 0.785 (84.1%). Definitions: docs/agreement.md.

examples:
  coresc agreement ann1/ ann2/ ann3/
  coresc agreement gold/ model-output.jsonl --to json
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

from ..agreement import LABEL_SOURCES, load_sets, pairwise, reliability
from ..errors import UsageError
from ..metrics import MEASURES

FORMATS = ("table", "markdown", "json")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("sets", nargs="+", metavar="ANNOTATION_SET",
                        help="file or directory of annotated papers (two or more)")
    parser.add_argument("--to", default="table", choices=FORMATS,
                        help="output format (default: table)")
    parser.add_argument("--labels", default="auto", choices=LABEL_SOURCES,
                        help="labels to compare: gold, pred, or auto (a set's predictions "
                             "when it has any, else its gold; default)")


def run(args: argparse.Namespace) -> int:
    if len(args.sets) < 2:
        raise UsageError("agreement needs at least two annotation sets")
    sets = load_sets(args.sets, args.labels)
    pairs = pairwise(sets)
    names = [s.name for s in sets]
    means = reliability(names, pairs)
    if args.to == "json":
        print(json.dumps({"pairs": pairs, "mean_agreement": means}, indent=2))
    else:
        print(render(pairs, means, markdown=args.to == "markdown"), end="")
    return 0


def render(pairs: Sequence[dict[str, Any]], means: dict[str, float],
           markdown: bool = False) -> str:
    """Pairwise results as a fixed-width (or Markdown) table, one row per pair and average."""
    header = ["set A", "set B", "avg", *MEASURES, "papers", "sentences"]
    rows = [[r["a"], r["b"], avg, *(_cell(r, avg, m) for m in MEASURES),
             str(r["n_papers"]), str(r["n_sentences"])]
            for r in pairs for avg in ("micro", "macro")]
    mean_line = "mean agreement with the others (micro, five kappas): " + ", ".join(
        f"{n} {v:.3f}" for n, v in means.items())
    note = "each cell: kappa (observed agreement, % of sentences)"
    if markdown:
        lines = ["| " + " | ".join(header) + " |",
                 "|" + "|".join(" --- " for _ in header) + "|"]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return "\n".join(lines) + "\n\n" + note + "; " + mean_line + "\n"
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    def fmt(row: list[str]) -> str:
        return "  ".join(c.ljust(w) if i < 3 else c.rjust(w)
                         for i, (c, w) in enumerate(zip(row, widths, strict=True))).rstrip()
    return "\n".join([fmt(header), *(fmt(r) for r in rows), "", note, mean_line]) + "\n"


def _cell(pair: dict[str, Any], avg: str, measure: str) -> str:
    """A kappa with the observed agreement beside it: ``0.785 (84.1%)``."""
    return f"{pair[avg][measure]:.3f} ({100 * pair['observed'][avg][measure]:.1f}%)"
