"""The JATS reader: structure, captions, skipped parts, <s> insertion, the 10 real files."""

from __future__ import annotations

from collections import Counter

import pytest
from lxml import etree

from coresc.readers import read_data, read_file


def _read_back(paper):
    """Serialise the tree with its new <s> elements and read it as a pre-split file."""
    data = etree.tostring(paper.tree, encoding="utf-8")
    [back] = read_data(data, paper.source_path, "mode2")
    return back


def test_small_jats_structure(fixtures):
    [paper] = read_file(fixtures / "jats_small.xml")
    assert paper.id == "jats_small" and paper.source_format == "jats"
    assert paper.title == "Soap films template E. coli growth"
    assert paper.meta["skipped_abstracts"] == ["executive-summary"]
    heads = [(s.heading, s.type, s.depth, s.parent) for s in paper.sections]
    assert heads == [("Title", "title", 0, None), ("Abstract", "abstract", 0, None),
                     ("Introduction", "introduction", 1, None),
                     ("Materials and methods", "methods", 1, None),
                     ("Strains", "methods", 2, 3)]
    sents = paper.sentences()
    assert [s.sid for s in sents] == [str(i) for i in range(1, len(sents) + 1)]
    texts = [s.text for s in sents]
    assert texts[:5] == ["Soap films template E. coli growth", "We grew E. coli on soap films.",
                         "Growth was fast.", "Films can template growth [1,2].",
                         "Little is known (see Fig. 1)."]
    # The display formula ends a run; "Note. This" is inside <bold>, so no cut there.
    assert texts[5:9] == ["Cells were grown at 37 °C in 0.1 M buffer", "where x is the dose.",
                          "Note. This was cited.3", "Next we counted."]
    assert [(s.zone, s.text) for s in sents[9:]] == [
        ("caption", "Growth on films."), ("caption", "Cells grew."),
        ("caption", "Bars show s.d.")]
    assert sents[3].n_citations == 2
    assert [s.zone for s in sents[:4]] == ["title", "abstract", "abstract", "body"]
    joined = " ".join(texts)
    for skipped in ("Bacteria like soap", "thank the soap", "reviewers", "A ref", "x=1"):
        assert skipped not in joined


def test_small_jats_s_elements_in_tree(fixtures):
    [paper] = read_file(fixtures / "jats_small.xml")
    for s in paper.sentences():
        assert s.element.tag == "s" and s.element.get("sid") == s.sid
        assert s.element.getroottree().getroot() is paper.tree.getroot()
    # Inline markup is kept inside the sentence that holds it.
    s4 = paper.sentences()[3].element
    assert [c.get("rid") for c in s4.iter("xref")] == ["b1", "b2"]
    back = _read_back(paper)
    assert [(s.sid, s.text, s.zone) for s in back.sentences()] == [
        (s.sid, s.text, s.zone) for s in paper.sentences()]


@pytest.mark.slow
def test_real_jats_files(shared_data):
    files = sorted((shared_data / "jats").glob("*xml"))
    assert len(files) == 10
    for f in files:
        [paper] = read_file(f)
        sents = paper.sentences()
        zones = Counter(s.zone for s in sents)
        assert paper.title, f
        assert zones["title"] == 1 and 3 <= zones["abstract"] <= 20, (f, zones)
        assert zones["body"] > 60 and len(sents) > 75, (f, zones)  # elife06003 is short
        assert sum(1 for s in paper.sections if s.depth >= 1) >= 4, f
        assert sum(s.n_citations for s in sents) > 20, f
        for s in sents:  # nothing from peer reviews or back matter
            anc = {a.tag for a in s.element.iterancestors()}
            assert not anc & {"sub-article", "back"}, (f, s.text)
            assert s.text and "  " not in s.text
        assert [s.text for s in _read_back(paper).sentences()] == [s.text for s in sents], f
        types = {s.type for s in paper.sections}
        assert {"title", "abstract"} <= types and types & {"methods", "results"}, (f, types)


def test_an_untitled_part_of_the_abstract_carries_on_the_part_before_it():
    """PLOS Medicine ends a structured abstract with a part that has no title (a pointer
    to the Editors' Summary): no section a reader sees, so no section of its own (its
    ordinal would shift every later section's)."""
    jats = b"""<article><front><article-meta>
      <title-group><article-title>Ovens</article-title></title-group>
      <abstract>
        <sec><title>Background</title><p>Ovens dry samples.</p></sec>
        <sec><title>Conclusions</title><p>Drying took a day.</p></sec>
        <sec><p>Please see later in the article for the Editors' Summary.</p></sec>
      </abstract></article-meta></front>
      <body><sec><title>Introduction</title><p>We dried samples.</p></sec></body>
    </article>"""
    [paper] = read_data(jats, "ovens.xml", "jats")
    heads = [(s.heading, s.depth) for s in paper.sections]
    assert heads == [("Title", 0), ("Abstract", 0), ("Background", 1), ("Conclusions", 1),
                     ("Introduction", 1)]
    assert [s.text for s in paper.sections[3].sentences()] == [
        "Drying took a day.", "Please see later in the article for the Editors' Summary."]


def test_named_character_references_of_the_dtd_are_read_as_their_characters():
    """JATS's DTD defines HTML's and MathML's character names; the DTD is never read, so
    they come from Python's own table: "Bras&iacute;lia" keeps its letter."""
    jats = b"""<!DOCTYPE article PUBLIC "-//NLM//DTD Journal Publishing DTD v3.0 20080202//EN"
      "journalpublishing3.dtd">
      <article><front><article-meta><title-group><article-title>Ovens</article-title>
      </title-group></article-meta></front><body><sec><title>Results</title>
      <p>It was found in Bras&iacute;lia (p&hairsp;&equals;&hairsp;0,003) and &unknownname;
      here.</p>
      <fig><caption><title>Ovens.</title><p>10.1371/journal.pone.0000010.g001</p></caption>
      </fig></sec></body></article>"""
    [paper] = read_data(jats, "ovens.xml", "jats")
    texts = [s.text for s in paper.sentences()]
    assert "It was found in Bras\u00edlia (p = 0,003) and here." in texts
    assert not any("10.1371" in t for t in texts)  # a caption's bare DOI is no sentence


def test_a_paragraph_of_many_named_references_is_read_in_linear_time():
    """100,000 references in one paragraph: each text joined once (joining the tail again
    for every reference took minutes); a bound ten times what it takes, not a timing."""
    import time

    from coresc.xmlsafe import parse_xml

    jats = (b'<!DOCTYPE article PUBLIC "-//NLM//DTD JATS//EN" "jats.dtd"><article><body><p>'
            + b"Bras&iacute;lia. " * 100_000 + b"</p></body></article>")
    start = time.process_time()
    tree = parse_xml("many.xml", jats)
    assert time.process_time() - start < 10
    assert "".join(tree.getroot().itertext()) == "Bras\u00edlia. " * 100_000
