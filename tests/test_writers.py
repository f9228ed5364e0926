"""Writers: mode2 XML (in place and fresh), JSONL, TSV, the registry and write_papers."""

from __future__ import annotations

import io
import json

import pytest
from lxml import etree

from coresc._version import __version__
from coresc.document import Label, Paper, Paragraph, Prediction, Section, Sentence
from coresc.errors import UsageError
from coresc.readers import iter_input_files, read_file
from coresc.readers.presplit import read_presplit
from coresc.writers import (
    WRITERS,
    Writer,
    available_formats,
    output_paths,
    write_papers,
)
from coresc.writers.jsonl import write_jsonl
from coresc.writers.mode2 import render_mode2
from coresc.writers.tsv import PROVENANCE_COLUMNS, write_tsv
from coresc.xmlsafe import parse_xml


def reread(paper: Paper, data: bytes, name: str = "out.xml") -> Paper:
    """Read writer output back with the pre-split reader (as `coresc` would)."""
    return read_presplit(name, parse_xml(name, data))


def gold_key(paper: Paper) -> list:
    return [(s.sid, s.text, s.zone,
             [(lab.code, lab.concept_id, lab.novelty, lab.advantage) for lab in s.gold])
            for s in paper.sentences()]


def structure(paper: Paper) -> list:
    return [(sec.heading, sec.type, sec.depth, sec.parent, len(sec.paragraphs))
            for sec in paper.sections]


@pytest.fixture
def art_paper(fixtures):
    [paper] = read_file(fixtures / "io_art_small.xml")
    return paper


@pytest.fixture
def mode2_paper(fixtures):
    [paper] = read_file(fixtures / "io_mode2_small.xml")
    return paper


def test_art_gold_round_trip_keeps_text_labels_and_markup(art_paper):
    data = render_mode2(art_paper)
    assert data.startswith(b"<?xml version='1.0' encoding='UTF-8'?>")
    back = reread(art_paper, data)
    assert gold_key(back) == gold_key(art_paper)
    assert structure(back) == structure(art_paper)
    root = etree.fromstring(data)
    assert root.find("mode2").get("name") == "artsmall"
    assert not root.findall(".//annotationART")
    # one CoreSc1 per labelled sentence, empty, inside the <s>, gold attributes kept
    s6 = root.find(".//s[@sid='6']")
    [c1] = s6.findall("CoreSc1")
    assert dict(c1.attrib) == {"atype": "GSC", "type": "Exp", "conceptID": "Exp1",
                               "novelty": "Old", "advantage": "No"}
    assert len(c1) == 0 and not c1.text
    # inline markup stays where it was, in order
    assert [el.tag for el in s6] == ["SB", "SB", "CoreSc1"]
    s5 = root.find(".//s[@sid='5']")
    assert s5.text == "Lead no one has grown " and s5[0].tag == "IT"
    assert s5[0].tail == " wires this way."


def test_writing_twice_is_identical_and_leaves_the_paper_alone(art_paper):
    before = etree.tostring(art_paper.tree)
    first = render_mode2(art_paper)
    assert render_mode2(art_paper) == first
    assert etree.tostring(art_paper.tree) == before
    assert art_paper.sentences()[0].element.getroottree().getroot() is art_paper.tree.getroot()


def test_mode2_multilabel_text_wrapper_and_no_duplicates(mode2_paper):
    data = render_mode2(mode2_paper)
    back = reread(mode2_paper, data)
    assert gold_key(back) == gold_key(mode2_paper)
    assert structure(back) == structure(mode2_paper)
    root = etree.fromstring(data)
    for s in root.iter("s"):
        tags = [c.tag for c in s if c.tag.startswith("CoreSc")]
        assert tags == sorted(set(tags)), tags  # each rank at most once, in order
    s3 = root.find(".//s[@sid='3']")
    assert [c.tag for c in s3] == ["CoreSc1", "text"]  # SAPIENTA's layout kept
    assert root.find(".//s[@sid='5']").findall("*") == []
    s6 = root.find(".//s[@sid='6']/CoreSc1")
    assert dict(s6.attrib) == {"type": "Obs"}  # missing gold attributes are not invented
    # a re-written output is a fixed point
    assert render_mode2(back) == data


def test_predictions_replace_gold_with_running_concept_ids(mode2_paper):
    sents = mode2_paper.sentences()
    for s in sents:
        s.pred = [Prediction("Res", 0.8), Prediction("Obs", 0.15)]
    sents[4].pred = [Prediction("Met", 0.6)]
    data = render_mode2(mode2_paper)
    root = etree.fromstring(data)
    ids = [el.get("conceptID") for el in root.iter("CoreSc1")]
    assert ids[:4] == ["Res1", "Res2", "Res3", "Res4"] and ids[4] == "Met1"
    c2 = root.find(".//s[@sid='4']/CoreSc2")
    assert dict(c2.attrib) == {"type": "Obs", "conceptID": "Obs4", "novelty": "None",
                               "advantage": "None", "score": "0.150"}
    assert root.find(".//s[@sid='7']/CoreSc3") is None  # gold's third label is gone
    back = reread(mode2_paper, data)
    # written predictions (they carry scores) read back as predictions, not gold
    assert [s.pred_codes for s in back.sentences()] == [s.pred_codes for s in sents]
    assert all(not s.gold for s in back.sentences())
    assert back.sentences()[0].pred[1].score == pytest.approx(0.15)
    # labels="gold" still writes the gold labels of an annotated paper
    gold_back = reread(mode2_paper, render_mode2(mode2_paper, labels="gold"))
    assert gold_key(gold_back) == gold_key(mode2_paper)
    with pytest.raises(ValueError):
        render_mode2(mode2_paper, labels="silver")


def test_non_paper_root_is_wrapped_in_paper_mode2(tmp_path):
    src = tmp_path / "jatsish.xml"
    src.write_text(
        '<article><front><article-meta><title-group><article-title><s sid="1">A title'
        '</s></article-title></title-group></article-meta></front><body><sec><title>Methods'
        '</title><p><s sid="2">We did <italic>this</italic>.</s></p></sec></body></article>')
    [paper] = read_file(src)
    paper.sentences()[1].pred = [Prediction("Exp", 0.9)]
    data = render_mode2(paper)
    root = etree.fromstring(data)
    assert root.tag == "PAPER" and root[0].tag == "mode2" and root[1].tag == "article"
    assert root[0].get("name") == "jatsish"
    back = reread(paper, data)
    assert [s.text for s in back.sentences()] == ["A title", "We did this."]
    assert [s.pred_codes for s in back.sentences()] == [[], ["Exp"]]
    assert structure(back) == structure(paper)


def _treeless_paper() -> Paper:
    def sent(sid, text, gold=(), zone="body"):
        return Sentence(sid=sid, text=text, zone=zone, gold=[Label(g) for g in gold])
    sections = [
        Section("Title", "title", 0, None, [Paragraph([sent("1", "Soap & salt <films>",
                                                             ["Obj"], "title")])]),
        Section("Abstract", "abstract", 0, None, [
            Paragraph([sent("2", "We grew films.", ["Goa"], "abstract"),
                       sent("3", "They held.", ["Res", "Con"], "abstract")])]),
        Section("Introduction", "introduction", 1, None, [
            Paragraph([sent("4", "Films are thin.", ["Bac"])]),
            Paragraph([sent("5", "Nobody knows why.")])]),
        Section("Methods", "methods", 1, None, []),
        Section("Reagents", "methods", 2, 3, [Paragraph([sent("6", "Salt was used.")]),
                                              Paragraph([sent("7", "Fig. 1. A film.",
                                                              zone="caption")])]),
    ]
    return Paper(id="fresh01", title="Soap & salt <films>", source_format="text",
                 sections=sections)


def test_fresh_document_for_papers_without_a_tree():
    paper = _treeless_paper()
    data = render_mode2(paper)
    root = etree.fromstring(data)
    assert [c.tag for c in root] == ["mode2", "TITLE", "ABSTRACT", "BODY"]
    assert root.find("BODY/DIV/DIV").get("DEPTH") == "2"
    back = reread(paper, data)
    assert [(s.sid, s.text, s.zone, s.gold_codes) for s in back.sentences()] == [
        (s.sid, s.text, s.zone, s.gold_codes) for s in paper.sentences()]
    assert structure(back) == structure(paper)
    assert back.title == paper.title
    assert render_mode2(paper) == data


def test_jsonl_records(mode2_paper):
    buf = io.StringIO()
    write_jsonl([mode2_paper], buf)
    records = [json.loads(line) for line in buf.getvalue().splitlines()]
    assert len(records) == len(mode2_paper)
    assert list(records[3]) == ["paper", "sid", "section", "section_type", "zone", "text",
                                "gold", "provenance"]
    assert records[3].pop("provenance") == {"source_format": "xml",
                                            "coresc_version": __version__}
    assert records[3] == {"paper": "io_mode2_small", "sid": "4", "section": "Animals",
                          "section_type": "methods", "zone": "body",
                          "text": "Rats received implants (n = 10).", "gold": ["Exp", "Met"]}
    assert records[4]["gold"] == []
    mode2_paper.sentences()[0].pred = [Prediction("Obj", 0.91234), Prediction("Res", 0.05)]
    buf = io.StringIO()
    write_jsonl([mode2_paper], buf)
    records = [json.loads(line) for line in buf.getvalue().splitlines()]
    assert records[0]["pred"] == [{"label": "Obj", "score": 0.9123},
                                  {"label": "Res", "score": 0.05}]
    assert records[1]["pred"] == []


def test_jsonl_keeps_unicode_readable():
    paper = _treeless_paper()
    paper.sections[1].paragraphs[0].sentences[0].text = "Wires of 2–5 μm."
    buf = io.StringIO()
    write_jsonl([paper], buf)
    assert "2–5 μm" in buf.getvalue()


def test_tsv_header_escaping_and_pred_column(mode2_paper):
    mode2_paper.sentences()[1].text = "Tab\there, new\nline"
    buf = io.StringIO()
    write_tsv([mode2_paper], buf)
    lines = buf.getvalue().split("\n")
    assert lines[-1] == "" and len(lines) == len(mode2_paper) + 2
    assert lines[0] == "\t".join(("paper", "sid", "section", "section_type", "zone", "text",
                                  "gold", *PROVENANCE_COLUMNS))
    rows = [line.split("\t") for line in lines[1:-1]]
    assert all(len(r) == 7 + len(PROVENANCE_COLUMNS) for r in rows)
    assert rows[1][5] == "Tab here, new line"
    assert rows[3][6] == "Exp|Met" and rows[4][6] == ""
    mode2_paper.sentences()[0].pred = [Prediction("Obj", 0.9124), Prediction("Res", 0.071)]
    buf = io.StringIO()
    write_tsv([mode2_paper], buf)
    lines = buf.getvalue().splitlines()
    assert lines[0].endswith("\tgold\tpred\t" + "\t".join(PROVENANCE_COLUMNS))
    assert lines[1].split("\t")[7] == "Obj:0.912|Res:0.071"
    assert lines[2].split("\t")[7] == ""


def test_registry_offers_only_installed_writers(monkeypatch):
    assert {"xml", "jsonl", "tsv"} <= set(available_formats())
    monkeypatch.setitem(WRITERS, "nowhere", Writer("coresc.writers.nowhere:render", True, ".x"))
    assert "nowhere" not in available_formats()
    with pytest.raises(UsageError, match="unknown output format"):
        write_papers([], "nowhere")


def test_output_paths_rules(tmp_path, art_paper, mode2_paper):
    assert output_paths([art_paper], "xml", None) == []
    assert output_paths([art_paper], "xml", tmp_path / "a.xml") == [tmp_path / "a.xml"]
    assert output_paths([art_paper], "xml", tmp_path) == [tmp_path / "io_art_small.xml"]
    both = [art_paper, mode2_paper]
    with pytest.raises(UsageError, match="stdout"):
        output_paths(both, "xml", None)
    with pytest.raises(UsageError, match="directory"):
        output_paths(both, "xml", tmp_path / "many.xml")
    (tmp_path / "file").write_text("x")
    with pytest.raises(UsageError, match="not a file"):
        output_paths(both, "xml", tmp_path / "file")
    assert output_paths(both, "xml", tmp_path / "new") == [
        tmp_path / "new" / "io_art_small.xml", tmp_path / "new" / "io_mode2_small.xml"]
    with pytest.raises(UsageError, match="two papers"):
        output_paths([art_paper, art_paper], "xml", tmp_path / "dup")


def test_write_papers_refuses_to_overwrite_an_input(tmp_path, fixtures):
    src = tmp_path / "io_art_small.xml"
    src.write_bytes((fixtures / "io_art_small.xml").read_bytes())
    [paper] = read_file(src)
    before = src.read_bytes()
    with pytest.raises(UsageError, match="overwrite an input"):
        write_papers([paper], "xml", tmp_path)  # would be tmp_path/io_art_small.xml
    with pytest.raises(UsageError, match="overwrite an input"):
        write_papers([paper], "jsonl", src)
    link = tmp_path / "link.xml"
    link.symlink_to(src)
    with pytest.raises(UsageError, match="overwrite an input"):
        write_papers([paper], "xml", link)
    assert src.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["io_art_small.xml", "link.xml"]


def test_write_papers_files_are_complete(tmp_path, art_paper, mode2_paper):
    written = write_papers([art_paper, mode2_paper], "xml", tmp_path / "out")
    assert [p.name for p in written] == ["io_art_small.xml", "io_mode2_small.xml"]
    assert read_file(written[1])[0].sentences()[3].gold_codes == ["Exp", "Met"]
    [tsv] = write_papers([art_paper, mode2_paper], "tsv", tmp_path / "s.tsv")
    assert len(tsv.read_text().splitlines()) == 1 + len(art_paper) + len(mode2_paper)
    assert not list(tmp_path.rglob("*.part"))


@pytest.mark.slow
def test_all_gold_papers_round_trip(shared_data):
    """Every ART and CRA gold paper, written with its own gold labels, reads back the same
    (how long that takes: benchmarks/wall_clock.py)."""
    files = list(iter_input_files([shared_data / "art-corpus", shared_data / "cra-corpus"]))
    assert len(files) == 275
    n_sentences = 0
    for f in files:
        [paper] = read_file(f)
        back = reread(paper, render_mode2(paper, labels="gold"), f.name)
        assert gold_key(back) == gold_key(paper), f
        assert structure(back) == structure(paper), f
        n_sentences += len(back)
    assert n_sentences == 34680 + 8501
