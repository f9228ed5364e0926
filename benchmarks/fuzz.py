"""The long fuzz run: a large hostile corpus through the command line, then the property
tests with many examples.

Writes ``tests/hostile.py``'s corpus with ``--mutants`` truncated and ``--mutants``
byte-flipped copies of every dialect's fixture, runs ``coresc annotate`` (to every output
format) and ``coresc convert`` over the folder in fresh processes, and counts what the
issue's targets count: tracebacks, hangs (past ``--timeout``), memory blow-ups (peak past
``--max-mb``), outputs that do not parse, and inputs changed by the run. Then runs
``pytest -m fuzz`` with ``CORESC_FUZZ_EXAMPLES=--examples``.

    python benchmarks/fuzz.py                       # 50 mutants of each kind, 2000 examples
    python benchmarks/fuzz.py --mutants 5 --examples 100 --no-pytest
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from hostile import DIALECTS, make_corpus  # noqa: E402

PER_PAPER = ("xml", "mode2", "html")
RUNS = [("annotate", "xml"), ("annotate", "mode2"), ("annotate", "jsonl"),
        ("annotate", "tsv"), ("annotate", "html"), ("convert", "xml"), ("convert", "tsv")]


def _digest(files: list[Path]) -> dict[Path, str]:
    return {f: hashlib.sha256(f.read_bytes()).hexdigest() for f in files}


def _well_formed(out: Path, to: str) -> int:
    """How many output files do not parse as their format."""
    from lxml import etree

    bad = 0
    paths = [out] if out.is_file() else sorted(p for p in out.glob("*") if p.is_file())
    for p in paths:
        if p.name.endswith(".ndjson"):
            continue
        try:
            if to in ("xml", "mode2"):
                etree.parse(str(p), etree.XMLParser(resolve_entities=False))
            elif to == "jsonl":
                for line in p.read_text(encoding="utf-8").split("\n"):
                    if line:
                        json.loads(line)
            else:
                p.read_text(encoding="utf-8")
        except Exception:  # noqa: BLE001 - any failure to parse counts
            bad += 1
    return bad


def run_cli(folder: Path, work: Path, verb: str, to: str, timeout: float) -> dict:
    out = work / f"{verb}-{to}" / ("" if to in PER_PAPER else f"all.{to}")
    cmd = [sys.executable, "-m", "coresc", verb, str(folder), "-o", str(out), "--to", to]
    if verb == "annotate":
        cmd += ["--model", "fast", "-q"]
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        rc, err, hung = proc.returncode, proc.stderr, False
    except subprocess.TimeoutExpired as exc:
        rc, err, hung = None, (exc.stderr or b"").decode("utf-8", "replace"), True
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    lines = err.strip().splitlines()
    return {"run": f"{verb} --to {to}", "exit": rc, "hung": hung,
            "tracebacks": err.count("Traceback"),
            "errors": sum(": error: " in line for line in lines),
            "bad_outputs": _well_formed(out, to) if out.exists() else 0,
            "seconds": round(time.perf_counter() - t0, 1), "peak_mb_so_far": round(peak)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mutants", type=int, default=50)
    parser.add_argument("--examples", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--max-mb", type=float, default=2000)
    parser.add_argument("--no-pytest", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        # per-paper outputs (one folder) refuse two papers with one id, as the mutants
        # of one JSONL file have: they get a corpus without those
        folders = {False: Path(tmp) / "hostile", True: Path(tmp) / "hostile-per-paper"}
        work = Path(tmp) / "out"
        files = make_corpus(folders[False], args.seed, args.mutants)
        files += make_corpus(folders[True], args.seed, args.mutants,
                             dialects=tuple(d for d in DIALECTS if not d.endswith(".jsonl")))
        before = _digest(files)
        print(f"hostile corpus: {len(files)} files in two folders, each with a FIFO, a "
              f"dangling link, a looping link and two links pointing at each other")
        results = [run_cli(folders[to in PER_PAPER], work, verb, to, args.timeout)
                   for verb, to in RUNS]
        changed = sum(h != before[f] for f, h in _digest(files).items())
    for r in results:
        print(json.dumps(r))
    totals = {k: sum(r[k] for r in results) for k in ("tracebacks", "bad_outputs")}
    hangs = sum(r["hung"] for r in results)
    blowups = sum(r["peak_mb_so_far"] > args.max_mb for r in results)
    print(f"tracebacks {totals['tracebacks']}, hangs {hangs}, memory blow-ups (> "
          f"{args.max_mb:g} MB) {blowups}, outputs that do not parse {totals['bad_outputs']}, "
          f"inputs changed {changed}")
    failed = any((totals["tracebacks"], hangs, blowups, totals["bad_outputs"], changed))
    if not args.no_pytest:
        env = {**os.environ, "CORESC_FUZZ_EXAMPLES": str(args.examples)}
        rc = subprocess.run([sys.executable, "-m", "pytest", "-m", "fuzz", "-q",
                             "-p", "no:cacheprovider", str(ROOT / "tests")], env=env).returncode
        failed = failed or rc != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
