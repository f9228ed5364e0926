"""Time and peak memory of the sentence splitter and the POS tagger against input size.

Each measurement runs in a fresh process (peak memory is that process's maximum resident
set, start-up included), on three kinds of text of 1 KB to 50 MB:

* ``prose``: sentences of the ART corpus (../shared/data/art-corpus) repeated, in
  paragraphs of five;
* ``dots``: one word, then a run of "." (the splitter was quadratic on it);
* ``run-on``: one unpunctuated "sentence" of corpus words (the tagger was quadratic on it).

``split`` times :func:`coresc.split.split_offsets` on the whole text; ``tag`` times
tokenising and POS-tagging the split sentences in blocks of 5,000 (as annotating does).
Times are CPU seconds of the measuring process (``time.process_time``), so a busy
machine does not distort them. Linear time shows as a constant time per MB.
``--annotate MB`` instead annotates a text of that size with ``coresc annotate --model
fast`` and prints its peak memory. ``--peak INPUT MB`` runs one command on one input
of that size and prints its peak memory (issue 32): ``sentence`` (one unpunctuated
sentence as a text file), ``jsonl-sentence`` (the same as one JSONL sentence between two
short ones), ``xml-paragraphs`` (a JATS article whose body is one section of one-sentence
paragraphs), with ``--verb``, ``--model`` and ``--to``; ``--stages INPUT MB`` prints
this process's memory after each step of annotating one (``--model``, default fast).

    python benchmarks/robustness_scaling.py                     # 1 KB .. 50 MB
    python benchmarks/robustness_scaling.py --sizes 1e3 1e6     # chosen sizes (bytes)
    python benchmarks/robustness_scaling.py --annotate 50       # peak memory, 50 MB text
    python benchmarks/robustness_scaling.py --peak sentence 4 --model accurate
    python benchmarks/robustness_scaling.py --peak xml-paragraphs 52 --verb convert --to xml
    python benchmarks/robustness_scaling.py --stages xml-paragraphs 10   # memory by step
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

SIZES = (1e3, 1e4, 1e5, 1e6, 1e7, 5e7)
KINDS = ("prose", "dots", "run-on")
BLOCK = 5_000  # sentences tagged per call, as coresc.batch.work.MAX_SEQUENCE


def corpus_sentences(limit: int = 3000) -> list[str]:
    from coresc.config import data_dir
    from coresc.readers import read_corpus

    out: list[str] = []
    for paper in read_corpus([data_dir() / "art-corpus"]):
        out += [s.text for s in paper.sentences() if s.text]
        if len(out) >= limit:
            break
    return out


def make_text(kind: str, size: int) -> str:
    """About ``size`` characters of the given kind."""
    if kind == "dots":
        return "Start" + "." * max(size - 5, 1)
    sents = corpus_sentences()
    if kind == "run-on":
        words = " ".join(sents).replace(".", " ").replace("?", " ").replace("!", " ").split()
        text = " ".join(words)
    else:
        paras = [" ".join(sents[i:i + 5]) for i in range(0, len(sents), 5)]
        text = "\n\n".join(paras)
    return (text * (size // len(text) + 1))[:size]


def measure(kind: str, size: int, what: str) -> dict:
    """Run in this (fresh) process: build the text, time one step, report peak memory."""
    text = make_text(kind, size)
    from coresc.split import split, split_offsets

    if what == "split":
        t0 = time.process_time()
        n = len(split_offsets(text))
        seconds = time.process_time() - t0
    else:
        from coresc.pos import load_default
        from coresc.tokenize import tokenize

        tagger = load_default()
        sentences = [s for para in text.split("\n\n") for s in split(para)]
        t0 = time.process_time()
        n = 0
        for start in range(0, len(sentences), BLOCK):
            tokens = [tokenize(s) for s in sentences[start:start + BLOCK]]
            n += sum(map(len, tagger.tag_many(tokens)))
        seconds = time.process_time() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {"kind": kind, "bytes": size, "what": what, "seconds": seconds,
            "units": n, "peak_mb": peak / 1e6}


def run_child(kind: str, size: int, what: str) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", kind, str(size), what],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def annotate_peak(mb: float) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "big.txt")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write("A long text\n\n" + make_text("prose", int(mb * 1e6)))
        out = os.path.join(tmp, "big.tsv")
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "coresc", "annotate", path, "--model",
                               "fast", "--to", "tsv", "-o", out, "-q"],
                              capture_output=True, text=True)
        seconds = time.perf_counter() - t0
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu, peak = usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024
        lines = sum(1 for _ in open(out, encoding="utf-8")) - 1 if proc.returncode == 0 else 0
    print(f"annotate --model fast --to tsv, {mb:g} MB of prose: exit {proc.returncode}, "
          f"{lines} sentences, {seconds:.0f} s ({cpu:.0f} CPU s), peak memory {peak / 1e6:.0f} MB"
          f"{' ' + proc.stderr.strip() if proc.returncode else ''}")


PEAK_INPUTS = ("sentence", "jsonl-sentence", "xml-paragraphs")


def write_input(kind: str, size: int, folder: str) -> str:
    """Write a ``--peak`` input of about ``size`` bytes into ``folder``; its path."""
    if kind == "xml-paragraphs":
        from xml.sax.saxutils import escape

        sents = [escape(s) for s in corpus_sentences() if len(s) < 60]
        head = ('<?xml version="1.0" encoding="UTF-8"?>\n<article><front><article-meta>'
                "<title-group><article-title>Many paragraphs</article-title></title-group>"
                "</article-meta></front><body><sec><title>Results</title>\n")
        path = os.path.join(folder, "paragraphs.xml")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(head)
            n = written = 0
            while written < size:
                para = f"<p>{sents[n % len(sents)]}</p>\n"
                fh.write(para)
                written, n = written + len(para), n + 1
            fh.write("</sec></body></article>\n")
        return path
    text = make_text("run-on", size)
    if kind == "jsonl-sentence":
        path = os.path.join(folder, "sentence.jsonl")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(json.dumps({"id": "big", "sentences": ["A title.", text, "The end."]})
                     + "\n")
        return path
    path = os.path.join(folder, "sentence.txt")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    return path


def command_peak(kind: str, mb: float, verb: str, model: str | None, to: str) -> None:
    """Run one command on a ``--peak`` input; print its exit, time and peak memory."""
    with tempfile.TemporaryDirectory() as tmp:
        path = write_input(kind, int(mb * 1e6), tmp)
        out = os.path.join(tmp, f"out.{to}")
        argv = [sys.executable, "-m", "coresc", verb, path, "--to", to, "-o", out]
        argv += ["--model", model] if model else []
        t0 = time.perf_counter()
        proc = subprocess.run(argv, capture_output=True, text=True)
        seconds = time.perf_counter() - t0
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    what = f"{verb}{' --model ' + model if model else ''} --to {to}, {mb:g} MB {kind}"
    print(f"{what}: exit {proc.returncode}, {seconds:.0f} s "
          f"({usage.ru_utime + usage.ru_stime:.0f} CPU s), peak memory "
          f"{usage.ru_maxrss * 1024 / 1e6:.0f} MB"
          f"{' ' + proc.stderr.strip()[-300:] if proc.returncode else ''}")


def stage_memory(kind: str, mb: float, model: str) -> None:
    """Resident and peak memory of this process after each step of annotating a
    ``--peak`` input to TSV: read, source tree freed, model loaded, annotated, rendered."""
    from coresc.batch.work import annotate_paper, release_sources, render
    from coresc.model import CoreSCClassifier
    from coresc.model.storage import resolve_model
    from coresc.readers import read_file

    def report(step: str) -> None:
        with open("/proc/self/statm") as fh:
            resident = int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        print(f"{step:16} resident {resident / 1e6:6.0f} MB   peak {peak / 1e6:6.0f} MB",
              flush=True)

    with tempfile.TemporaryDirectory() as tmp:
        # written by a child, so the corpus read to make it is not in this process
        path = subprocess.run([sys.executable, __file__, "--write", kind, str(mb), tmp],
                              capture_output=True, text=True, check=True).stdout.strip()
        report("start")
        papers = read_file(path)
        report("read")
    print(f"{sum(map(len, papers))} sentences")
    release_sources(papers)
    report("tree freed")
    classifier = CoreSCClassifier.load(resolve_model(model))
    report("model loaded")
    for paper in papers:
        annotate_paper(classifier, paper)
    report("annotated")
    render(papers, "tsv")
    report("rendered")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", type=float, default=SIZES)
    parser.add_argument("--kinds", nargs="+", default=KINDS, choices=KINDS)
    parser.add_argument("--what", nargs="+", default=("split", "tag"),
                        choices=("split", "tag"))
    parser.add_argument("--annotate", type=float, metavar="MB")
    parser.add_argument("--peak", nargs=2, metavar=("INPUT", "MB"))
    parser.add_argument("--verb", default="annotate", choices=("annotate", "convert"))
    parser.add_argument("--model", help="annotate's --model (default: the default model)")
    parser.add_argument("--to", default="tsv")
    parser.add_argument("--stages", nargs=2, metavar=("INPUT", "MB"),
                        help="memory after each step, in this process (Linux)")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--write", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.write:
        print(write_input(args.write[0], int(float(args.write[1]) * 1e6), args.write[2]))
        return
    if args.stages:
        stage_memory(args.stages[0], float(args.stages[1]), args.model or "fast")
        return
    if args.peak:
        if args.peak[0] not in PEAK_INPUTS:
            parser.error(f"--peak INPUT must be one of {', '.join(PEAK_INPUTS)}")
        command_peak(args.peak[0], float(args.peak[1]), args.verb, args.model, args.to)
        return
    if args.child:
        kind, size, what = args.child
        print(json.dumps(measure(kind, int(size), what)))
        return
    if args.annotate:
        annotate_peak(args.annotate)
        return
    print(f"{'step':6} {'kind':7} {'size':>8} {'CPU s':>9} {'s per MB':>9} {'peak MB':>8}")
    for what in args.what:
        for kind in args.kinds:
            for size in map(int, args.sizes):
                r = run_child(kind, size, what)
                print(f"{what:6} {kind:7} {size / 1e6:7.3f}M {r['seconds']:9.3f} "
                      f"{r['seconds'] / (size / 1e6):9.3f} {r['peak_mb']:8.0f}", flush=True)


if __name__ == "__main__":
    main()
