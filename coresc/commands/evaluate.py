"""Evaluate a trained model on gold-labelled corpora: accuracy, per-label P/R/F1, kappas.

The model annotates every paper of CORPUS (files or directories, any readable format
with gold labels); sentences without a gold label are left out of the scores. Prints
the metrics table (primary label, the five agreement kappas, secondary labels).

A paper given twice (a file or folder named twice, a copy under another name: the same
text) is scored once, with a note.

Papers the model was trained on (same text or same id as a paper in its meta.json) score
in-sample: the report then says so at the top, and scores the held-out papers again on
their own. Only held-out scores say how the model does on new papers.

Every score comes with a 95% interval over papers (a t interval on the delete-one-paper
jackknife: sentences of one paper are not independent; papers from several corpora are
stratified by corpus), with the number of papers and sentences beside it, and a line of
caution under 20 papers. One paper gives no interval, and the report says so.

examples:
  coresc train ../shared/data/art-corpus -o art-model/
  coresc evaluate --model art-model/ ../shared/data/cra-corpus    # held out: ART only
  coresc evaluate --model my-model/ test-papers/ --json scores.json
"""

from __future__ import annotations

import argparse
import json
import sys

from ..errors import UsageError
from .options import (
    OUTPUT_FILE,
    add_domain_argument,
    add_format_argument,
    add_model_argument,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("corpora", nargs="+", metavar="CORPUS",
                        help="gold-labelled paper files or directories")
    add_model_argument(parser)
    add_format_argument(parser)
    parser.add_argument("--json", type=OUTPUT_FILE, metavar="FILE",
                        help="also write the scores as JSON (each interval beside its score: "
                             "'accuracy', 'accuracy_ci': [low, high])")
    add_domain_argument(parser)


def run(args: argparse.Namespace) -> int:
    from ..evaluation import check_label_sets, evaluate_papers, format_report
    from ..model.provenance import seen_in_training
    from ..model.storage import resolve_model
    from ..pipeline import open_model
    from ..readers import read_corpus
    from .options import corpus_groups, each_paper_once

    model = open_model(args.model)
    papers, repeats = each_paper_once(read_corpus(args.corpora, args.format), "evaluate")
    try:
        check_label_sets((c for p in papers for s in p.sentences() for c in s.gold_codes),
                         model.labels_, ", ".join(args.corpora),
                         f"the model {resolve_model(args.model).name}")
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    set_domain(model, papers, args.domain)
    model.annotate(papers)
    groups = corpus_groups(papers, args.corpora)
    try:
        result = evaluate_papers(papers, intervals=True, groups=groups)
    except ValueError as exc:
        raise UsageError(f"{', '.join(args.corpora)}: {exc}") from None
    try:
        seen = seen_in_training(model.meta_, papers)
    except LookupError:
        seen = None
    held_groups = [g for g, s in zip(groups, seen or [], strict=False) if not s]
    held = [p for p, s in zip(papers, seen or [], strict=False) if not s]
    # Scored apart only when some papers were seen: when none was, the report above is
    # already the held-out one (and held_out stays null in the JSON).
    held_result = (_scores_or_none(
        lambda ps: evaluate_papers(ps, intervals=True, groups=held_groups), held)
        if seen and any(seen) and held else None)
    result["training_overlap"] = overlap = _overlap(papers, seen)
    result["repeats_left_out"] = repeats
    overlap["held_out"] = held_result
    sys.stdout.write(_overlap_lines(overlap))
    sys.stdout.write(format_report(result))
    if held_result is not None:
        sys.stdout.write(f"\nheld-out papers only ({len(held)} of {len(papers)}, never seen "
                         "in training):\n\n" + format_report(held_result))
    if args.json:
        from ..writers import atomic_output

        with atomic_output(args.json) as fh:
            json.dump(result, fh, indent=1)
    return 0


def _scores_or_none(evaluate, papers):
    try:
        return evaluate(papers)
    except ValueError:  # the held-out papers carry no gold label
        return None


def _overlap(papers, seen) -> dict:
    """Which evaluated papers the model was trained on (``seen`` None: not recorded)."""
    if seen is None:
        return {"known": False}
    return {"known": True, "n_papers": len(papers),
            "seen": [{"paper": p.id, "match": s} for p, s in zip(papers, seen, strict=True)
                     if s],
            "n_seen_sentences": sum(1 for p, s in zip(papers, seen, strict=True) if s
                                    for x in p.sentences() if x.gold)}


def _overlap_lines(overlap: dict) -> str:
    """The warning at the top of the report."""
    if not overlap["known"]:
        return ("training papers: not recorded by this model, so it cannot tell whether "
                "these scores are held-out\n\n")
    n_seen = len(overlap["seen"])
    if not n_seen:
        return (f"held-out: none of the {overlap['n_papers']} papers was in the model's "
                "training data\n\n")
    held = overlap["held_out"]
    return (f"WARNING: IN-SAMPLE. {n_seen} of {overlap['n_papers']} papers "
            f"({overlap['n_seen_sentences']} gold sentences) were in this model's training "
            "data; the scores below include them and overstate accuracy on new papers. "
            + ("The held-out papers are scored on their own at the end."
               if held else "No held-out paper is left to score.") + "\n\n")


def set_domain(model, papers, name: str | None) -> None:
    """Mark ``papers`` as from training corpus ``name``; the model must know that corpus."""
    if name is None:
        return
    from ..pipeline import check_domain

    check_domain(model, name)
    for paper in papers:
        paper.meta["corpus"] = name
