"""Make a corpus in PubMed Central's shape from the papers in ../shared/data.

PMC's open-access dataset holds one folder per article version, ``PMC<id>.<v>/`` with
``PMC<id>.<v>.xml`` and ``.txt``, and the metadata ``PMC<id>.<v>.json`` both there and in
``metadata/``, listed by an S3 inventory CSV (``inventory-reports/.../data/*.csv.gz``:
bucket, key, last modified, ETag; no header). This script lays the JATS papers
(``jats/``) and the CRA corpus (``cra-corpus/``, mode2 XML) out that way, cycling
through them to make ``--n`` articles with invented PMCIDs, licences (CC BY, CC0,
CC BY-NC, CC BY-NC-ND, in turn), every ``--newer-every``-th article in a second version
too, and every ``--retracted-every``-th marked retracted; as a folder, or streamed
into one ``.tar.gz`` / ``.zip`` (nothing unpacked on disk). For the 1,000-article Dask
run of issue 51 and for ``benchmarks/archive_read.py``:

    python benchmarks/pmc_shape.py --n 1000 -o /tmp/pmc-1000.tar.gz
    python benchmarks/pmc_shape.py --n 59 -o /tmp/pmc-folder/
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

from coresc.config import data_dir

LICENCES = ("CC BY", "CC0", "CC BY-NC", "CC BY-NC-ND")
FIRST_ID = 9_000_001  # invented PMCIDs, far from real ones of the same papers
MTIME = 1_767_225_600  # 2026-01-01: the same bytes every time the script runs


def source_papers(data: Path) -> list[Path]:
    """The JATS papers and the CRA corpus, sorted."""
    papers = sorted((data / "jats").glob("*.*xml")) + sorted((data / "cra-corpus").glob("*.xml"))
    if not papers:
        raise SystemExit(f"no papers under {data}/jats or {data}/cra-corpus")
    return papers


def entries(papers: list[Path], n: int, newer_every: int, retracted_every: int,
            ) -> Iterator[tuple[str, bytes]]:
    """``(path in the corpus, bytes)`` of every file, article by article, then the
    inventory CSV."""
    rows = []
    for i in range(n):
        pmcid = f"PMC{FIRST_ID + i}"
        versions = (1, 2) if newer_every and (i + 1) % newer_every == 0 else (1,)
        for version in versions:
            xml = papers[(i + version - 1) % len(papers)].read_bytes()
            name = f"{pmcid}.{version}"
            meta = _metadata(pmcid, version, i, retracted_every, xml)
            yield f"{name}/{name}.xml", xml
            yield f"{name}/{name}.txt", b"Plain text as PMC extracts it (not read).\n"
            yield f"{name}/{name}.json", meta
            yield f"metadata/{name}.json", meta
            rows.append(f'"pmc-oa-opendata","metadata/{name}.json",'
                        f'"2026-01-01T00:00:00.000Z","{hashlib.md5(meta).hexdigest()}"')
    inventory = gzip.compress("\n".join(rows).encode() + b"\n", mtime=0)
    yield "inventory-reports/pmc-oa-opendata/metadata/data/inventory.csv.gz", inventory


def _metadata(pmcid: str, version: int, i: int, retracted_every: int, xml: bytes) -> bytes:
    record = {
        "pmcid": pmcid, "version": version, "pmid": str(FIRST_ID + i),
        "doi": f"10.5555/coresc.{FIRST_ID + i}", "is_pmc_openaccess": True,
        "is_manuscript": False, "is_historical_ocr": False,
        "is_retracted": bool(retracted_every) and (i + 1) % retracted_every == 0,
        "license_code": LICENCES[i % len(LICENCES)],
        "xml_url": f"s3://pmc-oa-opendata/{pmcid}.{version}/{pmcid}.{version}.xml"
                   f"?md5={hashlib.md5(xml).hexdigest()}",
        "text_url": f"s3://pmc-oa-opendata/{pmcid}.{version}/{pmcid}.{version}.txt",
    }
    return json.dumps(record, indent=1).encode()


def write(out: Path, files: Iterator[tuple[str, bytes]]) -> int:
    """Write the corpus as a folder, ``.tar.gz`` or ``.zip``; the number of files."""
    name = out.name.lower()
    if name.endswith((".tar.gz", ".tgz")):
        return _write_tar(out, files)
    if name.endswith(".zip"):
        return _write_zip(out, files)
    count = 0
    for path, data in files:
        target = out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        count += 1
    return count


def _write_tar(out: Path, files: Iterator[tuple[str, bytes]]) -> int:
    count = 0
    with tarfile.open(out, "w:gz") as tf:
        for path, data in files:
            info = tarfile.TarInfo(path)
            info.size, info.mtime = len(data), MTIME
            tf.addfile(info, io.BytesIO(data))
            count += 1
    return count


def _write_zip(out: Path, files: Iterator[tuple[str, bytes]]) -> int:
    count = 0
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for path, data in files:
            zf.writestr(zipfile.ZipInfo(path, (2026, 1, 1, 0, 0, 0)), data,
                        zipfile.ZIP_DEFLATED)
            count += 1
    return count


def make(out: Path, n: int, data: Path | None = None, newer_every: int = 0,
         retracted_every: int = 0) -> int:
    """Make the corpus at ``out`` (see the module docstring); the number of files."""
    papers = source_papers(data or data_dir())
    return write(out, entries(papers, n, newer_every, retracted_every))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--out", type=Path, required=True,
                    help="a folder, or a .tar.gz / .tgz / .zip file")
    ap.add_argument("--n", type=int, default=1000, help="articles (default 1000)")
    ap.add_argument("--data", type=Path, default=None, help="default: ../shared/data")
    ap.add_argument("--newer-every", type=int, default=10,
                    help="every N-th article also gets a version 2 (0: none; default 10)")
    ap.add_argument("--retracted-every", type=int, default=50,
                    help="every N-th article is marked retracted (0: none; default 50)")
    args = ap.parse_args(argv)
    if args.n < 1:
        ap.error("--n must be at least 1")
    count = make(args.out, args.n, args.data, args.newer_every, args.retracted_every)
    print(f"{args.out}: {args.n} articles, {count} files", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
