"""Issue 51, inputs: PubMed Central and the preprint servers as they distribute papers.

PMC's per-article-version folders with their metadata JSON, ``.tar.gz`` / ``.zip``
archives read member by member (MECA packages too), PMC's inventory CSV, provenance in
``Paper.meta``, ``--licence`` / ``--retracted``, and ``--resume`` by article version.
Every fixture is made here, a few sentences each.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import tarfile
import zipfile
from pathlib import Path

import pytest
from helpers import run_cli

from coresc.batch import annotate_files
from coresc.batch.outputs import MANIFEST_NAME
from coresc.errors import UsageError
from coresc.pipeline import Source, read_source
from coresc.readers import find_inputs, read_data
from coresc.readers.archives import list_members
from coresc.readers.pmc import licence_code

CC_BY = "http://creativecommons.org/licenses/by/4.0/"


def jats(pmcid: str = "PMC1", licence: str = CC_BY, words: str = "yeast") -> bytes:
    """A small JATS article with its ids and licence in the front matter."""
    return f"""<?xml version="1.0"?>
<article xmlns:xlink="http://www.w3.org/1999/xlink"><front><article-meta>
<article-id pub-id-type="pmid">{pmcid[3:]}0</article-id>
<article-id pub-id-type="pmc">{pmcid[3:]}</article-id>
<article-id pub-id-type="doi">10.1234/{pmcid.lower()}</article-id>
<title-group><article-title>Growth of {words} under heat.</article-title></title-group>
<permissions><license xlink:href="{licence}"><license-p>Open.</license-p></license>
</permissions>
<abstract><p>We measured the growth of {words} at three temperatures. The results show
that growth falls as heat rises.</p></abstract></article-meta></front>
<body><sec><title>Introduction</title><p>Previous studies have shown that heat slows
growth [1]. We test whether this holds for {words}.</p></sec>
<sec><title>Methods</title><p>Cultures were grown at 30, 37 and 42 degrees. Growth was
measured every hour.</p></sec></body></article>""".encode()


def add(tf: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mtime = len(data), 1_700_000_000
    tf.addfile(info, io.BytesIO(data))


def manifest(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def metadata(pmcid: str, version: int, licence: str = "CC BY", retracted: bool = False,
             ) -> dict:
    """A metadata JSON in the shape PMC's README gives."""
    return {"pmcid": pmcid, "version": version, "pmid": int(pmcid[3:]) * 10,
            "doi": f"10.1234/{pmcid.lower()}", "is_pmc_openaccess": True,
            "is_manuscript": False, "is_historical_ocr": False, "is_retracted": retracted,
            "license_code": licence, "xml_url": f"s3://pmc-oa-opendata/{pmcid}.{version}/"}


def article_folder(root: Path, pmcid: str, version: int, *, xml: bool = True,
                   **meta) -> Path:
    """``root/PMC<id>.<v>/`` as PMC lays it out, with ``root/metadata/PMC<id>.<v>.json``."""
    name = f"{pmcid}.{version}"
    folder = root / name
    folder.mkdir(parents=True)
    if xml:
        (folder / f"{name}.xml").write_bytes(jats(pmcid))
    (folder / f"{name}.txt").write_text("Plain text of the article. It has two sentences.")
    (folder / f"{name}.pdf").write_bytes(b"%PDF-1.4 not read while there is XML")
    (folder / "fig1.jpg").write_bytes(b"\xff\xd8")
    (root / "metadata").mkdir(exist_ok=True)
    (root / "metadata" / f"{name}.json").write_text(json.dumps(metadata(pmcid, version,
                                                                         **meta)))
    return folder


# ---------------------------------------------------------------- provenance


def test_jats_front_matter_gives_ids_and_licence():
    paper = read_data(jats("PMC42"), "x.nxml")[0]
    assert {k: paper.meta[k] for k in ("pmcid", "pmid", "doi", "license")} == {
        "pmcid": "PMC42", "pmid": "420", "doi": "10.1234/pmc42", "license": "cc-by"}


@pytest.mark.parametrize("value, code", [
    ("CC BY", "cc-by"), ("CC BY-NC-ND", "cc-by-nc-nd"), ("cc-by 4.0", "cc-by"),
    ("CC0", "cc0"), ("http://creativecommons.org/publicdomain/zero/1.0/", "cc0"),
    ("https://creativecommons.org/licenses/by-nc/4.0/", "cc-by-nc"), ("TDM", "tdm"),
    ("", None), ("CC BY!", None)])
def test_licence_codes(value, code):
    assert licence_code(value) == code


def test_pmc_folder_reads_the_xml_and_its_metadata_json(tmp_path):
    article_folder(tmp_path, "PMC7", 2, licence="CC BY-NC", retracted=True)
    found = find_inputs([tmp_path])
    assert found.files == [tmp_path / "PMC7.2" / "PMC7.2.xml"]  # not the PDF, text, JSON
    assert found.skipped == []  # media and metadata are the layout's, not "other types"
    paper = read_source(Source.file(found.files[0]))[0]
    assert {k: paper.meta[k] for k in ("pmcid", "pmid", "doi", "version", "license",
                                       "retracted", "source_format")} == {
        "pmcid": "PMC7", "pmid": "70", "doi": "10.1234/pmc7", "version": 2,
        "license": "cc-by-nc", "retracted": True, "source_format": "xml"}


def test_pmc_folder_without_xml_gives_its_pdf_else_its_text(tmp_path):
    article_folder(tmp_path, "PMC8", 1, xml=False)
    assert find_inputs([tmp_path]).files == [tmp_path / "PMC8.1" / "PMC8.1.pdf"]
    (tmp_path / "PMC8.1" / "PMC8.1.pdf").unlink()
    assert find_inputs([tmp_path]).files == [tmp_path / "PMC8.1" / "PMC8.1.txt"]


def test_a_bad_metadata_json_fails_that_article(tmp_path):
    article_folder(tmp_path, "PMC9", 1)
    (tmp_path / "metadata" / "PMC9.1.json").write_text("{not json")
    summary = annotate_files([tmp_path], tmp_path / "out", progress="off")
    assert summary.done == 0 and "metadata is not JSON" in summary.failures[0].error


# ---------------------------------------------------------------- archives


@pytest.fixture(params=["kept from the listing", "streamed in a second pass"])
def keep(request, monkeypatch) -> None:
    """A tar's members read once (the plan keeps their bytes) or twice (none kept)."""
    if request.param.startswith("streamed"):
        monkeypatch.setattr("coresc.batch.sources.KEEP_LISTED_BYTES", 0)


def test_tar_gz_three_members_one_damaged_is_one_failed_line(tmp_path, keep):
    archive = tmp_path / "pkg.tar.gz"
    with tarfile.open(archive, "w:gz") as tf:
        add(tf, "PMC001xxxxxx/PMC11.nxml", jats("PMC11"))
        add(tf, "PMC001xxxxxx/PMC12.nxml", jats("PMC12")[:300])  # cut short
        add(tf, "PMC001xxxxxx/PMC13.nxml", jats("PMC13"))
        add(tf, "PMC001xxxxxx/readme.csv", b"a,b\n")
    out = tmp_path / "out"
    summary = annotate_files([archive], out, progress="off")
    assert (summary.done, len(summary.failures)) == (2, 1)
    records = manifest(out / MANIFEST_NAME)[1:]
    assert [(r["input"].rpartition("::")[2], r["status"]) for r in records] == [
        ("PMC001xxxxxx/PMC11.nxml", "done"), ("PMC001xxxxxx/PMC12.nxml", "failed"),
        ("PMC001xxxxxx/PMC13.nxml", "done")]
    assert records[1]["error"].startswith(f"{archive}::PMC001xxxxxx/PMC12.nxml: malformed XML")
    assert sorted(p.name for p in out.iterdir()) == ["PMC11.xml", "PMC13.xml", MANIFEST_NAME]
    assert records[0]["article"] == "PMC11"
    assert list(tmp_path.glob("PMC001*")) == []  # nothing unpacked


def test_a_truncated_tar_gz_fails_its_unread_members_and_the_run_goes_on(tmp_path, keep):
    archive = tmp_path / "pkg.tgz"
    with tarfile.open(archive, "w:gz") as tf:
        add(tf, "PMC20.nxml", jats("PMC20"))
        add(tf, "PMC21.nxml", os.urandom(200_000))  # incompressible: the cut falls here
        add(tf, "PMC22.nxml", jats("PMC22"))
    data = archive.read_bytes()
    archive.write_bytes(data[: len(data) * 2 // 3])
    other = tmp_path / "PMC30.nxml"
    other.write_bytes(jats("PMC30"))
    summary = annotate_files([archive, other], tmp_path / "out", progress="off")
    assert summary.done >= 2  # the first member, and the file after the archive
    assert any("damaged" in oc.error for oc in summary.failures)


def test_zip_member_with_a_bad_crc_fails_alone(tmp_path):
    archive = tmp_path / "papers.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("PMC41.nxml", jats("PMC41"))
        zf.writestr("PMC42.nxml", jats("PMC42", words="wheat"))
    data = bytearray(archive.read_bytes())
    at = data.index(b"wheat")
    data[at:at + 5] = b"WHEAT"  # the stored bytes no longer match their CRC
    archive.write_bytes(bytes(data))
    summary = annotate_files([archive], tmp_path / "out", progress="off")
    assert summary.done == 1
    assert "PMC42.nxml: damaged member" in summary.failures[0].error


MECA_MANIFEST = b"""<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<!DOCTYPE manifest SYSTEM "http://schema.highwire.org/public/MECA/v0.9/Manifest/Manifest.dtd">
<manifest xmlns="http://manuscriptexchange.org" version="1.0">
<item id="transfer" type="transfer-details"><instance media-type="application/meca-xfer+xml"
 href="transfer.xml"/></item>
<item type="article" id="486050v1">
<instance media-type="application/pdf" href="content/486050v1.pdf"/>
<instance media-type="application/xml" href="content/486050v1.xml"/>
</item></manifest>"""


def test_meca_zip_gives_the_jats_its_manifest_names(tmp_path):
    archive = tmp_path / "biorxiv-486050.meca.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("manifest.xml", MECA_MANIFEST)
        zf.writestr("transfer.xml", b"<transfer/>")
        zf.writestr("content/486050v1.xml", jats("PMC50"))
        zf.writestr("content/486050v1.pdf", b"%PDF-1.4 not read")
    assert [m.name for m in list_members(str(archive)).members] == ["content/486050v1.xml"]
    out = tmp_path / "out.jsonl"
    summary = annotate_files([archive], out, to="jsonl", progress="off")
    assert summary.done == 1 and not summary.failures
    papers = {json.loads(line).get("paper") for line in out.read_text().splitlines()}
    assert papers - {None} == {"486050v1"}


def test_archive_in_pmc_shape_reads_one_file_per_version_with_its_metadata(tmp_path, keep):
    archive = tmp_path / "pmc.tar.gz"
    with tarfile.open(archive, "w:gz") as tf:
        add(tf, "metadata/PMC61.1.json", json.dumps(metadata("PMC61", 1, "CC0")).encode())
        add(tf, "PMC61.1/PMC61.1.xml", jats("PMC61"))
        add(tf, "PMC61.1/PMC61.1.txt", b"Plain text.")
        add(tf, "PMC61.1/PMC61.1.pdf", b"%PDF-1.4")
    members = list_members(str(archive)).members
    assert [(m.name, m.meta["license"], m.meta["version"]) for m in members] == [
        ("PMC61.1/PMC61.1.xml", "cc0", 1)]
    summary = annotate_files([archive], tmp_path / "out", progress="off",
                             licences=["cc0"], as_directory=True)
    assert summary.done == 1
    record = manifest(tmp_path / "out" / MANIFEST_NAME)[1]
    assert (record["article"], record["version"], record["source_format"]) == ("PMC61", 1,
                                                                               "xml")


def test_resume_skips_done_members_and_retries_the_failed(tmp_path, keep):
    archive = tmp_path / "pkg.tar.gz"
    with tarfile.open(archive, "w:gz") as tf:
        add(tf, "PMC71.nxml", jats("PMC71"))
        add(tf, "PMC72.nxml", b"not xml at all")
    out = tmp_path / "out"
    annotate_files([archive], out, progress="off")
    again = annotate_files([archive], out, progress="off", resume=True)
    assert (again.skipped, again.done, len(again.failures)) == (1, 0, 1)


# ---------------------------------------------------------------- inventory


def test_inventory_csv_in_s3_shape_lists_the_inputs(tmp_path):
    article_folder(tmp_path, "PMC81", 1)
    article_folder(tmp_path, "PMC82", 3)
    csv_dir = tmp_path / "inventory-reports" / "pmc-oa-opendata" / "metadata" / "data"
    csv_dir.mkdir(parents=True)
    rows = [f'"pmc-oa-opendata","metadata/{name}.json","2026-01-08T11:47:59.000Z","f25d"'
            for name in ("PMC81.1", "PMC82.3", "PMC83.1")]
    inventory = csv_dir / "8f5c.csv.gz"
    inventory.write_bytes(gzip.compress("\n".join(rows).encode()))
    summary = annotate_files([inventory], tmp_path / "out", progress="off")
    assert summary.done == 2
    assert [oc.error for oc in summary.failures] == [
        f"{inventory}:3: metadata/PMC83.1.json: no article folder PMC83.1/ under {tmp_path}"]


def test_inventory_csv_with_a_header_names_articles(tmp_path):
    article_folder(tmp_path, "PMC91", 1)
    article_folder(tmp_path, "PMC91", 2)
    listing = tmp_path / "list.csv"
    listing.write_text("pmcid,title\nPMC91,An article\n")
    summary = annotate_files([listing], tmp_path / "out", progress="off", as_directory=True)
    assert summary.done == 1
    assert (tmp_path / "out" / "PMC91.2.xml").is_file()  # its newest version


# ---------------------------------------------------------------- selection, versions


def test_licence_and_retracted_select_articles(tmp_path):
    mirror = tmp_path / "mirror"
    article_folder(mirror, "PMC101", 1, licence="CC BY")
    article_folder(mirror, "PMC102", 1, licence="CC BY-NC")
    article_folder(mirror, "PMC103", 1, licence="CC0", retracted=True)
    out = tmp_path / "out"
    summary = annotate_files([mirror], out, progress="off", licences=["cc-by", "CC0"])
    assert summary.done == 2 and [oc.error.split(": ", 1)[1] for oc in summary.excluded] == [
        "licence cc-by-nc is not among --licence cc-by,cc0 (left out)"]
    assert any("retracted article, annotated and flagged" in w for w in summary.warnings)
    statuses = [r["status"] for r in manifest(out / MANIFEST_NAME)[1:]]
    assert statuses == ["done", "excluded", "done"]
    skip = annotate_files([mirror], tmp_path / "out2", progress="off", retracted="skip")
    assert skip.done == 2 and "retracted" in skip.excluded[0].error
    stream = tmp_path / "out.jsonl"
    annotate_files([mirror], stream, to="jsonl", progress="off", licences=["cc-by"])
    assert not (tmp_path / ".out.jsonl.parts").exists()  # finished, one article left out


def test_an_archive_of_no_papers_is_no_input(tmp_path):
    with zipfile.ZipFile(tmp_path / "figures.zip", "w") as zf:
        zf.writestr("fig1.jpg", b"\xff\xd8")
    (tmp_path / "PMC140.nxml").write_bytes(jats("PMC140"))
    summary = annotate_files([tmp_path], tmp_path / "out", progress="off")
    assert (summary.total, summary.done, summary.failures) == (1, 1, [])
    with pytest.raises(UsageError, match="no readable files found"):
        annotate_files([tmp_path / "figures.zip"], tmp_path / "out2", progress="off")


def test_a_newer_version_replaces_the_older_in_a_resumed_run(tmp_path):
    mirror = tmp_path / "mirror"
    article_folder(mirror, "PMC111", 1)
    article_folder(mirror, "PMC112", 1)
    out, stream = tmp_path / "out", tmp_path / "out.jsonl"
    annotate_files([mirror], out, progress="off")
    annotate_files([mirror], stream, to="jsonl", progress="off")
    article_folder(mirror, "PMC111", 2)  # PMC publishes a new version
    summary = annotate_files([mirror], out, progress="off", resume=True)
    assert (summary.done, summary.skipped) == (1, 1)
    assert summary.older_versions == [str(mirror / "PMC111.1" / "PMC111.1.xml")]
    # a finished stream output is written again whole (its parts are gone): still once
    annotate_files([mirror], stream, to="jsonl", progress="off", resume=True)
    assert sorted(p.name for p in out.glob("*.xml")) == ["PMC111.2.xml", "PMC112.1.xml"]
    lines = manifest(out / MANIFEST_NAME)
    assert lines[-1] == {"input": str(mirror / "PMC111.1" / "PMC111.1.xml"),
                         "status": "superseded",
                         "by": str(mirror / "PMC111.2" / "PMC111.2.xml")}
    papers = [json.loads(line).get("paper") for line in stream.read_text().splitlines()]
    assert sorted(set(papers) - {None}) == ["PMC111.2", "PMC112.1"]


def test_an_older_version_after_a_newer_one_is_skipped_by_resume(tmp_path):
    mirror = tmp_path / "mirror"
    article_folder(mirror, "PMC121", 2)
    out = tmp_path / "out"
    annotate_files([mirror], out, progress="off")
    article_folder(mirror, "PMC121", 1)
    summary = annotate_files([mirror / "PMC121.1"], out, progress="off", resume=True)
    assert (summary.done, summary.skipped) == (0, 1)
    assert not (out / "PMC121.1.xml").exists()


def test_cli_says_what_licence_left_out(tmp_path, capsys):
    article_folder(tmp_path / "m", "PMC131", 1, licence="CC BY-ND")
    rc, _, err = run_cli(["annotate", str(tmp_path / "m"), "-o", str(tmp_path / "out"),
                          "--licence", "cc-by"], capsys)
    assert rc == 0
    assert "left out 1 article(s) by --licence or --retracted" in err


# ---------------------------------------------------------------- real papers


@pytest.fixture(scope="module")
def pmc_shape():
    """benchmarks/pmc_shape.py, the generator of corpora in PMC's shape."""
    import importlib
    import sys

    folder = str(Path(__file__).resolve().parents[1] / "benchmarks")
    sys.path.insert(0, folder)
    try:
        yield importlib.import_module("pmc_shape")
    finally:
        sys.path.remove(folder)


def test_generated_pmc_archive_of_real_papers_reads_as_pmc(shared_data, pmc_shape, tmp_path):
    """Six articles from ../shared/data in PMC's shape, the 3rd and 6th in two versions,
    the 5th retracted: the newer versions annotated, each with its provenance."""
    archive = tmp_path / "pmc.tar.gz"
    pmc_shape.make(archive, 6, shared_data, newer_every=3, retracted_every=5)
    out = tmp_path / "out"
    summary = annotate_files([archive], out, progress="off", licences=["cc-by", "cc0"],
                             retracted="skip")
    assert len(summary.older_versions) == 2
    records = {r["article"]: r for r in manifest(out / MANIFEST_NAME)[1:]}
    assert {a: (r["status"], r["version"]) for a, r in records.items()} == {
        "PMC9000001": ("done", 1), "PMC9000002": ("done", 1),
        "PMC9000003": ("excluded", 2),  # CC BY-NC
        "PMC9000004": ("excluded", 1),  # CC BY-NC-ND
        "PMC9000005": ("excluded", 1),  # retracted, --retracted skip
        "PMC9000006": ("done", 2)}
    assert "retracted" in records["PMC9000005"]["error"]
    inventory = tmp_path / "mirror" / "inventory-reports/pmc-oa-opendata/metadata/data"
    pmc_shape.make(tmp_path / "mirror", 6, shared_data, newer_every=3)
    listed = annotate_files(list(inventory.glob("*.csv.gz")), tmp_path / "out2",
                            progress="off", as_directory=True)
    assert (listed.done, len(listed.older_versions)) == (6, 2)


def test_provenance_reaches_the_records(tmp_path):
    """What the metadata JSON says is in the output's records (BioC JSON's infons)."""
    article_folder(tmp_path / "m", "PMC151", 3, licence="CC BY-SA", retracted=True)
    out = tmp_path / "out.json"
    annotate_files([tmp_path / "m"], out, to="bioc-json", progress="off")
    infons = json.loads(out.read_text())["documents"][0]["infons"]
    assert {k: infons[k] for k in ("pmcid", "pmid", "doi", "version", "license", "retracted",
                                   "source_format")} == {
        "pmcid": "PMC151", "pmid": "1510", "doi": "10.1234/pmc151", "version": "3",
        "license": "cc-by-sa", "retracted": "true", "source_format": "xml"}
