"""TEI out for TEI in: labels on each <s>, the taxonomy in the header, everything else kept."""

from __future__ import annotations

import copy

import pytest
from lxml import etree

from coresc.cli import main
from coresc.document import Label, Prediction
from coresc.readers import read_data, read_file
from coresc.tei import CORESC_NS, SCORE_ATTR, TEI_NS, XML_NS
from coresc.writers.mode2 import render_mode2
from coresc.writers.tei import render_tei
from coresc.writers.xml import render_xml
from coresc.xmlsafe import localname

NS = {"t": TEI_NS, "coresc": CORESC_NS}
RANKED = [[Prediction("Met", 0.7123), Prediction("Exp", 0.2)], [Prediction("Bac", 0.9)],
          [Prediction("Res", 0.5), Prediction("Obs", 0.3), Prediction("Con", 0.1)]]


@pytest.fixture
def predicted(fixtures):
    [paper] = read_file(fixtures / "tei_grobid_small.xml")
    for i, s in enumerate(paper.sentences()):
        s.pred = RANKED[i % 3]
    return paper


def test_each_sentence_carries_ranked_labels_and_scores(predicted):
    root = etree.fromstring(render_xml(predicted))
    assert localname(root) == "TEI" and root.nsmap["coresc"] == CORESC_NS
    s = root.xpath("//t:body//t:s", namespaces=NS)[0]
    assert s.get("ana") == "#coresc.Met #coresc.Exp"
    assert s.get(SCORE_ATTR) == "0.712 0.200"
    labelled = root.xpath("//t:s[@ana]", namespaces=NS)
    assert len(labelled) == len(predicted)


def test_header_declares_taxonomy_and_application(predicted):
    root = etree.fromstring(render_tei(predicted))
    enc = root.find("t:teiHeader/t:encodingDesc", NS)
    apps = [a.get("ident") for a in enc.iterfind("t:appInfo/t:application", NS)]
    assert apps == ["GROBID", "coresc"]  # GROBID's entry kept
    tax = enc.find("t:classDecl/t:taxonomy", NS)
    assert tax.get(f"{{{XML_NS}}}id") == "coresc"
    cats = {c.get(f"{{{XML_NS}}}id"): c.findtext("t:catDesc", namespaces=NS)
            for c in tax.iterfind("t:category", NS)}
    assert cats["coresc.Met"] == "Method" and len(cats) == 11
    # Every pointer resolves to a category.
    for s in root.xpath("//t:s[@ana]", namespaces=NS):
        assert all(t[1:] in cats for t in s.get("ana").split())
    # encodingDesc sits in its schema place: after fileDesc, before profileDesc; the
    # provenance in xenoData, after profileDesc
    assert [localname(c) for c in root.find("t:teiHeader", NS)] == [
        "fileDesc", "encodingDesc", "profileDesc", "xenoData"]
    [prov] = root.find("t:teiHeader/t:xenoData", NS)
    assert prov.tag == f"{{{CORESC_NS}}}provenance" and prov.get("source_format") == "xml"


def _strip_coresc(root: etree._Element) -> None:
    """Remove what the TEI writer adds, to compare the rest with the source."""
    for s in root.iter(f"{{{TEI_NS}}}s"):
        for attr in ("ana", SCORE_ATTR):
            s.attrib.pop(attr, None)
    for el in root.xpath("//t:application[@ident='coresc'] | //t:taxonomy[@xml:id='coresc']",
                         namespaces=NS):
        el.getparent().remove(el)
    for el in root.iter(f"{{{CORESC_NS}}}provenance"):
        el.getparent().remove(el)
    for name in ("classDecl", "xenoData"):
        for el in root.iter(f"{{{TEI_NS}}}{name}"):
            if len(el) == 0:
                el.getparent().remove(el)


def test_everything_else_is_kept(predicted):
    out = etree.fromstring(render_tei(predicted))
    _strip_coresc(out)
    source = copy.deepcopy(predicted.tree.getroot())  # as read: with the new <s n>
    canon = [etree.tostring(x, method="c14n", exclusive=True) for x in (out, source)]
    assert canon[0] == canon[1]


def test_paper_tree_untouched_and_output_stable(predicted):
    before = etree.tostring(predicted.tree)
    first = render_tei(predicted)
    assert render_tei(predicted) == first and etree.tostring(predicted.tree) == before


def test_round_trip_predictions(predicted):
    [back] = read_data(render_xml(predicted), "tei_grobid_small.tei.xml")
    assert [s.text for s in back.sentences()] == [s.text for s in predicted.sentences()]
    assert [s.sid for s in back.sentences()] == [s.sid for s in predicted.sentences()]
    assert [[(p.label, round(p.score, 3)) for p in s.pred] for s in back.sentences()] == [
        [(p.label, round(p.score, 3)) for p in s.pred] for s in predicted.sentences()]
    assert all(not s.gold for s in back.sentences())
    assert [(x.heading, x.type, x.depth, x.parent) for x in back.sections] == [
        (x.heading, x.type, x.depth, x.parent) for x in predicted.sections]


def test_round_trip_gold_and_own_ana_kept(fixtures):
    [paper] = read_file(fixtures / "tei_sentences.xml")
    first = paper.sentences()[0].element
    first.set("ana", "#mine")
    for s in paper.sentences():
        s.gold = [Label("Bac"), Label("Mot")]
    data = render_tei(paper)
    root = etree.fromstring(data)
    assert root.xpath("//t:title/t:s/@ana", namespaces=NS) == ["#mine #coresc.Bac #coresc.Mot"]
    assert not root.xpath("//t:s[@coresc:score]", namespaces=NS)
    [back] = read_data(data, "again.xml")
    assert [s.gold_codes for s in back.sentences()] == [["Bac", "Mot"]] * len(paper)
    assert [s.text for s in back.sentences()] == [s.text for s in paper.sentences()]
    # Annotating again replaces coresc's labels and the header entries, once each.
    for s in back.sentences():
        s.pred = [Prediction("Hyp", 0.4)]
    again = etree.fromstring(render_tei(back))
    assert again.xpath("//t:title/t:s/@ana", namespaces=NS) == ["#mine #coresc.Hyp"]
    assert len(again.xpath("//t:taxonomy", namespaces=NS)) == 1
    assert len(again.xpath("//t:application[@ident='coresc']", namespaces=NS)) == 1


def test_prolog_and_header_made_when_missing():
    data = (f'<?xml-model href="tei_all.rng"?><!-- kept --><TEI xmlns="{TEI_NS}"><text><body>'
            f'<div><head>Results</head><p>It worked. It was fast.</p></div></body></text>'
            f'</TEI>').encode()
    [paper] = read_data(data, "bare.xml")
    for s in paper.sentences():
        s.pred = [Prediction("Res", 0.8)]
    out = render_tei(paper)
    assert b'<?xml-model href="tei_all.rng"?><!-- kept --><TEI' in out
    root = etree.fromstring(out)
    assert root.find("t:teiHeader/t:encodingDesc/t:classDecl/t:taxonomy", NS) is not None


def test_unlabelled_tei_gets_sentences_only(fixtures):
    [paper] = read_file(fixtures / "tei_grobid_small.xml")
    root = etree.fromstring(render_tei(paper))
    assert len(root.xpath("//t:s[@n]", namespaces=NS)) == len(paper)
    assert not root.xpath("//t:s[@ana] | //t:taxonomy", namespaces=NS)


def test_tei_writer_needs_tei(fixtures):
    [paper] = read_file(fixtures / "jats_small.xml")
    with pytest.raises(ValueError, match="needs a paper read from TEI"):
        render_tei(paper)
    assert etree.fromstring(render_xml(paper)).tag == "PAPER"  # xml: mode2 for the rest


def test_cli_to_xml_is_tei_and_to_mode2_is_mode2(fixtures, tmp_path):
    src = fixtures / "tei_grobid_small.xml"
    assert main(["convert", str(src), "-o", str(tmp_path / "a.xml")]) == 0
    assert localname(etree.parse(str(tmp_path / "a.xml")).getroot()) == "TEI"
    assert main(["convert", str(src), "--to", "mode2", "-o", str(tmp_path / "b.xml")]) == 0
    mode2 = etree.parse(str(tmp_path / "b.xml")).getroot()
    assert mode2.tag == "PAPER" and localname(mode2[1]) == "TEI"
    [back] = read_file(tmp_path / "b.xml")
    assert back.source_format == "mode2" and len(back) == len(read_file(src)[0])
    assert render_mode2(back)  # and it writes again


def test_tei_without_namespace_stays_without():
    data = (b"<TEI><teiHeader><fileDesc><titleStmt><title>Old TEI</title></titleStmt>"
            b"</fileDesc></teiHeader><text><body><p>We found it.</p></body></text></TEI>")
    [paper] = read_data(data, "p4.xml")
    assert [s.text for s in paper.sentences()] == ["Old TEI", "We found it."]
    for s in paper.sentences():
        s.pred = [Prediction("Res", 0.6)]
    root = etree.fromstring(render_tei(paper))
    assert root.find("teiHeader/encodingDesc/classDecl/taxonomy") is not None
    assert root.find("text/body/p/s").get("ana") == "#coresc.Res"
