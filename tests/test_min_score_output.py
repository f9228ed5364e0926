"""Sentences that `annotate --min-score` leaves without a label, in every output format."""

from __future__ import annotations

import io
import json

import pytest
from lxml import etree

from coresc.cli import main
from coresc.document import Prediction
from coresc.readers import read_file
from coresc.writers.html import render_html
from coresc.writers.jsonl import write_jsonl
from coresc.writers.mode2 import render_mode2
from coresc.writers.tsv import PROVENANCE_COLUMNS, write_tsv
from coresc.xmlsafe import parse_xml


@pytest.fixture
def paper(fixtures):
    """The small ART paper, annotated by hand: sentence 2 withheld at min-score 0.5."""
    [p] = read_file(fixtures / "io_art_small.xml")
    sents = p.sentences()
    for s in sents:
        s.pred = [Prediction("Res", 0.9), Prediction("Obs", 0.6)]
    sents[1].pred = []
    sents[1].withheld = Prediction("Goa", 0.3125)
    p.meta["min_score"] = 0.5
    return p


def test_jsonl_and_tsv_mark_withheld(paper) -> None:
    buf = io.StringIO()
    write_jsonl([paper], buf)
    recs = [json.loads(line) for line in buf.getvalue().splitlines()]
    assert recs[1]["pred"] == [] and recs[1]["withheld"] == {
        "label": "Goa", "score": 0.3125, "min_score": 0.5}
    assert "withheld" not in recs[0] and recs[0]["pred"][0]["label"] == "Res"
    buf = io.StringIO()
    write_tsv([paper], buf)
    rows = [line.split("\t")[:-len(PROVENANCE_COLUMNS)]  # the label columns
            for line in buf.getvalue().splitlines()]
    assert rows[0][-2:] == ["pred", "withheld"]
    assert rows[2][-2:] == ["", "Goa:0.312"] and rows[1][-2:] == ["Res:0.900|Obs:0.600", ""]


def test_every_sentence_withheld_still_counts_as_annotated(paper) -> None:
    for s in paper.sentences():
        s.pred, s.withheld = [], Prediction("Res", 0.1)
    buf = io.StringIO()
    write_jsonl([paper], buf)
    assert all(json.loads(line)["pred"] == [] for line in buf.getvalue().splitlines())
    root = etree.fromstring(render_mode2(paper))
    assert not root.findall(".//CoreSc1")  # not the gold labels instead
    assert len(root.findall(".//CoreScWithheld")) == len(paper.sentences())


def test_mode2_marks_withheld_and_reads_back_as_unlabelled(paper) -> None:
    data = render_mode2(paper)
    root = etree.fromstring(data)
    s2 = root.find(".//s[@sid='2']")
    assert s2.find("CoreSc1") is None
    marker = s2.find("CoreScWithheld")
    assert dict(marker.attrib) == {"type": "Goa", "score": "0.312", "minScore": "0.5"}
    [back] = read_file_bytes(data)
    assert [s.text for s in back.sentences()] == [s.text for s in paper.sentences()]
    assert not back.sentences()[1].pred and not back.sentences()[1].gold
    assert back.sentences()[1].withheld == Prediction("Goa", 0.312)  # `coresc view` shows it
    assert back.sentences()[0].pred[0].label == "Res"
    # annotating the output again replaces the marker, it does not pile up
    back.sentences()[1].pred = [Prediction("Bac", 0.7)]
    again = etree.fromstring(render_mode2(back)).find(".//s[@sid='2']")
    assert again.find("CoreScWithheld") is None and again.find("CoreSc1").get("type") == "Bac"


def read_file_bytes(data: bytes):
    from coresc.readers.presplit import read_presplit

    return [read_presplit("out.xml", parse_xml("out.xml", data))]


def test_html_shows_no_label(paper) -> None:
    page = render_html(paper).decode("utf-8")
    assert 'data-withheld="Goa"' in page and "no label (Goa 0.31)" in page
    assert "1 sentence left without a label" in page


def test_annotate_min_score_end_to_end(tmp_path, capsys) -> None:
    paper = tmp_path / "p.txt"
    paper.write_text("Introduction\n\nWe investigated whether insulin affects growth. "
                     "Previous studies have shown that it does. It may. Or not.\n")
    out = tmp_path / "all.jsonl"
    assert main(["annotate", str(paper), "--to", "jsonl", "-o", str(out)]) == 0
    recs = [json.loads(line) for line in out.read_text().splitlines()]
    top = sorted(r["pred"][0]["score"] for r in recs)
    cut = (top[0] + top[-1]) / 2 if top[0] < top[-1] else top[0] + 1e-3
    for fmt in ("jsonl", "tsv", "xml", "html"):
        target = tmp_path / f"cut.{fmt}"
        assert main(["annotate", str(paper), "--to", fmt, "-o", str(target),
                     "--min-score", f"{cut:.6f}"]) == 0
        text = target.read_text()
        marker = {"jsonl": '"withheld"', "tsv": "\twithheld", "xml": "CoreScWithheld",
                  "html": "data-withheld"}[fmt]
        assert marker in text, fmt
    kept = [json.loads(line) for line in (tmp_path / "cut.jsonl").read_text().splitlines()]
    assert all(p["score"] >= cut for r in kept for p in r["pred"])
    assert any(not r["pred"] and r["withheld"]["score"] < cut for r in kept)
