"""Build a consensus gold standard from several annotators (CRA corpus paper, section 3.3).

A1 A2 A3 are annotation sets (files or directories, any readable format), one per
annotator. Per sentence: unanimous labels kept; a majority label taken; all single and
all different: the highest-priority label (Hyp > Goa > Mot > Obj > Con > Res > Mod >
Obs > Exp > Met > Bac); when at least two annotators gave several labels, a multi-label
gold ranked by votes, ties by priority; where disagreement remains, the most reliable
annotator (highest mean agreement with the others, or --reliable) is followed.
Rules in detail: docs/agreement.md.

GOLD_DIR receives one mode2 XML per paper (CoreSc1..CoreSc3 in each <s>, on the first
set's documents), consensus.json (rule counts, reliability, pairwise agreement) and
consensus-decisions.tsv (per sentence: paper, sid, rule, gold, each annotator).

example:
  coresc consensus ann1/ ann2/ ann3/ -o gold/ --reliable ann1/
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..agreement import LABEL_SOURCES, load_sets
from ..consensus import RULES, ConsensusResult, build_consensus, warn_left_out
from ..errors import UsageError
from ..writers import atomic_output, refuse_overwriting_inputs, write_papers
from .options import output_path

SUMMARY_FILE = "consensus.json"
DECISIONS_FILE = "consensus-decisions.tsv"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("sets", nargs="+", metavar="ANNOTATION_SET",
                        help="one file or directory per annotator (two or more; three in "
                             "the paper)")
    parser.add_argument("-o", "--output", type=output_path, required=True, metavar="GOLD_DIR",
                        help="directory for the consensus papers and reports")
    parser.add_argument("--reliable", metavar="ANNOTATION_SET",
                        help="the annotator to follow where disagreement remains, as named "
                             "on the command line (default: highest mean agreement)")
    parser.add_argument("--labels", default="auto", choices=LABEL_SOURCES,
                        help="labels to use: gold, pred, or auto (default)")


def run(args: argparse.Namespace) -> int:
    if len(args.sets) < 2:
        raise UsageError("consensus needs at least two annotation sets")
    out = Path(args.output)
    _check_output_dir(out, args.sets)
    sets = load_sets(args.sets, args.labels)
    result = build_consensus(sets, args.reliable)
    warn_left_out(result)
    inputs = [f for s in sets for f in s.paths]
    for name in (SUMMARY_FILE, DECISIONS_FILE):
        refuse_overwriting_inputs(out / name, inputs)
    out.mkdir(parents=True, exist_ok=True)
    write_papers(result.papers, "xml", out, inputs=inputs)
    with atomic_output(out / SUMMARY_FILE) as fh:
        json.dump(result.summary(), fh, indent=2)
        fh.write("\n")
    with atomic_output(out / DECISIONS_FILE) as fh:
        _write_decisions(result, fh)
    print(format_counts(result), end="")
    print(f"[coresc] wrote {len(result.papers)} consensus papers, {SUMMARY_FILE} and "
          f"{DECISIONS_FILE} to {out}", file=sys.stderr)
    return 0


def _check_output_dir(out: Path, sets: list[str]) -> None:
    if out.exists() and not out.is_dir():
        raise UsageError(f"{out}: exists and is not a directory")
    for s in map(Path, sets):
        if s.is_dir() and out.resolve() == s.resolve():
            raise UsageError(f"{out}: is an input annotation set; choose another -o")


def _write_decisions(result: ConsensusResult, fh) -> None:
    names = list(result.reliability)
    fh.write("\t".join(["paper", "sid", "rule", "gold", *names]) + "\n")
    for d in result.decisions:
        cells = [d["paper"], d["sid"], d["rule"], "|".join(d["gold"]),
                 *("|".join(a) for a in d["annotations"])]
        fh.write("\t".join(cells) + "\n")


def format_counts(result: ConsensusResult) -> str:
    """How many sentences each rule decided, as a small table."""
    total = sum(result.counts.values()) or 1
    lines = [f"reliable annotator: {result.reliable}",
             "mean agreement: " + ", ".join(f"{n} {v:.3f}"
                                            for n, v in result.reliability.items()),
             "", f"{'rule':<12}{'sentences':>10}{'%':>8}"]
    for rule in RULES:
        n = result.counts.get(rule, 0)
        lines.append(f"{rule:<12}{n:>10}{100 * n / total:>8.1f}")
    lines.append(f"{'total':<12}{sum(result.counts.values()):>10}")
    return "\n".join(lines) + "\n"
