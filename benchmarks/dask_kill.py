"""A Dask run over an archive in PubMed Central's shape with a worker killed mid-run:
nothing lost, nothing doubled (issue 51).

Builds a ``.tar.gz`` of ``--n`` articles from the papers in ../shared/data
(``benchmarks/pmc_shape.py``: every 10th article in two versions, every 50th
retracted, four licences in turn), starts a ``distributed.LocalCluster`` of ``--workers``
single-threaded worker processes (each under a nanny, which restarts a worker that
dies), runs ``coresc annotate ARCHIVE -o OUT.jsonl --to jsonl --scheduler ...`` with
``--model``, and SIGKILLs one worker process once ``--kill-at`` of the articles are
recorded in the manifest. Then checks the output against the plan:

* lost: an article (its newest version) with no ``done`` line in the manifest, or none
  of its sentences in the JSONL;
* doubled: an input with more than one ``done`` line, a sentence (paper, sid) twice in
  the JSONL, or an older version annotated beside the newer.

Prints the figures and exits 1 when anything is lost or doubled.

    python benchmarks/dask_kill.py [--n 1000] [--model fast] [--workers 2] [--kill-at 0.3]
        [--two-passes]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from pmc_shape import make  # noqa: E402  (the script beside this one)

NEWER_EVERY, RETRACTED_EVERY = 10, 50


def expected_papers(n: int) -> set[str]:
    """The paper ids the run must give: each article's newest version."""
    from pmc_shape import FIRST_ID

    return {f"PMC{FIRST_ID + i}.{2 if (i + 1) % NEWER_EVERY == 0 else 1}" for i in range(n)}


def killer(manifest: Path, pids: list[int], at: int, killed: list[tuple[int, float]]):
    """SIGKILL the first worker once ``at`` inputs are recorded in the manifest."""
    def watch() -> None:
        while True:
            lines = len(manifest.read_text().splitlines()) if manifest.exists() else 0
            if lines - 1 >= at:
                os.kill(pids[0], signal.SIGKILL)
                killed.append((lines - 1, time.monotonic()))
                return
            time.sleep(0.05)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def check(out: Path, manifest: Path, n: int) -> dict[str, int]:
    """Lost and doubled, from the manifest and from the JSONL's records."""
    lines = [json.loads(line) for line in manifest.read_text().splitlines()[1:]]
    done = collections.Counter(r["input"] for r in lines if r.get("status") == "done")
    sids = collections.Counter()
    for line in out.open(encoding="utf-8"):
        rec = json.loads(line)
        sids[(rec["paper"], rec["sid"])] += 1
    papers = {paper for paper, _ in sids}
    want = expected_papers(n)
    done_papers = {Path(name.rpartition("::")[2]).stem for name in done}
    return {
        "articles expected": len(want),
        "manifest: inputs done": len(done),
        "manifest: inputs with more than one done line": sum(c > 1 for c in done.values()),
        "manifest: articles lost": len(want - done_papers),
        "manifest: older versions annotated": len(done_papers - want),
        "jsonl: papers": len(papers),
        "jsonl: sentence records": sum(sids.values()),
        "jsonl: articles lost": len(want - papers),
        "jsonl: sentences doubled": sum(c > 1 for c in sids.values()),
        "jsonl: papers not expected": len(papers - want),
    }


def run(args: argparse.Namespace, tmp: Path) -> int:
    import distributed

    from coresc.batch import annotate_files

    archive = tmp / "pmc.tar.gz"
    t0 = time.monotonic()
    make(archive, args.n, newer_every=NEWER_EVERY, retracted_every=RETRACTED_EVERY)
    print(f"{archive.name}: {args.n} articles, {archive.stat().st_size / 1e6:.1f} MB, "
          f"built in {time.monotonic() - t0:.1f} s")
    out = tmp / "out.jsonl"
    manifest = tmp / "out.jsonl.manifest.ndjson"
    killed: list[tuple[int, float]] = []
    with distributed.LocalCluster(n_workers=args.workers, threads_per_worker=1,
                                  processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        pids = list(client.run(os.getpid).values())
        watcher = killer(manifest, pids, int(args.kill_at * args.n), killed)
        t0 = time.monotonic()
        summary = annotate_files([archive], out, to="jsonl", model=args.model,
                                 scheduler=client, progress="off")
        wall = time.monotonic() - t0
        watcher.join(timeout=1)
        client.wait_for_workers(args.workers, timeout=60)
        after = list(client.run(os.getpid).values())
    print(f"run: {wall:.1f} s wall, {summary.done} done, {len(summary.failures)} failed, "
          f"{len(summary.excluded)} excluded, {len(summary.older_versions)} older versions "
          f"left out; model {args.model}, {args.workers} workers")
    if not killed:
        print("the worker was not killed: the run ended before --kill-at")
        return 1
    print(f"killed worker pid {pids[0]} after {killed[0][0]} of {args.n} inputs were "
          f"recorded ({killed[0][1] - t0:.1f} s into the run); workers after the run: "
          f"{sorted(after)} (was {sorted(pids)})")
    figures = check(out, manifest, args.n)
    for name, value in figures.items():
        print(f"  {name}: {value}")
    bad = sum(v for k, v in figures.items() if "lost" in k or "doubled" in k
              or "more than one" in k or "older" in k or "not expected" in k)
    print("nothing lost, nothing doubled" if bad == 0 else "LOST OR DOUBLED")
    return 0 if bad == 0 and not summary.failures else 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1000, help="articles (default 1000)")
    ap.add_argument("--model", default="fast", help="default: fast")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--kill-at", type=float, default=0.3,
                    help="kill a worker once this share of the articles is recorded")
    ap.add_argument("--two-passes", action="store_true",
                    help="keep no member's bytes from the listing (as an archive larger "
                         "than 128 MB of members is read: its members streamed again)")
    ap.add_argument("--keep", type=Path, default=None,
                    help="a folder to keep the archive, output and manifest in")
    args = ap.parse_args(argv)
    if args.two_passes:
        from coresc.batch import sources

        sources.KEEP_LISTED_BYTES = 0
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
        return run(args, args.keep)
    with tempfile.TemporaryDirectory() as tmp:
        return run(args, Path(tmp))


if __name__ == "__main__":
    sys.exit(main())
