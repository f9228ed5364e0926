"""What annotating PubMed Central's open-access subset costs (issue 51): papers per
second, sentences per CPU-second and peak memory of one worker, per model and per input
kind, and the projection to the whole subset.

Inputs, in PMC's shape (one ``PMC<id>.1/`` folder per article, with its metadata JSON):

* XML: the 10 JATS papers and the 50 of the CRA corpus in ../shared/data, laid out by
  ``benchmarks/pmc_shape.py`` (60 articles);
* PDF: the real PDFs of ../shared/data/pdf-pairs, each alone in its folder (a
  PDF-only article: coresc reads the PDF with its embedded reader).

Each (model, kind) runs ``coresc.annotate_files(folder, out.jsonl, to="jsonl")`` in a
fresh process pinned to one core (as one single-threaded cluster worker; the encoder
of ``accurate`` then uses one thread), after a warm-up on the bundled example paper
(start-up: imports, loading the model, is left out). CPU seconds are the process's and
its PDF reading children's; peak memory is the process's maximum resident set (the
model loaded, the papers read, labelled and written; a PDF's reading child is held to
768 MB apart from it, and Linux's figure for children is no help: it counts the pages a
child shares with its parent at the fork). Then the projection: ``--articles``
articles, ``--pdf-share`` of them PDF-only, each kind at its measured CPU seconds per
article, and what that costs at ``--price`` per vCPU-hour.

    python benchmarks/scale.py [--models fast,accurate] [--runs 1]
        [--articles 7000000] [--pdf-share 0.01] [--price 0.0425]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one core: numpy's BLAS would start threads

sys.path.insert(0, str(Path(__file__).parent))
from pmc_shape import FIRST_ID, make, source_papers  # noqa: E402

from coresc.config import data_dir  # noqa: E402

EXAMPLE = Path(__file__).resolve().parent.parent / "data" / "example-paper.xml"


def build(root: Path) -> dict[str, Path]:
    """The XML and PDF folders in PMC's shape."""
    xml = root / "xml"
    make(xml, len(source_papers(data_dir())), newer_every=0, retracted_every=0)
    pdf = root / "pdf"
    for i, src in enumerate(sorted((data_dir() / "pdf-pairs").glob("*/paper.pdf"))):
        name = f"PMC{FIRST_ID + 500 + i}.1"
        (pdf / name).mkdir(parents=True)
        shutil.copyfile(src, pdf / name / f"{name}.pdf")
    return {"xml": xml, "pdf": pdf}


def _children() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def once(folder: Path, model: str) -> dict:
    """In a fresh process on one core: warm up, then annotate the folder, measured."""
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    from coresc.batch import annotate_files

    with tempfile.TemporaryDirectory() as tmp:
        annotate_files([EXAMPLE], Path(tmp) / "warm.jsonl", to="jsonl", model=model,
                       progress="off")
        cpu, kids = time.process_time(), _children()
        summary = annotate_files([folder], Path(tmp) / "out.jsonl", to="jsonl",
                                 model=model, progress="off")
        cpu = time.process_time() - cpu + _children() - kids
    return {"papers": summary.papers, "sentences": summary.sentences,
            "failed": len(summary.failures), "wall": summary.seconds, "cpu": cpu,
            "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def measure(folders: dict[str, Path], models: list[str], runs: int) -> dict:
    """Per (model, kind): the median run by CPU seconds, and the largest peak memory."""
    found = {}
    for model in models:
        for kind, folder in folders.items():
            results = []
            for _ in range(runs):
                out = subprocess.run([sys.executable, __file__, "--once", str(folder),
                                      model], check=True, capture_output=True, text=True)
                results.append(json.loads(out.stdout.splitlines()[-1]))
            med = sorted(results, key=lambda r: r["cpu"])[len(results) // 2]
            med["rss_mb"] = max(r["rss_mb"] for r in results)
            med["cpu_runs"] = [round(r["cpu"], 2) for r in results]
            found[(model, kind)] = med
    return found


def report(found: dict, args: argparse.Namespace) -> None:
    print("\n| model | input | papers | sentences | failed | wall s | CPU s | papers/s "
          "(1 core) | sentences per CPU-s | CPU s per paper | peak RSS MB (worker) |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for (model, kind), r in found.items():
        print(f"| `{model}` | {kind.upper()} | {r['papers']} | {r['sentences']:,} | "
              f"{r['failed']} | {r['wall']:.1f} | {r['cpu']:.1f} (runs {r['cpu_runs']}) | "
              f"{r['papers'] / r['wall']:.2f} | {r['sentences'] / r['cpu']:,.0f} | "
              f"{r['cpu'] / r['papers']:.3f} | {r['rss_mb']:.0f} |")
    mean = {kind: statistics.fmean(r["sentences"] / r["papers"]
                                   for (m, k), r in found.items() if k == kind)
            for kind in ("xml", "pdf")}
    print(f"\nmean sentences per article measured: XML {mean['xml']:.0f}, PDF "
          f"{mean['pdf']:.0f}")
    print(f"projection: {args.articles:,} articles at ${args.price} per vCPU-hour; the "
          f"assumed share PDF-only is {100 * args.pdf_share:g}%, the others bound it")
    print("\n| model | PDF-only share | CPU-hours | cost | wall time on 1,000 vCPUs |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for model in dict.fromkeys(m for m, _ in found):
        for pdf in sorted({0.0, args.pdf_share, 0.1, 1.0}):
            hours = cpu_hours(found, model, args.articles, pdf)
            print(f"| `{model}` | {100 * pdf:g}% | {hours:,.0f} | "
                  f"${hours * args.price:,.0f} | {hours / 1000:,.2f} h |")


def cpu_hours(found: dict, model: str, articles: int, pdf_share: float) -> float:
    """CPU-hours of ``articles`` with ``pdf_share`` of them PDF-only, each kind at its
    measured CPU seconds per article."""
    share = {"xml": 1 - pdf_share, "pdf": pdf_share}
    return sum(articles * share[k] * found[(model, k)]["cpu"] / found[(model, k)]["papers"]
               for k in share) / 3600


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default="fast,accurate")
    ap.add_argument("--runs", type=int, default=1, help="fresh processes per measure")
    ap.add_argument("--articles", type=int, default=7_000_000)
    ap.add_argument("--pdf-share", type=float, default=0.01,
                    help="share of the articles that are PDF-only (an assumption)")
    ap.add_argument("--price", type=float, default=0.0425,
                    help="US dollars per vCPU-hour (an assumption; see docs/scale.md)")
    ap.add_argument("--once", nargs=2, metavar=("FOLDER", "MODEL"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.once:
        print(json.dumps(once(Path(args.once[0]), args.once[1])))
        return 0
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {os.cpu_count()} CPUs; "
          f"load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        folders = build(Path(tmp))
        found = measure(folders, args.models.split(","), args.runs)
    report(found, args)
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
