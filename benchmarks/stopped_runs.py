"""Stopped runs that read PDFs (issue 53, items 3 and 4), tried many times: PDF readers
left running after ``annotate --jobs 2`` is stopped (SIGTERM, SIGINT, SIGKILL) or after
``serve --timeout`` kills a worker, and whether a stopped batch's manifest lists exactly
its outputs (with no traceback).

    python benchmarks/stopped_runs.py --tries 5            # all three
    python benchmarks/stopped_runs.py --only batch --tries 18

Uses the slow PDF of ``tests/pdf_costly.py`` (``lone_runs(pages=15)``: PDFium minutes)
and the process helpers of ``tests/test_stopped_runs.py``.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import pdf_costly  # noqa: E402
from helpers import call, coresc_process, text_papers, wait_for  # noqa: E402
from test_stopped_runs import alive, busy, readers_under  # noqa: E402

SLOW = pdf_costly.lone_runs(pages=15)


def _left(readers: set[int]) -> int:
    time.sleep(5)  # what "dies with its parent" allows
    return len(alive(readers))


def annotate_tries(n: int) -> None:
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGKILL):
        left = 0
        for _ in range(n):
            d = Path(tempfile.mkdtemp())
            (d / "in").mkdir()
            for i in range(2):
                (d / "in" / f"s{i}.pdf").write_bytes(SLOW)
            proc = coresc_process(["annotate", str(d / "in"), "--jobs", "2", "-o",
                                   str(d / "out")])
            readers = wait_for(lambda p=proc: len(readers_under(p.pid)) == 2
                               and readers_under(p.pid), 120)
            wait_for(lambda r=readers: busy(r))
            proc.send_signal(sig)
            proc.communicate(timeout=60)
            left += _left(readers)
        print(f"annotate --jobs 2, {sig.name}: {left} PDF readers left of {2 * n} "
              f"({n} tries)", flush=True)


def serve_tries(n: int) -> None:
    from coresc.serve.launch import Server

    left = 0
    with Server(["--model", "fast", "--workers", "1", "--timeout", "3"],
                env={"CORESC_GROBID_URL": ""}) as srv:
        for _ in range(n):
            request = threading.Thread(target=call, args=(
                srv, "annotate?to=jsonl", SLOW, {"Content-Type": "application/pdf"}),
                kwargs={"auth": False})
            request.start()
            readers = wait_for(lambda: readers_under(srv.process.pid), 60)
            request.join(60)
            left += _left(readers)
    print(f"serve --timeout 3: {left} PDF readers left ({n} tries)", flush=True)


def batch_tries(n: int) -> None:
    agree = tracebacks = 0
    for _ in range(n):
        d = Path(tempfile.mkdtemp())
        (d / "in").mkdir()
        (d / "in" / "a_slow.pdf").write_bytes(SLOW)
        text_papers(d / "in", 6)
        out = d / "out"
        proc = coresc_process(["annotate", str(d / "in"), "--jobs", "2", "--paper-timeout",
                               "300", "-o", str(out)])
        wait_for(lambda o=out: len(list(o.glob("p*.xml"))) == 6, 180)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
        lines = [json.loads(x) for x in
                 (out / "coresc-manifest.ndjson").read_text().splitlines()[1:]]
        done = sorted(o for r in lines if r["status"] == "done" for o in r["outputs"])
        agree += done == sorted(x.name for x in out.glob("*.xml")) \
            and "6 of 7 file(s) done" in err
        tracebacks += "Traceback" in err
    print(f"stopped batch: manifest = outputs and the count right in {agree} of {n}; "
          f"{tracebacks} tracebacks", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tries", type=int, default=5)
    parser.add_argument("--only", choices=["annotate", "serve", "batch"])
    args = parser.parse_args()
    for name, run in (("annotate", annotate_tries), ("serve", serve_tries),
                      ("batch", batch_tries)):
        if args.only in (None, name):
            run(args.tries)


if __name__ == "__main__":
    main()
