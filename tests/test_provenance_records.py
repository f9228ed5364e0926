"""Issue 51: every record of every output format says where it came from: the article's
PMCID, PMID, DOI, version, licence, retraction status, source format and the model that
labelled it (JSONL, TSV, mode2, TEI, HTML here; BioC, W3C, PubAnnotation and Parquet in
their own tests)."""

from __future__ import annotations

import io
import json

import pytest
from lxml import etree

from coresc.batch import annotate_files
from coresc.document import Prediction
from coresc.readers import read_file
from coresc.tei import CORESC_NS
from coresc.writers.html import render_html
from coresc.writers.jsonl import write_jsonl
from coresc.writers.mode2 import render_mode2
from coresc.writers.tei import render_tei
from coresc.writers.tsv import PROVENANCE_COLUMNS, write_tsv

META = {"pmcid": "PMC77", "pmid": "770", "doi": "10.1234/x77", "version": 2,
        "license": "cc-by", "retracted": True, "source_format": "xml", "model": "fast",
        "model_version": "2026-11-01"}
#: How text formats write them (booleans in lower case, numbers as written).
AS_TEXT = {**{k: str(v) for k, v in META.items()}, "retracted": "true"}


def _stamped(paper):
    paper.meta.update(META)
    paper.sentences()[0].pred = [Prediction("Res", 0.9)]
    return paper


@pytest.fixture
def paper(fixtures):
    return _stamped(read_file(fixtures / "io_jats_small.xml")[0])


def test_every_jsonl_record_carries_the_provenance(paper):
    buf = io.StringIO()
    write_jsonl([paper], buf)
    records = [json.loads(line) for line in buf.getvalue().splitlines()]
    assert len(records) == len(paper) > 1
    for rec in records:
        assert {k: rec["provenance"][k] for k in META} == META
        assert rec["provenance"]["coresc_version"]


def test_every_tsv_row_carries_the_provenance_columns(paper):
    buf = io.StringIO()
    write_tsv([paper], buf)
    header, *rows = [line.split("\t") for line in buf.getvalue().splitlines()]
    assert header[-len(PROVENANCE_COLUMNS):] == list(PROVENANCE_COLUMNS)
    for row in rows:
        cells = dict(zip(header, row, strict=True))
        assert {k: cells[k] for k in META} == AS_TEXT
        assert cells["journal"] == "" or cells["journal"] == paper.meta.get("journal")


def test_mode2_holds_the_provenance_in_its_mode2_element(paper):
    root = etree.fromstring(render_mode2(paper))
    [prov] = root.findall("mode2/provenance")
    assert {k: prov.get(k) for k in META} == AS_TEXT
    again = etree.fromstring(render_mode2(_stamped(read_file_bytes(render_mode2(paper)))))
    assert len(again.findall("mode2/provenance")) == 1  # replaced, not doubled


def read_file_bytes(data: bytes):
    from coresc.readers import read_data

    return read_data(data, "again.xml")[0]


def test_tei_holds_the_provenance_in_its_header(fixtures):
    paper = _stamped(read_file(fixtures / "tei_grobid_small.xml")[0])
    root = etree.fromstring(render_tei(paper))
    found = root.findall(f".//{{*}}teiHeader/{{*}}xenoData/{{{CORESC_NS}}}provenance")
    assert len(found) == 1 and {k: found[0].get(k) for k in META} == AS_TEXT


def test_html_says_where_the_paper_came_from_and_warns_of_a_retraction(paper):
    page = render_html(paper).decode()
    assert 'id="provenance" role="alert">Retracted article. PMCID PMC77 · PMID 770' in page
    assert "licence cc-by" in page and "read from xml · model fast" in page
    paper.meta["retracted"] = False
    assert 'class="note" id="provenance">PMCID PMC77' in render_html(paper).decode()


def test_pmc_metadata_reaches_jsonl_and_tsv_through_annotate(tmp_path, fixtures):
    """What PMC's metadata JSON says, and the model, end to end."""
    folder = tmp_path / "m" / "PMC88.3"
    folder.mkdir(parents=True)
    (folder / "PMC88.3.xml").write_bytes((fixtures / "io_jats_small.xml").read_bytes())
    (folder / "PMC88.3.json").write_text(json.dumps(
        {"pmcid": "PMC88", "version": 3, "license_code": "CC0", "is_retracted": False}))
    out = tmp_path / "out.jsonl"
    annotate_files([tmp_path / "m"], out, to="jsonl", progress="off")
    prov = {json.dumps(json.loads(line)["provenance"], sort_keys=True)
            for line in out.read_text().splitlines()}
    assert len(prov) == 1
    found = json.loads(prov.pop())
    assert {k: found[k] for k in ("pmcid", "version", "license", "retracted",
                                  "source_format")} == {
        "pmcid": "PMC88", "version": 3, "license": "cc0", "retracted": False,
        "source_format": "xml"}
    assert found["model"]  # the bundled model's name
    tsv = tmp_path / "out.tsv"
    annotate_files([tmp_path / "m"], tsv, to="tsv", progress="off")
    header, first = (line.split("\t") for line in tsv.read_text().splitlines()[:2])
    cells = dict(zip(header, first, strict=True))
    assert (cells["pmcid"], cells["version"], cells["license"], cells["retracted"]) == (
        "PMC88", "3", "cc0", "false")
