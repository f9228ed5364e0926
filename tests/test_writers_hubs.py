"""The formats text-mining hubs take in: BioC XML and JSON, W3C Web Annotation,
PubAnnotation; each read back by its own tool or checked against its model's shape, and
the provenance every record carries."""

from __future__ import annotations

import io
import json

import pytest
from helpers import need, sentence, text_papers

from coresc.document import Paper, Paragraph, Prediction, Section
from coresc.writers import get_writer, write_papers
from coresc.writers.layout import paper_text, passages
from coresc.writers.provenance import provenance, source_kind
from coresc.writers.pubannotation import render_pubannotation
from coresc.writers.w3c import CONTEXT, CONTEXT_IRI, annotations

bioc = need("bioc")
from bioc import biocjson, biocxml  # noqa: E402
from bioc.validator import BioCValidator  # noqa: E402

#: What PMC's metadata gives a paper (the PMC inputs put these into Paper.meta).
PMC_META = {"pmcid": "PMC1234567", "pmid": "7654321", "doi": "10.1000/xyz.1",
            "version": 2, "license": "CC BY", "retracted": False, "source_format": "xml",
            "journal": "J Test", "year": 2020, "model": "fast",
            "model_version": "2026-11-25T09:20:40+00:00"}


def hub_paper(pid: str = "PMC1234567", meta: dict | None = None) -> Paper:
    """A small annotated paper: title, abstract, two body paragraphs, a caption; text
    beyond ASCII (code points, not bytes, are counted), a withheld label, gold labels."""
    title = Section("Title", "title", 0, paragraphs=[Paragraph([
        sentence(1, "Copper ions stop biofilms — a study of Ωmega strains", zone="title",
                 pred=[("Obj", 0.61)])])])
    abstract = Section("Abstract", "abstract", 0, paragraphs=[Paragraph([
        sentence(2, "We asked whether copper stops biofilms.", zone="abstract",
                 pred=[("Goa", 0.7), ("Obj", 0.2)]),
        sentence(3, "It does, at 5 µM.", zone="abstract", gold=["Res"],
                 pred=[("Res", 0.8), ("Con", 0.15), ("Obs", 0.05)])])])
    intro = Section("1. Introduction", "introduction", 1, paragraphs=[
        Paragraph([sentence(4, "Biofilms resist antibiotics [1].", pred=[("Bac", 0.9)]),
                   sentence(5, "We hypothesise that copper disrupts them.",
                            pred=[("Hyp", 0.55), ("Mot", 0.3)])]),
        Paragraph([sentence(6, "Little is known.")]),  # not annotated: no label
        Paragraph([sentence(7, "Figure 1. Copper uptake.", zone="caption",
                            pred=[("Obs", 0.4)])])])
    paper = Paper(id=pid, title="Copper", source_format="jats",
                  sections=[title, abstract, intro], meta=dict(meta or {}))
    intro.paragraphs[1].sentences[0].withheld = Prediction("Bac", 0.2)
    return paper


def validated(collection) -> None:
    """The bioc package's own check: every annotation's text is what its location covers."""
    BioCValidator().validate(collection)


def test_layout_places_every_sentence_in_the_text():
    paper = hub_paper()
    text = paper_text(paper)
    for passage in passages(paper):
        assert text[passage.offset:passage.offset + len(passage.text)] == passage.text
        for placed in passage.sentences:
            assert text[placed.start:placed.end] == placed.sentence.text
    assert text.count("\n") == 4  # five paragraphs, one newline between two


@pytest.mark.parametrize("fmt, module", [("bioc", biocxml), ("bioc-json", biocjson)])
def test_bioc_is_read_back_by_the_bioc_package_with_offsets_on_the_text(fmt, module,
                                                                        tmp_path):
    papers = [hub_paper(), hub_paper("second", {"model": "fast"})]
    out = tmp_path / f"all.{fmt}"
    write_papers(papers, fmt, out)
    with open(out, encoding="utf-8") as fh:
        collection = module.load(fh)
    validated(collection)
    assert [d.id for d in collection.documents] == ["PMC1234567", "second"]
    doc = collection.documents[0]
    anns = [a for p in doc.passages for a in p.annotations]
    assert len(anns) == 7 and len({a.id for a in anns}) == 7  # one per sentence
    for passage in doc.passages:
        for ann in passage.annotations:
            loc = ann.total_span
            start = loc.offset - passage.offset
            assert passage.text[start:start + loc.length] == ann.text
    by_sid = {a.infons["sid"]: a.infons for a in anns}
    assert by_sid["3"] == {"type": "CoreSC", "sid": "3", "label": "Res", "score": "0.8000",
                           "secondary": "Con|Obs", "secondary_scores": "0.1500|0.0500",
                           "gold": "Res"}
    assert by_sid["6"] == {"type": "CoreSC", "sid": "6", "withheld": "Bac",
                           "withheld_score": "0.2000"}
    assert [(p.infons["section_type"], p.infons["type"]) for p in doc.passages] == [
        ("TITLE", "front"), ("ABSTRACT", "abstract"), ("INTRO", "paragraph"),
        ("INTRO", "paragraph"), ("FIG", "fig_caption")]


#: BioC's DTD (BioC.dtd, the format's definition), element by element.
BIOC_DTD = """
<!ELEMENT collection ( source, date, key, infon*, document+ ) >
<!ELEMENT source (#PCDATA)>
<!ELEMENT date (#PCDATA)>
<!ELEMENT key (#PCDATA)>
<!ELEMENT infon (#PCDATA)>
<!ATTLIST infon key CDATA #REQUIRED >
<!ELEMENT document ( id, infon*, passage+, annotation*, relation* ) >
<!ELEMENT id (#PCDATA)>
<!ELEMENT passage ( infon*, offset, ( ( text?, annotation* ) | sentence* ), relation* ) >
<!ELEMENT offset (#PCDATA)>
<!ELEMENT text (#PCDATA)>
<!ELEMENT sentence ( infon*, offset, text?, annotation*, relation* ) >
<!ELEMENT annotation ( infon*, location*, text ) >
<!ATTLIST annotation id CDATA #IMPLIED >
<!ELEMENT location EMPTY>
<!ATTLIST location offset CDATA #REQUIRED >
<!ATTLIST location length CDATA #REQUIRED >
<!ELEMENT relation ( infon*, node* ) >
<!ATTLIST relation id CDATA #IMPLIED >
<!ELEMENT node EMPTY>
<!ATTLIST node refid CDATA #REQUIRED >
<!ATTLIST node role CDATA "" >
"""


def test_bioc_xml_is_valid_against_biocs_dtd():
    from lxml import etree

    out = io.StringIO()
    get_writer("bioc").load()([hub_paper(meta=PMC_META), hub_paper("b")], out)
    root = etree.fromstring(out.getvalue().encode("utf-8"),
                            etree.XMLParser(resolve_entities=False, no_network=True))
    dtd = etree.DTD(io.StringIO(BIOC_DTD))
    assert dtd.validate(root), dtd.error_log.filter_from_errors()


def test_bioc_documents_carry_the_provenance():
    out = io.StringIO()
    get_writer("bioc-json").load()([hub_paper(meta=PMC_META)], out)
    [doc] = biocjson.loads(out.getvalue()).documents
    assert doc.infons == {**{k: str(v) for k, v in PMC_META.items()},
                          "retracted": "false", "coresc_version": doc.infons["coresc_version"]}
    xml = io.StringIO()
    get_writer("bioc").load()([hub_paper(meta=PMC_META)], xml)
    [same] = biocxml.loads(xml.getvalue()).documents
    assert same.infons == doc.infons


def test_w3c_annotations_have_the_models_shape_and_quotes_found_at_their_position():
    paper = hub_paper(meta=PMC_META)
    text = paper_text(paper)
    lines = get_writer("w3c").load("part")(paper).splitlines()
    found = [json.loads(line) for line in lines]
    assert len(found) == len(paper)
    for ann in found:
        assert ann["@context"] == CONTEXT_IRI and ann["type"] == "Annotation"
        assert ann["id"].startswith("urn:coresc:") and ann["motivation"] == "classifying"
        target = ann["target"]
        assert target["source"] == "https://pmc.ncbi.nlm.nih.gov/articles/PMC1234567/"
        quote, position = target["selector"]
        assert quote["type"] == "TextQuoteSelector"
        assert position["type"] == "TextPositionSelector"
        start, end = position["start"], position["end"]
        assert text[start:end] == quote["exact"]
        assert quote["prefix"] == text[max(0, start - CONTEXT):start]
        assert quote["suffix"] == text[end:end + CONTEXT]
        assert ann["provenance"]["pmcid"] == "PMC1234567"
        assert ann["provenance"]["license"] == "CC BY"
    bodies = {a["provenance"]["sid"]: a.get("body") for a in found}
    assert bodies["5"]["type"] == "TextualBody" and bodies["5"]["purpose"] == "classifying"
    assert bodies["5"]["value"] == "Hyp" and bodies["5"]["score"] == 0.55
    assert bodies["5"]["secondary"] == [{"value": "Mot", "score": 0.3}]
    assert bodies["5"]["creator"] == {"type": "Software", "name": "coresc model fast",
                                      "version": "2026-11-25T09:20:40+00:00"}
    assert bodies["6"] is None  # no label: a bodiless annotation marks the sentence


def test_w3c_target_names_the_article_by_what_it_has():
    by_doi = next(annotations(hub_paper("x", {"doi": "10.1/a b"})))
    assert by_doi["target"]["source"] == "https://doi.org/10.1/a%20b"
    bare = next(annotations(hub_paper("my paper")))
    assert bare["target"]["source"] == "urn:coresc:my%20paper"


def test_pubannotation_spans_are_the_sentences():
    paper = hub_paper(meta=PMC_META)
    doc = json.loads(render_pubannotation(paper))
    assert (doc["sourcedb"], doc["sourceid"]) == ("PMC", "1234567")
    sentences = paper.sentences()
    assert len(doc["denotations"]) == len(sentences)
    for den, sent in zip(doc["denotations"], sentences, strict=True):
        assert doc["text"][den["span"]["begin"]:den["span"]["end"]] == sent.text
        assert den["obj"] == (sent.pred[0].label if sent.pred else "Sentence")
    facts = {(a["subj"], a["pred"], a["obj"]) for a in doc["attributes"]}
    assert {("T3", "score", 0.8), ("T3", "secondary", "Con"), ("T3", "secondary", "Obs"),
            ("T3", "gold", "Res")} <= facts
    assert len({a["id"] for a in doc["attributes"]}) == len(doc["attributes"])
    assert doc["provenance"]["doi"] == "10.1000/xyz.1"


def test_provenance_says_where_a_paper_came_from():
    paper = hub_paper(meta={"pmcid": "PMC1", "license": "", "pdf_reader": "x"})
    found = provenance(paper)
    assert found["pmcid"] == "PMC1" and "license" not in found  # empty: not known
    assert found["source_format"] == "pdf"  # read from a PDF, though meta did not say
    assert source_kind(hub_paper()) == "xml"
    assert provenance(hub_paper(meta={"source_format": "pdf"}))["source_format"] == "pdf"


def test_annotated_papers_name_the_model(tmp_path):
    from coresc.batch import annotate_files

    text_papers(tmp_path / "in", 2)
    out = tmp_path / "all.bioc.json"
    annotate_files([tmp_path / "in"], out, to="bioc-json", model="fast", progress="off")
    collection = biocjson.loads(out.read_text(encoding="utf-8"))
    validated(collection)
    for doc in collection.documents:
        assert doc.infons["model"] == "fast"
        assert doc.infons["model_version"].startswith("20")
        assert doc.infons["source_format"] == "text"
        anns = [a for p in doc.passages for a in p.annotations]
        assert anns and all("label" in a.infons for a in anns)


@pytest.mark.parametrize("fmt", ["bioc", "bioc-json", "w3c"])
def test_stdout_and_jobs_give_the_file_a_batch_writes(fmt, tmp_path, capsysbinary):
    """Streamed to standard output, by one process or two, in parts joined at the end:
    the same bytes (BioC's collection closed once, BioC JSON's documents comma-separated)."""
    from coresc.batch import annotate_files
    from coresc.cli import main

    folder = tmp_path / "in"
    text_papers(folder, 3)
    assert main(["annotate", str(folder), "--to", fmt, "-q"]) == 0
    piped = capsysbinary.readouterr().out
    annotate_files([folder], tmp_path / "one", to=fmt, progress="off")
    annotate_files([folder], tmp_path / "two", to=fmt, jobs=2, progress="off")
    assert (tmp_path / "one").read_bytes() == (tmp_path / "two").read_bytes() == piped
    if fmt == "bioc":
        validated(biocxml.loads(piped.decode("utf-8")))
    elif fmt == "bioc-json":
        assert len(biocjson.loads(piped.decode("utf-8")).documents) == 3


def test_pubannotation_batch_writes_one_file_per_paper(tmp_path):
    from coresc.batch import annotate_files

    text_papers(tmp_path / "in", 2)
    annotate_files([tmp_path / "in"], tmp_path / "out", to="pubannotation", progress="off")
    files = sorted(p.name for p in (tmp_path / "out").glob("*.json"))
    assert files == ["p000.json", "p001.json"]
    doc = json.loads((tmp_path / "out" / "p000.json").read_text(encoding="utf-8"))
    assert doc["sourcedb"] == "coresc" and doc["sourceid"] == "p000"
    assert all(d["obj"] != "Sentence" for d in doc["denotations"])


def test_jats_gives_its_identifiers_journal_and_year(tmp_path):
    from coresc.readers import read_file

    nxml = tmp_path / "a.nxml"
    nxml.write_text(
        "<article><front><journal-meta><journal-title-group><journal-title>J  Test"
        "</journal-title></journal-title-group></journal-meta><article-meta>"
        '<article-id pub-id-type="pmid">111</article-id>'
        '<article-id pub-id-type="pmc">222</article-id>'
        '<article-id pub-id-type="doi">10.1/x</article-id>'
        '<title-group><article-title>A title</article-title></title-group>'
        '<pub-date pub-type="collection"><year>2019</year></pub-date>'
        '<pub-date pub-type="epub"><day>1</day><year>2018</year></pub-date>'
        "</article-meta></front><body><p>We found copper works. It is good.</p></body>"
        "</article>", encoding="utf-8")
    [paper] = read_file(nxml)
    assert {k: paper.meta[k] for k in ("pmcid", "pmid", "doi", "journal", "year")} == {
        "pmcid": "PMC222", "pmid": "111", "doi": "10.1/x", "journal": "J Test", "year": 2018}


def test_a_real_pmc_article_as_bioc_and_w3c(shared_data, tmp_path):
    """An article of ../shared/data as PMC gives it: read back by bioc, its ids carried."""
    from coresc.batch import annotate_files

    nxml = shared_data / "jats" / "1471-2180-11-174.nxml"
    if not nxml.is_file():
        pytest.skip(f"{nxml} not found")
    annotate_files([nxml], tmp_path / "a.bioc.xml", to="bioc", model="fast", progress="off")
    [doc] = biocxml.load(open(tmp_path / "a.bioc.xml", encoding="utf-8")).documents
    validated(biocxml.load(open(tmp_path / "a.bioc.xml", encoding="utf-8")))
    assert doc.infons["pmcid"] == "PMC3166277" and doc.infons["pmid"] == "21810267"
    assert doc.infons["source_format"] == "xml"
    assert sum(len(p.annotations) for p in doc.passages) > 200


def test_serve_answers_a_collection_of_every_paper_of_a_jsonl_input():
    """Two papers of one JSONL input: one collection, the documents comma-separated."""
    from coresc.pipeline import open_model
    from coresc.serve.http import OUTPUTS, choose_output
    from coresc.serve.work import Request, answer_request

    assert OUTPUTS[choose_output("bioc-json", None)][0] == "bioc-json"
    lines = [json.dumps({"id": f"d{i}", "sentences": ["Copper stops biofilms.",
                                                      "We tested it in ten strains."]})
             for i in range(2)]
    data = ("\n".join(lines) + "\n").encode("utf-8")
    model = open_model("fast")
    answer = answer_request(model, Request(data=data, name="two.jsonl", to="bioc-json"))
    collection = biocjson.loads(answer.data.decode("utf-8"))
    assert [d.id for d in collection.documents] == ["d0", "d1"]
    validated(collection)
    xml = answer_request(model, Request(data=data, name="two.jsonl", to="bioc")).data
    validated(biocxml.loads(xml.decode("utf-8")))


def test_a_batch_of_several_papers_in_one_input_is_one_valid_collection(tmp_path,
                                                                        capsysbinary):
    """A JSONL input's papers are one part of the batch: separated there too, and on
    standard output."""
    from coresc.batch import annotate_files
    from coresc.cli import main

    lines = [json.dumps({"id": f"d{i}", "sentences": ["Copper stops biofilms.",
                                                      "We tested it in ten strains."]})
             for i in range(3)]
    (tmp_path / "three.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    text_papers(tmp_path / "more", 1)
    inputs = [tmp_path / "three.jsonl", tmp_path / "more" / "p000.txt"]
    annotate_files(inputs, tmp_path / "all.json", to="bioc-json", progress="off")
    written = (tmp_path / "all.json").read_bytes()
    ids = [d.id for d in biocjson.loads(written.decode("utf-8")).documents]
    assert ids == ["d0", "d1", "d2", "p000"]
    assert main(["annotate", *map(str, inputs), "--to", "bioc-json", "-q"]) == 0
    assert capsysbinary.readouterr().out == written


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_api_records_the_model_in_one_process_and_in_workers(jobs):
    import coresc

    tagger = coresc.load("fast")
    texts = ["Copper stops biofilms. We tested it in ten strains.",
             "We propose that zinc helps. It did not."]
    papers = list(tagger.pipe(texts, jobs=jobs))
    assert [p.meta.get("model") for p in papers] == ["fast", "fast"]
    assert all(p.meta["model_version"] == tagger.model.meta_["trained"] for p in papers)
