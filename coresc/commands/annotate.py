"""Label every sentence of the given papers with CoreSC roles (primary + ranked secondary).

INPUT may be files, directories (read recursively: .xml .nxml .txt .jsonl .pdf and
archives; files of other types are listed as skipped) or - for standard input, in any
readable format (JATS, Elsevier, GROBID TEI, SciXML/ART, mode2, plain text, JSONL).
PubMed Central as distributed is read as it comes: one PMC<id>.<version>/ folder per
article version (its XML, else its PDF, with the metadata JSON as provenance), .tar.gz /
.tgz / .zip archives member by member without unpacking (MECA zips: the JATS their
manifest names), and PMC's inventory CSV (.csv, .csv.gz) as the list of inputs; a
folder, file or archive may be an fsspec URL (s3://pmc-oa-opendata/ ..., with the remote
extra); of two versions of an article the newer is annotated, and --resume replaces an
older version's records by the newer's. PDFs are read by the embedded reader, or by a
GROBID server (--grobid URL or $CORESC_GROBID_URL). Without --model the bundled model is
used (offline). XML output is the input's own dialect: TEI input (and PDFs) gives TEI,
each <s> carrying ana/coresc:score; other XML gives mode2 with CoreSc1..CoreSc3 elements
in each sentence (--to mode2 gives mode2 for all). JSONL/TSV records gain "pred", the
ranked labels with scores, and end with the provenance. --to bioc, bioc-json, w3c (W3C
Web Annotation), pubannotation and parquet write what text-mining hubs and analysis
tools take in, each record with the article's identifiers, licence and the model
(docs/formats.md). --to pdf gives a PDF read by the embedded reader back, unchanged,
with each labelled sentence highlighted in its label's colour, the label and scores in
each highlight's note (the pdf extra). Output goes to stdout without -o (parquet and
pdf need -o FILE); several papers as xml, html, pubannotation or pdf need -o DIRECTORY.

Papers are streamed: each is read, annotated and written before the next, every file
atomically; a JSONL/TSV output is assembled in input order at the end. A manifest
beside the output (OUT/coresc-manifest.ndjson, or OUT.manifest.ndjson for a JSONL/TSV
file) records each input with its hash, the model and the outcome. Files that cannot
be read are listed at the end, the others are still annotated (exit code 1). Ctrl-C
(or SIGTERM) keeps what is finished and exits with 130; --resume continues the run,
retrying failed files. Progress shows on stderr (a bar on a terminal, a line every
10 s otherwise; --quiet for none).

examples:
  coresc annotate paper.nxml > paper_annotated.xml
  coresc annotate papers/ -o annotated/                 # one annotated/<id>.xml each
  coresc annotate papers/ -o labels.jsonl --to jsonl --jobs 2
  coresc annotate papers/ -o annotated/ --resume        # after Ctrl-C: continue
  coresc annotate paper.xml --model my-model/ --to tsv
  coresc annotate paper.pdf --grobid http://localhost:8070 -o paper.tei.xml
  coresc annotate paper.pdf --to pdf -o paper.coresc.pdf   # highlighted in label colours
  coresc annotate - --to tsv < paper.nxml
  coresc annotate papers/ -o annotated/ --scheduler tcp://10.0.0.5:8786   # Dask cluster
  coresc annotate papers/ -o sure.jsonl --to jsonl --min-score 0.7   # fewer, surer labels
  coresc annotate pmc-mirror/ -o out/ --licence cc-by,cc0 --retracted skip --jobs 2
  coresc annotate oa_comm_xml.PMC000xxxxxx.baseline.tar.gz -o out.jsonl --to jsonl
"""

from __future__ import annotations

import argparse
import shlex
import signal
import sys

from .options import (
    OUTPUT_ANY,
    add_domain_argument,
    add_format_argument,
    add_grobid_arguments,
    add_limit_arguments,
    add_model_argument,
)

WRITE_FORMATS = ("xml", "mode2", "jsonl", "tsv", "html", "bioc", "bioc-json", "w3c",
                 "pubannotation", "parquet", "pdf")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("inputs", nargs="+", metavar="INPUT", help="paper files or directories")
    parser.add_argument("-o", "--output", type=OUTPUT_ANY, metavar="OUT",
                        help="output file, or directory for several papers as xml "
                             "(default: stdout); with --scheduler also an fsspec URL")
    parser.add_argument("--to", default="xml", choices=WRITE_FORMATS,
                        help="output format (default: xml: TEI for TEI/PDF input, else "
                             "SAPIENTA mode2 with CoreSc1..3)")
    add_model_argument(parser)
    add_format_argument(parser)
    add_domain_argument(parser)
    add_grobid_arguments(parser)
    add_limit_arguments(parser, annotating=True)
    parser.add_argument("-j", "--jobs", type=int, default=1, metavar="N",
                        help="worker processes, each loading the model once (default 1); "
                             "the output is the same as with one")
    parser.add_argument("--resume", action="store_true",
                        help="continue an interrupted run into the same -o: files the "
                             "manifest records as done (same content, same model) are "
                             "skipped, failed ones retried")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="no progress and no summary line (errors are still shown)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="run on a Dask cluster (e.g. tcp://host:8786); workers write "
                             "the outputs themselves, so -o must be a shared folder or URL "
                             "(needs: pip install 'coresc[dask]')")
    parser.add_argument("--batch-size", type=int, metavar="N",
                        help="with --scheduler: files per Dask task (default: chosen from "
                             "the number of files and workers)")
    parser.add_argument("--licence", "--license", dest="licence", metavar="CODES",
                        type=lambda v: [c for c in v.split(",") if c.strip()],
                        help="keep only articles under these licences, comma-separated "
                             "(e.g. cc-by,cc0: the commercial-use set); an article whose "
                             "licence is not known is left out")
    parser.add_argument("--retracted", choices=("flag", "skip"), default="flag",
                        help="a retracted article (PMC's metadata says so): annotate it "
                             "with retracted=true in its records (flag, the default) or "
                             "leave it out (skip)")
    # a plain float: its own check refuses NaN too, saying the range as serve's min_score
    parser.add_argument("--min-score", type=float, default=None, metavar="X",
                        help="leave sentences whose primary label scores below X (a "
                             "probability, 0-1) without a label, and drop labels below X; "
                             "see the accuracy/coverage curve of `coresc report`")
    parser.add_argument("--labels", metavar="CODES",
                        help="with --to pdf: highlight only sentences whose label is one "
                             "of these CoreSC codes, comma-separated (Hyp,Goa,Res)")


def run(args: argparse.Namespace) -> int:
    from ..batch import Interrupted, annotate_files
    from .options import grobid_of, limits_of

    previous = signal.signal(signal.SIGTERM, _terminated)
    try:
        with limits_of(args):
            summary = annotate_files(
                args.inputs, args.output, to=args.to, model=args.model, fmt=args.format,
                domain=args.domain, jobs=args.jobs, scheduler=args.scheduler,
                resume=args.resume, progress="off" if args.quiet else "auto",
                batch_size=args.batch_size, grobid=grobid_of(args), min_score=args.min_score,
                licences=args.licence, retracted=args.retracted,
                labels=args.labels.split(",") if args.labels is not None else None)
    except Interrupted as exc:
        print(f"coresc annotate: {interrupted_message(exc.summary, args)}", file=sys.stderr)
        return 128 + signal.SIGINT
    finally:
        signal.signal(signal.SIGTERM, previous)
    return report(summary, args)


def _terminated(signum, frame) -> None:
    from ..batch import Terminated

    raise Terminated()


def interrupted_message(summary, args: argparse.Namespace) -> str:
    """How many files were finished, where they are, and how to continue."""
    if summary.manifest is None:
        where = "stdout" if args.output is None else args.output
        return (f"interrupted: {summary.done} of {summary.total} file(s) finished "
                f"({summary.sentences} sentences written to {where})")
    argv = list(getattr(args, "_argv", None) or sys.argv[1:])
    if "--resume" not in argv:
        argv.append("--resume")
    return (f"interrupted: {summary.finished} of {summary.total} file(s) done, kept in "
            f"{summary.kept} (listed in {summary.manifest}); to continue: "
            f"{shlex.join(['coresc', *argv])}")


def _left_out(summary, args: argparse.Namespace) -> None:
    """One line each for the articles --licence / --retracted left out and the older
    versions a newer one replaced (not errors)."""
    if args.quiet:
        return
    if summary.excluded:
        print(f"coresc annotate: left out {len(summary.excluded)} article(s) by --licence "
              f"or --retracted (listed in {summary.manifest or 'no manifest'}), e.g. "
              f"{summary.excluded[0].error}", file=sys.stderr)
    if summary.older_versions:
        print(f"coresc annotate: left out {len(summary.older_versions)} older article "
              f"version(s), a newer one being among the inputs, e.g. "
              f"{summary.older_versions[0]}", file=sys.stderr)


def report(summary, args: argparse.Namespace) -> int:
    """The summary line, then the failed files; the exit code (0, 1, or 2: none done)."""
    if not args.quiet and (summary.done or summary.skipped):
        before = f" ({summary.skipped} file(s) done before, skipped)" if summary.skipped else ""
        print(f"[coresc] annotated {summary.sentences} sentences of {summary.papers} "
              f"paper(s) in {summary.seconds:.1f}s -> {summary.output}{before}",
              file=sys.stderr)
    for line in summary.warnings:
        print(f"coresc annotate: warning: {line}", file=sys.stderr)
    for oc in summary.failures:
        print(f"coresc annotate: error: {oc.error}", file=sys.stderr)
    if summary.other_types:
        from .options import skipped_line

        print(f"coresc annotate: {skipped_line(summary.other_types)}", file=sys.stderr)
    _left_out(summary, args)
    if not summary.failures:
        return 0
    n = len(summary.failures)
    retry = f"; they are marked failed in {summary.manifest} and --resume retries them" \
        if summary.manifest else ""
    if n > 1 or summary.done or summary.skipped:
        print(f"coresc annotate: {n} of {summary.total} file(s) could not be annotated{retry}",
              file=sys.stderr)
    return 1 if summary.done or summary.skipped else 2

