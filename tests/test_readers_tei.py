"""The TEI reader (GROBID's output): structure, sentences, formulas, captions, the real files."""

from __future__ import annotations

from collections import Counter

import pytest
from lxml import etree

from coresc.errors import InputError
from coresc.readers import detect_xml_format, read_data, read_file
from coresc.readers.tei import FORMULA_TEXT, join_formulas
from coresc.tei import TEI_NS
from coresc.xmlsafe import localname, parse_xml

NS = {"t": TEI_NS}


def outline(paper):
    return [(s.heading, s.type, s.depth, s.parent) for s in paper.sections]


def texts(paper, zone=None):
    return [s.text for s in paper.sentences() if zone is None or s.zone == zone]


def test_grobid_layout(fixtures):
    [paper] = read_file(fixtures / "tei_grobid_small.xml")
    assert paper.id == "tei_grobid_small" and paper.source_format == "tei"
    assert paper.title == "Soap films template bacterial growth"
    # n="2.1" puts a section under the last "2"; an unnumbered div is a sibling of the
    # one before it; GROBID's numbers are not part of the heading.
    assert outline(paper) == [
        ("Title", "title", 0, None), ("Abstract", "abstract", 0, None),
        ("Introduction", "introduction", 1, None), ("Methods", "methods", 1, None),
        ("Film preparation", "methods", 2, 3), ("Strains", "methods", 2, 3),
        ("Results and discussion", "results", 1, None),
        ("Figures and tables", "other", 1, None),
        ("Appendix", "appendix", 1, None),  # back/div[@type="annex"], after the body
    ]
    assert texts(paper, "abstract") == ["Soap films are thin.", "We grew bacteria on them."]
    assert [s.sid for s in paper.sentences()] == [str(i) for i in range(1, 20)]


def test_body_sentences_in_order_and_from_back_only_the_annex(fixtures):
    [paper] = read_file(fixtures / "tei_grobid_small.xml")
    assert texts(paper, "body") == [
        "Bacteria grow on surfaces [1,2].",
        "Films are surfaces too (Smith et al., 2001).",
        "We describe the set-up.",
        f"The film thickness h follows {FORMULA_TEXT} where c is a constant.",
        "Films were drawn by hand.",
        "Energy was not measured.",
        f"We used E. coli K-12 with the inline formula {FORMULA_TEXT} applied.",
        "Cells were counted.",
        "Counting was done twice.",  # a div without head continues "Strains"
        "Growth followed the film closely.",  # the inline footnote is not text
        "See Fig. 1.",
        "An appendix sentence.",  # back/div[@type="annex"]: the paper's own text
    ]
    text = " ".join(texts(paper)).lower()
    for never in ("footnote", "thank", "cited paper", "byron"):
        assert never not in text
    strains = paper.sections[5]
    assert [len(p.sentences) for p in strains.paragraphs] == [2, 1]


def test_citations_from_bibr_refs(fixtures):
    [paper] = read_file(fixtures / "tei_grobid_small.xml")
    intro = list(paper.sections[2].sentences())
    assert [s.n_citations for s in intro] == [2, 1]  # target="#b0 #b1" is two


def test_captions(fixtures):
    [paper] = read_file(fixtures / "tei_grobid_small.xml")
    # "Figure 1 :" is only a label; "Table 1: Strains ..." says something; a body
    # paragraph "Figure 2: ..." is a caption GROBID left in the text.
    assert texts(paper, "caption") == [
        "Figure 2: Growth on a thick film.", "Colonies on a soap film.", "Scale bar 1 mm.",
        "Table 1: Strains used in this study."]
    assert {s.zone for s in paper.sections[7].sentences()} == {"caption"}


def test_display_formula_inside_a_sentence_joins_paragraphs(fixtures):
    [paper] = read_file(fixtures / "tei_grobid_small.xml")
    div = paper.tree.getroot().xpath("//t:div[t:head='Film preparation']", namespaces=NS)[0]
    # The formula moved into the first paragraph, which took in "where c is ...";
    # the formula after a finished sentence followed by a new one stays where it was.
    assert [localname(c) for c in div] == ["head", "p", "formula", "p"]
    first = div[1]
    assert first.find("t:s/t:formula", NS) is not None
    assert first.xpath("string(t:s[1])", namespaces=NS).startswith("The film thickness h")


def test_join_formulas_keeps_every_character():
    xml = (f'<div xmlns="{TEI_NS}"><p>Let <hi>y</hi> be</p><formula>y = 1</formula>'
           f'<p>, so that <ref>x</ref> holds.</p><p>Next.</p></div>')
    div = etree.fromstring(xml)
    before = "".join(div.itertext())
    join_formulas(div)
    assert "".join(div.itertext()).replace(" ", "") == before.replace(" ", "")
    assert [localname(c) for c in div] == ["p", "p"]
    assert [localname(c) for c in div[0]] == ["hi", "formula", "ref"]


def test_formulas_between_grobid_sentences_stay_apart():
    xml = (f'<div xmlns="{TEI_NS}"><p><s>Let y be</s></p><formula>y = 1</formula>'
           f'<p><s>where y is one.</s></p></div>')
    div = etree.fromstring(xml)
    join_formulas(div)  # GROBID split these paragraphs into sentences itself
    assert [localname(c) for c in div] == ["p", "formula", "p"]


def test_grobid_sentences_are_kept(fixtures):
    [paper] = read_file(fixtures / "tei_sentences.xml")
    root = paper.tree.getroot()
    # GROBID's own <s> are the sentences, even where our splitter would cut
    # ("Ponds flood too. So do lakes."); they are not renumbered or rewritten.
    grobid_s = root.xpath("//t:s[@coords]", namespaces=NS)
    by_element = {id(s.element): s for s in paper.sentences()}
    assert [by_element[id(el)].text for el in grobid_s] == [
        "Floods are frequent on floodplains (Hawker et al., 2022).",
        "Ponds flood too. So do lakes."]
    assert all(el.get("n") is None for el in grobid_s)
    assert by_element[id(grobid_s[0])].n_citations == 1
    # A paragraph without <s> is split; unmarked text beside GROBID's <s> is too.
    assert texts(paper, "body")[2:] == [
        "This paragraph has no sentence markup.", "It is split by coresc.",
        "A marked sentence.", "Then unmarked text.", "And more of it."]
    assert texts(paper, "abstract") == ["Flood maps are needed, e.g. for emergencies.",
                                        "Small streams are hard."]
    assert texts(paper, "caption") == ["A map of the floodplain."]  # <figDesc><div><p><s>


def test_nested_divs_front_abstract_lists_quotes(fixtures):
    [paper] = read_file(fixtures / "tei_nested.xml")
    assert outline(paper) == [
        ("Title", "title", 0, None), ("Abstract", "abstract", 0, None),
        ("", "other", 1, None), ("Materials and methods", "methods", 1, None),
        ("Reagents", "methods", 2, 3), ("Compound 4", "methods", 3, 4),
        ("Statistics", "methods", 2, 3), ("Results", "results", 1, None),
    ]
    assert texts(paper) == [
        "Nested sections", "An abstract in the front matter.",
        "A paragraph before any section.", "Outer methods text.", "Reagents were bought.",
        "Compound 4 was made.", "First listed step.", "Second listed step.",
        "A quoted sentence."]


def test_no_body(fixtures):
    [paper] = read_file(fixtures / "tei_nobody.xml")
    assert outline(paper) == [("Title", "title", 0, None), ("Abstract", "abstract", 0, None),
                              ("Background", "abstract", 1, 1), ("Findings", "abstract", 1, 1)]
    assert {s.zone for s in paper.sentences()} == {"title", "abstract"}


def test_nothing_to_read_is_an_empty_paper(fixtures):
    [paper] = read_file(fixtures / "tei_empty.xml")
    assert len(paper) == 0 and paper.title == ""


def test_detected_before_sentence_markup(fixtures):
    # A TEI file with <s> is TEI, not mode2; a mode2 file stays mode2.
    assert detect_xml_format(parse_xml("x", (fixtures / "tei_sentences.xml").read_bytes())) \
        == "tei"
    assert detect_xml_format(parse_xml("x", (fixtures / "io_mode2_small.xml").read_bytes())) \
        == "mode2"


def test_tei_corpus_refused_in_one_line():
    data = f'<teiCorpus xmlns="{TEI_NS}"><TEI/><TEI/></teiCorpus>'.encode()
    with pytest.raises(InputError) as err:
        read_data(data, "corpus.xml")
    assert str(err.value) == ("corpus.xml: a teiCorpus (several TEI documents in one file) "
                              "is not read; give one TEI file per paper")


def test_id_drops_tei_suffix(fixtures, tmp_path):
    f = tmp_path / "N18-3011.tei.xml"
    f.write_bytes((fixtures / "tei_nobody.xml").read_bytes())
    assert read_file(f)[0].id == "N18-3011"


# ---------------------------------------------------------------- the real GROBID files

REAL = {
    # file: (sentences, abstract sentences, caption sentences, body sections)
    "N18-3011": (214, 5, 0, 12),
    "2020.acl-main.207": (283, 8, 5, 19),
}


def _floating_text(p: etree._Element) -> str:
    """Text in a read element that no sentence took (tails between <s> only)."""
    out = [p.text or ""]
    for child in p:
        if localname(child) not in ("s", "note", "formula", "figure", "table"):
            out.append(_floating_text(child))
        out.append(child.tail or "")
    return "".join(out).strip()


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(REAL))
def test_real_grobid_papers(name, shared_data):
    [paper] = read_file(shared_data / "tei" / f"{name}.tei.xml")
    n, n_abstract, n_caption, n_sections = REAL[name]
    zones = Counter(s.zone for s in paper.sentences())
    assert len(paper) == n
    assert zones["title"] == 1 and zones["abstract"] == n_abstract
    assert zones["caption"] == n_caption
    assert sum(1 for s in paper.sections if s.depth >= 1) == n_sections
    root = paper.tree.getroot()
    # Every paragraph of title, abstract and body is read whole: no text is left
    # outside a sentence, and the sentences come in document order.
    read = root.xpath("//t:titleStmt/t:title[@type='main'] | //t:abstract//t:p"
                      " | //t:body//t:p | //t:body//t:figDesc", namespaces=NS)
    assert read and all(_floating_text(p) == "" for p in read)
    order = {el: i for i, el in enumerate(root.iter())}
    positions = [order[s.element] for s in paper.sentences()]
    assert positions == sorted(positions)
    for s in paper.sentences():  # nothing from back matter (but annexes) or footnotes
        ancestors = list(s.element.iterancestors())
        assert not {localname(a) for a in ancestors} & {"note"}
        assert all(a.get("type") == "annex" for a in ancestors
                   if localname(a) == "div" and localname(a.getparent()) == "back")
        assert s.text and "  " not in s.text


@pytest.mark.slow
def test_real_grobid_sample_by_eye(shared_data):
    """A sample checked by eye against the PDF: sections, zones and sentence texts."""
    [paper] = read_file(shared_data / "tei" / "N18-3011.tei.xml")
    assert paper.title == "Construction of the Literature Graph in Semantic Scholar"
    heads = [(s.heading, s.depth, s.parent) for s in paper.sections]
    assert heads[2:6] == [("Introduction", 1, None),
                          ("Structure of The Literature Graph", 1, None),
                          ("Node Types", 2, 3), ("Edge Types", 2, 3)]
    assert heads[-1] == ("Conclusion and Future Work", 1, None)
    sents = paper.sentences()
    assert sents[1].text.startswith("We describe a deployed scalable system")
    assert sents[1].zone == "abstract"
    assert sents[6].text == ("The goal of this work is to facilitate algorithmic discovery "
                             "in the scientific literature.")
    model = next(s for s in sents if s.text.startswith("The input token representations"))
    assert model.text == (
        "The input token representations are passed through one fully-connected layer and "
        f"then {FORMULA_TEXT} where W is a weight matrix, g k and h k are defined similarly "
        "to g ! k and h ! k but process token sequences in the opposite direction.")
    assert sents[-1].text == "15"  # GROBID left a footnote mark as the paragraph's end

    [specter] = read_file(shared_data / "tei" / "2020.acl-main.207.tei.xml")
    floats = specter.sections[-1]
    assert floats.heading == "Figures and tables"
    assert [s.text for s in floats.sentences()][:2] == [
        "t-SNE visualization of paper embeddings and their corresponding MAG topics.",
        "Results on the SCIDOCS evaluation suite consisting of 7 tasks."]
    assert ("Document Representation", 2) in [(s.heading, s.depth) for s in specter.sections]


def test_a_float_label_in_another_language_is_no_caption_sentence():
    """"Abbildung 1:", "Рис. 1:", "图 1:": a figure's head that is only its label, in the
    languages the PDF reader knows captions in, is no sentence (it was one: "Рис." and
    "1:" in every Russian PDF's caption)."""
    for label in ("Abbildung 1:", "Рис. 1:", "图 1:", "Tableau 2.", "Figure 3"):
        xml = (f'<TEI xmlns="{TEI_NS}"><text><body><div><head>Methods</head><p>We dried '
               f'it.</p><figure><head>{label}</head><figDesc>The oven we used.</figDesc>'
               f'</figure></div></body></text></TEI>').encode()
        [paper] = read_data(xml, "paper.tei.xml")
        assert texts(paper, "caption") == ["The oven we used."], label
