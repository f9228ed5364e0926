"""The Elsevier reader: head, sections, floats placed at their anchors, the 108 real files."""

from __future__ import annotations

from collections import Counter

import pytest
from lxml import etree

from coresc.readers import read_file
from coresc.readers.presplit import read_presplit
from coresc.xmlsafe import parse_xml

JA = "{http://www.elsevier.com/xml/ja/dtd}"


def _read_back(paper):
    data = etree.tostring(paper.tree, encoding="utf-8")
    [back] = [read_presplit(paper.source_path, parse_xml(paper.source_path, data))]
    return back


def test_small_elsevier(fixtures):
    [paper] = read_file(fixtures / "elsevier_small.xml")
    assert paper.source_format == "elsevier" and paper.id == "elsevier_small"
    assert paper.title == "Wind turbines in cold climates"
    assert paper.meta["skipped_abstracts"] == ["author-highlights"]
    heads = [(s.heading, s.type, s.depth) for s in paper.sections]
    assert heads == [("Title", "title", 0), ("Abstract", "abstract", 0),
                     ("Introduction", "introduction", 1), ("Results", "results", 1),
                     ("Site 4", "results", 2), ("Figures and tables", "other", 1)]
    sents = paper.sentences()
    assert [s.sid for s in sents] == [str(i) for i in range(1, 12)]
    intro = [(s.zone, s.text) for s in paper.sections[2].sentences()]
    # The figure's caption follows the paragraph that anchors it.
    assert intro == [("body", "Icing reduces output [1,2]."), ("body", "It is shown in Fig. 1."),
                     ("body", "Speed is v here."), ("caption", "Wind speed over time."),
                     ("caption", "Dots are means.")]
    assert sents[3].n_citations == 2 and sents[4].n_citations == 0
    # An unanchored table comes last; its cells are not read.
    assert [s.text for s in paper.sections[-1].sentences()] == ["Sites used."]
    joined = " ".join(s.text for s in sents)
    for skipped in ("Icing matters", "thank the wind", "Ref. 2010", "Site A"):
        assert skipped not in joined
    for s in sents:
        assert s.element.tag == JA + "s" and s.element.get("sid") == s.sid
    back = _read_back(paper)
    assert {s.sid: s.text for s in back.sentences()} == {s.sid: s.text for s in sents}


def test_elsevier_output_is_detected_as_presplit(fixtures, tmp_path):
    [paper] = read_file(fixtures / "elsevier_small.xml")
    out = tmp_path / "written.xml"
    out.write_bytes(etree.tostring(paper.tree, encoding="utf-8"))
    [again] = read_file(out)
    assert again.source_format == "mode2" and len(again) == len(paper)


@pytest.mark.slow
def test_real_elsevier_files(shared_data):
    files = sorted((shared_data / "oa-stm" / "source-xml").glob("*.xml"))
    assert len(files) == 108
    total = Counter()
    for f in files[::9]:  # 12 papers spread over the domains; the benchmark reads all
        [paper] = read_file(f)
        sents = paper.sentences()
        zones = Counter(s.zone for s in sents)
        total.update(zones)
        assert paper.title and zones["title"] == 1, f
        assert zones["abstract"] >= 3 and zones["body"] > 40, (f, zones)
        assert [s.sid for s in sents] == [str(i) for i in range(1, len(sents) + 1)]
        assert {s.sid: s.text for s in _read_back(paper).sentences()} == {
            s.sid: s.text for s in sents}, f
    assert total["caption"] > 50
