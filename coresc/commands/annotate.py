"""Label every sentence of the given papers with CoreSC roles (primary + ranked secondary).

INPUT may be files or directories (read recursively: .xml .nxml .txt .jsonl), in any
readable format (JATS, Elsevier, SciXML/ART, mode2, plain text, JSONL). Without
--model the bundled model is used (offline). XML output adds CoreSc1..CoreSc3 elements
to each sentence; JSONL/TSV records gain "pred", the ranked labels with scores.
Output goes to stdout without -o; several papers as xml need -o DIRECTORY. Files that
cannot be read are listed at the end, the others are still annotated (exit code 1).

examples:
  coresc annotate paper.nxml > paper_annotated.xml
  coresc annotate papers/ -o annotated/                 # one annotated/<id>.xml each
  coresc annotate papers/ -o labels.jsonl --to jsonl
  coresc annotate paper.xml --model my-model/ --to tsv
  coresc annotate papers/ -o sure.jsonl --to jsonl --min-score 0.7   # fewer, surer labels
"""

from __future__ import annotations

import argparse
import sys
import time

from ..errors import UsageError

WRITE_FORMATS = ("xml", "jsonl", "tsv", "html")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("inputs", nargs="+", metavar="INPUT", help="paper files or directories")
    parser.add_argument("-o", "--output", metavar="OUT",
                        help="output file, or directory for several papers as xml "
                             "(default: stdout)")
    parser.add_argument("--to", default="xml", choices=WRITE_FORMATS,
                        help="output format (default: xml, SAPIENTA mode2 with CoreSc1..3)")
    parser.add_argument("--model", metavar="MODEL_DIR",
                        help="model directory (default: the bundled model)")
    parser.add_argument("--format", default="auto", help="input format (default: auto)")
    parser.add_argument("--domain", metavar="NAME",
                        help="decode as papers of this training corpus (models trained "
                             "with --domains corpus); default: the shared weights")
    parser.add_argument("--min-score", type=float, default=None, metavar="X",
                        help="leave sentences whose primary label scores below X (a "
                             "probability, 0-1) without a label, and drop labels below X; "
                             "see the accuracy/coverage curve of `coresc report`")


def run(args: argparse.Namespace) -> int:
    from ..writers import write_papers
    from .convert import read_for_command, report_errors, wants_directory
    from .evaluate import load_model, set_domain

    check_min_score(args.min_score)
    model = load_model(args.model)  # fail on a bad model before reading anything
    t0 = time.monotonic()
    papers, errors, files = read_for_command("annotate", args.inputs, args.format)
    set_domain(model, papers, args.domain)
    model.annotate(papers, min_score=args.min_score)
    n = sum(len(p) for p in papers)
    written = write_papers(papers, args.to, args.output, inputs=files,
                           as_directory=wants_directory(args.inputs))
    secs = time.monotonic() - t0
    where = "stdout" if not written else (
        str(written[0]) if len(written) == 1 else f"{len(written)} files in {args.output}")
    print(f"[coresc] annotated {n} sentences of {len(papers)} paper(s) in {secs:.1f}s "
          f"-> {where}", file=sys.stderr)
    return report_errors("annotate", errors, len(files))


def check_min_score(value: float | None) -> None:
    if value is not None and not 0.0 <= value <= 1.0:
        raise UsageError(f"--min-score must be a probability between 0 and 1, not {value}")
