"""Peak memory (RSS) of `coresc convert` and `coresc annotate --model fast` on dense XML.

Dense XML costs memory per node, not per byte: every element, attribute and text node
of the parsed tree is a C struct of 100-200 bytes, and every paragraph becomes Python
objects (a sentence, its paragraph). The files, made here (not kept), are JATS articles:

* ``x``: 20 MB of empty ``<x/>`` elements in one paragraph (about 5.2 million elements);
* ``paragraphs``: 52 MB of one-sentence paragraphs, ART corpus sentences under 60
  characters (as ``robustness_scaling.py --peak xml-paragraphs 52``: 947,608 of them);
* ``at-limit``: as many paragraphs as coresc reads (one below
  :data:`coresc.xmlsafe.MAX_XML_NODES`, counting the article's other nodes): the
  worst shape of XML that is read rather than refused.

Each command runs as a fresh process; its peak RSS is ru_maxrss of the waited-for child.
A refusal (exit 2, one line) is a correct answer for the first two.

    python benchmarks/dense_xml_memory.py                 # all cases
    python benchmarks/dense_xml_memory.py --only x        # one case
    PYTHONPATH=/path/to/old/checkout python benchmarks/dense_xml_memory.py   # another version
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

LIMIT_MB = 1024  # every case must stay under this

_MEASURE = """
import resource, subprocess, sys, time
t = time.perf_counter()
res = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
secs = time.perf_counter() - t
err = res.stderr.decode("utf-8", "replace").strip().splitlines()
print(res.returncode, secs, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
print(err[-1] if err else "")
"""

HEAD = (b'<?xml version="1.0" encoding="UTF-8"?>\n<article><front><article-meta>'
        b"<title-group><article-title>A dense paper</article-title></title-group>"
        b"</article-meta></front><body><sec><title>Results</title>\n")
TAIL = b"</sec></body></article>\n"


def write_x(path: Path, megabytes: float = 20) -> int:
    """``megabytes`` MB of ``<x/>`` in one paragraph; how many elements."""
    n = int(megabytes * 1e6) // 4
    with open(path, "wb") as fh:
        fh.write(HEAD + b"<p>" + b"<x/>" * n + b"</p>" + TAIL)
    return n


def write_paragraphs(path: Path, megabytes: float | None = 52, count: int | None = None) -> int:
    """One-sentence paragraphs up to ``megabytes`` MB (or ``count`` of them); how many."""
    from xml.sax.saxutils import escape

    from robustness_scaling import corpus_sentences

    sents = [escape(s).encode() for s in corpus_sentences() if len(s) < 60]
    n = 0
    size = len(HEAD)
    with open(path, "wb") as fh:
        fh.write(HEAD)
        while (count is None and size < megabytes * 1e6) or (count is not None and n < count):
            line = b"<p>" + sents[n % len(sents)] + b"</p>\n"
            fh.write(line)
            size += len(line)
            n += 1
        fh.write(TAIL)
    return n


def at_limit_count() -> int:
    """Paragraphs that bring the article to one node below the limit."""
    from coresc.xmlsafe import MAX_XML_NODES

    overhead = 8  # article, front, article-meta, title-group, article-title, body, sec, title
    return MAX_XML_NODES - overhead - 1


def peak(cmd: list[str]) -> tuple[int, float, float, str]:
    """(exit code, seconds, peak RSS in MB, last line of stderr) of ``cmd`` as a child."""
    res = subprocess.run([sys.executable, "-c", _MEASURE, *cmd], capture_output=True,
                         text=True, check=True)
    first, _, last = res.stdout.partition("\n")
    rc, secs, kb = first.split()
    return int(rc), float(secs), int(kb) / 1024, last.strip()


def run_case(name: str, path: Path, tmp: Path) -> bool:
    coresc = [sys.executable, "-m", "coresc"]
    size = path.stat().st_size / 1e6
    ok = True
    for verb in (["convert"], ["annotate", "--model", "fast"]):
        out = tmp / f"{name}-{verb[0]}.xml"
        rc, secs, mb, last = peak([*coresc, *verb, str(path), "-o", str(out)])
        met = mb < LIMIT_MB and rc in (0, 2) and (rc == 0 or "coresc" in last)
        ok &= met
        said = "wrote the output" if rc == 0 else f"exit {rc}: {last}"
        print(f"{name} ({size:.1f} MB) {verb[0]}: {secs:.1f}s, peak RSS {mb:,.0f} MB "
              f"({'met' if met else 'MISSED'} < {LIMIT_MB} MB); {said}", flush=True)
        out.unlink(missing_ok=True)
    return ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", choices=("x", "paragraphs", "at-limit"))
    args = ap.parse_args()
    print(f"load average: {os.getloadavg()[0]:.2f} (1 min)")
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        cases = {"x": lambda p: write_x(p), "paragraphs": lambda p: write_paragraphs(p),
                 "at-limit": lambda p: write_paragraphs(p, count=at_limit_count())}
        for name, make in cases.items():
            if args.only not in (None, name):
                continue
            path = tmp / f"{name}.nxml"
            n = make(path)
            print(f"made {name}: {n:,} {'elements' if name == 'x' else 'paragraphs'}")
            ok &= run_case(name, path, tmp)
            path.unlink()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
