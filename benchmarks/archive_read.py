"""Reading members of an archive against the same files from a folder (issue 51: at
most 5% slower).

Lays the JATS papers and the CRA corpus of ../shared/data out in PMC's shape
(``benchmarks/pmc_shape.py``: one ``PMC<id>.1/`` folder per paper with its XML, text and
metadata JSON, and ``metadata/``) three times: as a folder, as a ``.tar.gz`` and as a
``.zip``. Then times what ``coresc annotate`` does to read them, up to the document
model: find the inputs (walk the folder, or list the archive), read each one's bytes
(from disk, or streamed out of the archive) and read it into papers with its
provenance (``coresc.pipeline.read_source``). The three are run in turn, the order
rotating every round, ``--rounds`` times (the machine is shared: interleaved runs see
the same load); the median of each, wall-clock and CPU seconds of this process, and
its ratio to the folder's are printed; then the same for finding the inputs and getting
their bytes alone (all that differs between a folder and an archive), whose difference
against the folder, over the folder's whole read, is what an archive adds with the
least noise.
"tar.gz 2 passes" is the same archive with nothing kept from its listing
(``coresc.batch.sources.KEEP_LISTED_BYTES`` = 0): how an archive larger than what a plan
keeps (128 MB of members) is read, decompressed once to list it, once to read it.
"(zlib)": the same with gzip inflated by the standard library's zlib, as where the
``isal`` package (the ``archives`` extra) is not installed; otherwise ISA-L inflates it.
``--annotate`` also times whole ``coresc annotate`` runs with the fast model.

    python benchmarks/archive_read.py [--rounds 9] [--annotate 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from coresc.batch import sources
from coresc.batch.sources import expand, with_data
from coresc.pipeline import read_source
from coresc.readers import find_inputs, tarstream

sys.path.insert(0, str(Path(__file__).parent))
from pmc_shape import make, source_papers  # noqa: E402  (the script beside this one)

from coresc.config import data_dir  # noqa: E402


def read_all(path: Path) -> tuple[int, int]:
    """Read every input under ``path`` as annotate does; ``(papers, sentences)``."""
    found = find_inputs([path], archives=True)
    papers = sentences = 0
    for source in with_data(expand(found.files)):
        for paper in read_source(source):
            papers += 1
            sentences += len(paper)
    return papers, sentences


def bytes_only(path: Path) -> int:
    """Only find the inputs and get their bytes (what archives change), no parsing."""
    from coresc.pipeline import source_bytes

    found = find_inputs([path], archives=True)
    return sum(len(source_bytes(s)) for s in with_data(expand(found.files)))


def annotate(path: Path, out: Path) -> None:
    from coresc.batch import annotate_files

    annotate_files([path], out, to="jsonl", model="fast", progress="off")


#: What a ``.tar.gz`` listing keeps, per kind: the default (read once), or nothing (its
#: members streamed in a second pass, as in an archive larger than the default keeps).
KEEP = {"tar.gz 2 passes": 0, "tar.gz 2 passes (zlib)": 0}
ISAL = tarstream._isal_gzip


def rounds(kinds: dict[str, Path], n: int, run) -> dict[str, list[tuple[float, float]]]:
    """Per kind, ``(wall, CPU)`` seconds of each round (CPU time is this process's:
    what a busy machine's other work changes least)."""
    times: dict[str, list[tuple[float, float]]] = {k: [] for k in kinds}
    names = list(kinds)
    default = sources.KEEP_LISTED_BYTES
    for r in range(n):
        for name in names[r % len(names):] + names[:r % len(names)]:  # rotate the order
            sources.KEEP_LISTED_BYTES = KEEP.get(name, default)
            tarstream._isal_gzip = (lambda: None) if "zlib" in name else ISAL
            t0, c0 = time.perf_counter(), time.process_time()
            run(name, kinds[name])
            times[name].append((time.perf_counter() - t0, time.process_time() - c0))
    sources.KEEP_LISTED_BYTES, tarstream._isal_gzip = default, ISAL
    return times


def report(title: str, times: dict[str, list[tuple[float, float]]]) -> None:
    print(f"\n{title}: median of {len(times['folder'])} interleaved rounds")
    for i, what in enumerate(("wall", "CPU")):
        base = statistics.median(t[i] for t in times["folder"])
        for name, ts in times.items():
            vals = [t[i] for t in ts]
            med = statistics.median(vals)
            print(f"  {what:4s} {name:22s} {med:7.3f} s  (min {min(vals):.3f}, max "
                  f"{max(vals):.3f})  {100 * (med / base - 1):+6.1f}% against the folder")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--annotate", type=int, default=0, metavar="ROUNDS",
                    help="also time whole annotate runs (fast model), this many rounds")
    args = ap.parse_args(argv)
    papers = source_papers(data_dir())
    with tempfile.TemporaryDirectory() as tmp:
        kinds = {"folder": Path(tmp) / "folder", "tar.gz": Path(tmp) / "pmc.tar.gz",
                 "tar.gz 2 passes": Path(tmp) / "pmc.tar.gz",
                 "tar.gz (zlib)": Path(tmp) / "pmc.tar.gz",
                 "tar.gz 2 passes (zlib)": Path(tmp) / "pmc.tar.gz",
                 "zip": Path(tmp) / "pmc.zip"}
        if ISAL() is None:
            raise SystemExit("install isal (pip install 'coresc[archives]') to compare")
        for path in set(kinds.values()):
            make(path, len(papers), newer_every=0, retracted_every=0)
        counts = {name: read_all(path) for name, path in kinds.items()}  # warm the cache
        assert len(set(counts.values())) == 1, counts  # the same papers every way
        print(f"{len(papers)} papers ({counts['folder'][1]} sentences) from "
              f"{data_dir()}/jats and cra-corpus; archive sizes: "
              f"tar.gz {kinds['tar.gz'].stat().st_size / 1e6:.1f} MB, "
              f"zip {kinds['zip'].stat().st_size / 1e6:.1f} MB")
        reading = rounds(kinds, args.rounds, lambda name, path: read_all(path))
        report("reading (find, bytes, read_source)", reading)
        fetching = rounds(kinds, args.rounds, lambda name, path: bytes_only(path))
        report("finding the inputs and getting their bytes only (no parsing)", fetching)
        full = statistics.median(t[1] for t in reading["folder"])
        base = statistics.median(t[1] for t in fetching["folder"])
        print("\nwhat archives add, in CPU seconds of getting the bytes, against the whole "
              "read of the folder:")
        for name, ts in fetching.items():
            extra = statistics.median(t[1] for t in ts) - base
            print(f"  {name:22s} {extra:+.3f} s = {100 * extra / full:+.1f}%")
        if args.annotate:
            outs = Path(tmp) / "out"
            report("coresc annotate --to jsonl (fast model, one process)",
                   rounds(kinds, args.annotate,
                          lambda name, path: annotate(path, outs / f"{name}.jsonl")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
