"""The pre-split reader on small invented documents and on the real gold corpora."""

from __future__ import annotations

from collections import Counter

import pytest

from coresc.readers import read_corpus, read_file

ART_DOC = """<?xml version="1.0"?>
<PAPER><mode2 name="demo01" hasDoc="yes" version="1"/>
 <TITLE><s sid="1"><annotationART atype="GSC" type="Obj" conceptID="Obj1" novelty="New"
   advantage="None">Tiny crystals in soap films</annotationART></s></TITLE>
 <ABSTRACT><s sid="2"><annotationART atype="GSC" type="Goa" conceptID="Goa1" novelty="None"
   advantage="None">We tried to grow crystals in soap films.</annotationART></s></ABSTRACT>
 <BODY><DIV DEPTH="1"><HEADER HEADER_MARKER="1.">Introduction</HEADER>
  <P><s sid="3"><annotationART atype="GSC" type="Bac" conceptID="Bac1" novelty="None"
    advantage="None">Films can template growth.<REF TYPE="P" ID="cit1 cit2">1,2</REF>
    </annotationART></s></P>
  <DIV DEPTH="2"><HEADER>Reagents</HEADER>
   <P><s sid="4"><annotationART atype="GSC" type="Exp" conceptID="Exp1" novelty="None"
     advantage="Yes">Salt (H<SB>2</SB>O, 0.1 M) was used.</annotationART></s></P></DIV></DIV>
 </BODY>
</PAPER>"""

MODE2_DOC = """<PAPER><mode2 name="x" hasDoc="yes" version="1"/>
<TITLE><s sid="1">A title <CoreSc1 atype="GSC" type="Obj" conceptID="Obj1"/></s></TITLE>
<BODY><SEC><TITLE>Methods</TITLE><h3>Rats</h3>
<p><s sid="2">We measured uptake and propose a model.<CoreSc1 atype="GSC" type="Exp"
conceptID="Exp3" novelty="None" advantage="None"/><CoreSc2 atype="GSC" type="Mod"
conceptID="Mod1" novelty="None" advantage="None"/></s><s sid="3">No label here.</s></p>
<fig><caption><p><s sid="4">Uptake over time.<CoreSc1 type="Obs"/></s></p></caption></fig>
</SEC></BODY></PAPER>"""


def test_art_structure_text_and_labels(tmp_path):
    f = tmp_path / "demo01_mode2.xml"
    f.write_text(ART_DOC)
    [paper] = read_file(f)
    assert paper.id == "demo01" and paper.source_format == "art"
    assert paper.title == "Tiny crystals in soap films"
    types = [(s.type, s.depth, s.heading) for s in paper.sections]
    assert types == [("title", 0, "Title"), ("abstract", 0, "Abstract"),
                     ("introduction", 1, "Introduction"), ("methods", 2, "Reagents")]
    assert paper.sections[3].parent == 2
    sents = paper.sentences()
    assert [s.zone for s in sents] == ["title", "abstract", "body", "body"]
    assert sents[2].text == "Films can template growth.1,2"
    assert sents[2].n_citations == 2
    assert sents[3].text == "Salt (H2O, 0.1 M) was used."
    assert sents[3].gold[0].code == "Exp" and sents[3].gold[0].advantage == "Yes"


def test_mode2_multilabel_flat_headings_and_captions(tmp_path):
    f = tmp_path / "x_mode2_annotated.xml"
    f.write_text(MODE2_DOC)
    [paper] = read_file(f)
    assert paper.id == "x" and paper.source_format == "mode2"
    sents = paper.sentences()
    assert [s.gold_codes for s in sents] == [["Obj"], ["Exp", "Mod"], [], ["Obs"]]
    assert sents[1].text == "We measured uptake and propose a model."
    assert sents[3].zone == "caption"
    rats = next(sec for sec in paper.sections if sec.heading == "Rats")
    assert rats.depth == 2 and paper.sections[rats.parent].heading == "Methods"


@pytest.mark.slow
def test_art_corpus_counts(shared_data):
    papers = read_corpus([shared_data / "art-corpus"])
    assert len(papers) == 225
    counts = Counter(s.gold_codes[0] for p in papers for s in p.sentences())
    assert counts == {"Res": 7373, "Bac": 6657, "Obs": 4659, "Met": 3751, "Mod": 3456,
                      "Con": 3083, "Exp": 2841, "Obj": 1190, "Hyp": 656, "Goa": 548,
                      "Mot": 466}


@pytest.mark.slow
def test_cra_corpus_counts(shared_data):
    papers = read_corpus([shared_data / "cra-corpus"])
    assert len(papers) == 50
    n_labels = Counter(len(s.gold) for p in papers for s in p.sentences())
    assert n_labels == {1: 8171, 2: 274, 3: 2, 0: 54}


@pytest.mark.slow
def test_oa_stm_silver_reads(shared_data):
    papers = read_corpus([shared_data / "oa-stm" / "coresc-auto"])
    assert len(papers) == 107
    assert all(len(p) > 0 for p in papers)
    assert sum(len(p) for p in papers) == 30586
