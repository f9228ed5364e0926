"""Label every sentence of the given papers with CoreSC roles (primary + ranked secondary).

INPUT may be files, directories (read recursively: .xml .nxml .txt .jsonl .pdf; files
of other types are listed as skipped) or - for standard input, in any readable format
(JATS, Elsevier, GROBID TEI, SciXML/ART, mode2, plain text, JSONL). PDFs are read
through a GROBID server (--grobid URL or $CORESC_GROBID_URL). Without --model the
bundled model is used (offline). XML output is the input's own dialect: TEI input
(and PDFs) gives TEI, each <s> carrying ana/coresc:score; other XML gives mode2 with
CoreSc1..CoreSc3 elements in each sentence (--to mode2 gives mode2 for all). JSONL/TSV
records gain "pred", the ranked labels with scores. Output goes to stdout without -o;
several papers as xml need -o DIRECTORY. Files that cannot be read are listed at the
end, the others are still annotated (exit code 1).

examples:
  coresc annotate paper.nxml > paper_annotated.xml
  coresc annotate papers/ -o annotated/                 # one annotated/<id>.xml each
  coresc annotate papers/ -o labels.jsonl --to jsonl
  coresc annotate paper.xml --model my-model/ --to tsv
  coresc annotate paper.pdf --grobid http://localhost:8070 -o paper.tei.xml
  coresc annotate - --to tsv < paper.nxml
"""

from __future__ import annotations

import argparse
import sys
import time

from .convert import add_grobid_arguments

WRITE_FORMATS = ("xml", "mode2", "jsonl", "tsv", "html")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("inputs", nargs="+", metavar="INPUT", help="paper files or directories")
    parser.add_argument("-o", "--output", metavar="OUT",
                        help="output file, or directory for several papers as xml "
                             "(default: stdout)")
    parser.add_argument("--to", default="xml", choices=WRITE_FORMATS,
                        help="output format (default: xml: TEI for TEI/PDF input, else "
                             "SAPIENTA mode2 with CoreSc1..3)")
    parser.add_argument("--model", metavar="MODEL",
                        help="model directory, or a bundled model: 'fast' (the default, "
                             "hand-built features) or 'accurate' (with a sentence encoder)")
    parser.add_argument("--format", default="auto", help="input format (default: auto)")
    parser.add_argument("--domain", metavar="NAME",
                        help="decode as papers of this training corpus (models trained "
                             "with --domains corpus); default: the shared weights")
    add_grobid_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from ..readers import find_inputs
    from ..writers import write_papers
    from .convert import grobid_of, read_for_command, report_errors, wants_directory
    from .evaluate import load_model, set_domain

    grobid = grobid_of(args)  # a bad --grobid URL fails before the model loads
    model = load_model(args.model)  # fail on a bad model before reading anything
    t0 = time.monotonic()
    papers, errors, files = read_for_command("annotate", args.inputs, args.format, grobid)
    set_domain(model, papers, args.domain)
    model.annotate(papers)
    n = sum(len(p) for p in papers)
    written = write_papers(papers, args.to, args.output, inputs=files,
                           as_directory=wants_directory(args.inputs))
    secs = time.monotonic() - t0
    where = "stdout" if not written else (
        str(written[0]) if len(written) == 1 else f"{len(written)} files in {args.output}")
    print(f"[coresc] annotated {n} sentences of {len(papers)} paper(s) in {secs:.1f}s "
          f"-> {where}", file=sys.stderr)
    return report_errors("annotate", errors, len(files), find_inputs(args.inputs).skipped)
