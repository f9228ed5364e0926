"""Issue 51: inputs named by fsspec URLs, read from a local S3-compatible server (moto's):
a mirror of PMC's per-article-version folders and a ``.tar.gz`` in a bucket, through
``annotate``, with their metadata and ``--resume``. Skipped without moto[server] and
s3fs (the test extra has them)."""

from __future__ import annotations

import io
import json
import tarfile

import pytest

pytest.importorskip("s3fs")
moto_server = pytest.importorskip("moto.server")

from coresc.batch import annotate_files  # noqa: E402
from coresc.batch.outputs import MANIFEST_NAME  # noqa: E402
from coresc.errors import CorescError  # noqa: E402
from coresc.readers import find_inputs  # noqa: E402

BUCKET = "pmc-test"


@pytest.fixture(scope="module")
def endpoint():
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture
def s3(endpoint, monkeypatch):
    """An s3fs filesystem on the server, and fsspec configured to reach it."""
    import fsspec.config
    import s3fs

    for key, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                       "AWS_DEFAULT_REGION": "us-east-1"}.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setitem(fsspec.config.conf, "s3", {"endpoint_url": endpoint})
    s3fs.S3FileSystem.clear_instance_cache()
    fs = s3fs.S3FileSystem(endpoint_url=endpoint)
    if not fs.exists(BUCKET):
        fs.mkdir(BUCKET)
    yield fs
    s3fs.S3FileSystem.clear_instance_cache()


def jats(pmcid: str) -> bytes:
    return f"""<?xml version="1.0"?><article><front><article-meta>
<article-id pub-id-type="pmc">{pmcid[3:]}</article-id>
<title-group><article-title>Growth of yeast under heat.</article-title></title-group>
<abstract><p>We measured the growth of yeast at three temperatures. Growth falls as heat
rises.</p></abstract></article-meta></front><body><sec><title>Methods</title><p>Cultures
were grown at 30 and 42 degrees. Growth was measured every hour.</p></sec></body>
</article>""".encode()


def meta(pmcid: str, version: int, licence: str) -> bytes:
    return json.dumps({"pmcid": pmcid, "version": version, "license_code": licence,
                       "is_retracted": False}).encode()


def test_a_pmc_mirror_in_a_bucket_is_read_with_its_metadata_and_resumed(s3, tmp_path):
    prefix = f"{BUCKET}/mirror"
    for pmcid, licence in (("PMC1", "CC BY"), ("PMC2", "CC0")):
        s3.pipe(f"{prefix}/{pmcid}.1/{pmcid}.1.xml", jats(pmcid))
        s3.pipe(f"{prefix}/{pmcid}.1/{pmcid}.1.pdf", b"%PDF-1.4 not read beside the XML")
        s3.pipe(f"{prefix}/metadata/{pmcid}.1.json", meta(pmcid, 1, licence))
    url = f"s3://{prefix}/"
    assert find_inputs([url]).files == [f"s3://{prefix}/PMC1.1/PMC1.1.xml",
                                        f"s3://{prefix}/PMC2.1/PMC2.1.xml"]
    out = tmp_path / "out.jsonl"
    summary = annotate_files([url], out, to="jsonl", progress="off")
    assert (summary.done, summary.failures) == (2, [])
    prov = {json.loads(line)["paper"]: json.loads(line)["provenance"]
            for line in out.read_text().splitlines()}
    assert {p: (v["pmcid"], v["license"]) for p, v in prov.items()} == {
        "PMC1.1": ("PMC1", "cc-by"), "PMC2.1": ("PMC2", "cc0")}
    folder = tmp_path / "out"  # one file an article: --resume redoes only what changed
    assert annotate_files([url], folder, progress="off").done == 2
    lines = [json.loads(line) for line in (folder / MANIFEST_NAME).read_text().splitlines()]
    assert [r["input"] for r in lines[1:]] == [f"s3://{prefix}/PMC1.1/PMC1.1.xml",
                                               f"s3://{prefix}/PMC2.1/PMC2.1.xml"]
    again = annotate_files([url], folder, progress="off", resume=True)
    assert (again.done, again.skipped) == (0, 2)  # the bucket's sizes and times compared
    s3.pipe(f"{prefix}/PMC2.1/PMC2.1.xml", jats("PMC2").replace(b"yeast", b"barley"))  # a new size
    changed = annotate_files([url], folder, progress="off", resume=True)
    assert (changed.done, changed.skipped) == (1, 1)


def test_an_archive_in_a_bucket_is_read_member_by_member(s3, tmp_path):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for pmcid in ("PMC5", "PMC6"):
            data = jats(pmcid)
            info = tarfile.TarInfo(f"{pmcid}.1/{pmcid}.1.xml")
            info.size, info.mtime = len(data), 1_700_000_000
            tf.addfile(info, io.BytesIO(data))
    s3.pipe(f"{BUCKET}/pkg.tar.gz", buf.getvalue())
    local = tmp_path / "pkg.tar.gz"
    local.write_bytes(buf.getvalue())
    remote = annotate_files([f"s3://{BUCKET}/pkg.tar.gz"], tmp_path / "r.jsonl", to="jsonl",
                            progress="off")
    here = annotate_files([local], tmp_path / "l.jsonl", to="jsonl", progress="off")
    assert remote.done == here.done == 2 and not remote.failures
    assert (tmp_path / "r.jsonl").read_bytes() == (tmp_path / "l.jsonl").read_bytes()


def test_a_missing_object_fails_as_its_input(s3, tmp_path):
    summary = annotate_files([f"s3://{BUCKET}/nowhere/PMC9.1.xml"], tmp_path / "o.jsonl",
                             to="jsonl", progress="off")
    assert summary.done == 0 and "nowhere/PMC9.1.xml: cannot read" in (
        summary.failures[0].error)


def test_a_protocol_without_its_backend_is_one_line(monkeypatch):
    import fsspec

    def missing(url, **kwargs):
        raise ImportError("Install gcsfs to access Google Storage")

    monkeypatch.setattr(fsspec.core, "url_to_fs", missing)
    with pytest.raises(CorescError, match="gs://b/x.xml: Install gcsfs"):
        find_inputs(["gs://b/x.xml"])
