"""Property tests: any text or bytes in -> a clean CorescError or well-formed output out.

Quick in the default run (a few dozen examples each); ``pytest -m fuzz`` runs only these,
and ``CORESC_FUZZ_EXAMPLES=2000 pytest -m fuzz`` (what benchmarks/fuzz.py does) runs
them long. Time is not asserted here (timed assertions are flaky on a loaded machine):
benchmarks/robustness_scaling.py measures that splitting and tagging are linear.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache

import pytest
from hostile import DIALECTS, FIXTURES, accurate_encoder
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from coresc.errors import CorescError
from coresc.readers import FORMATS, read_data
from coresc.split import split_offsets
from coresc.writers import WRITERS, get_writer

pytestmark = pytest.mark.fuzz

EXAMPLES = int(os.environ.get("CORESC_FUZZ_EXAMPLES", "40"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# Every code point, lone surrogates and controls included: what JSON or a Python str can hold.
ANY_TEXT = st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=300)
PROSE = st.lists(st.sampled_from(["We", "measured", "the", "rate", ".", "!", "?", "Fig.",
                                  "et al.", "0.5", "E.", "coli", "\u3002", "\n\n", " ",
                                  "(i)", "[3]", "\u2026", "\x00", "\ud800", "\ufffe"]),
                 max_size=60).map(" ".join)


def _read(data: bytes, name: str, fmt: str = "auto"):
    """Read, or None for a clean refusal; anything else fails the test."""
    try:
        return read_data(data, name, fmt)
    except CorescError as exc:
        assert "\n" not in str(exc) and str(exc).startswith(name), str(exc)
        return None


@FUZZ
@given(data=st.binary(max_size=2000), fmt=st.sampled_from(("auto",) + FORMATS),
       name=st.sampled_from(["in.xml", "in.txt", "in.jsonl", "in"]))
def test_any_bytes_read_or_refused(data, fmt, name):
    _read(data, name, fmt)


@FUZZ
@given(fixture=st.sampled_from(DIALECTS), cut=st.floats(0, 1),
       flips=st.lists(st.tuples(st.floats(0, 1), st.integers(0, 255)), max_size=6))
def test_mutated_files_of_every_dialect_read_or_refused(fixture, cut, flips):
    data = bytearray((FIXTURES / fixture).read_bytes())
    for where, byte in flips:
        data[int(where * (len(data) - 1))] = byte
    data = bytes(data[:max(1, int(cut * len(data)))])
    papers = _read(data, fixture)
    for paper in papers or []:
        for s in paper.sentences():
            assert isinstance(s.text, str)


@FUZZ
@given(text=ANY_TEXT)
def test_split_spans_cover_the_text(text):
    spans = split_offsets(text)
    covered = "".join(text[s:e] for s, e in spans)
    assert "".join(covered.split()) == "".join(text.split())
    assert all(s < e for s, e in spans)
    assert all(e1 <= s2 for (_, e1), (s2, _) in zip(spans, spans[1:], strict=False))


@lru_cache(maxsize=1)
def _tagger():
    import coresc

    return coresc.load("fast")


def _check_output(fmt: str, data: bytes) -> None:
    if fmt in ("bioc-json", "pubannotation"):  # a document, or a collection's document
        json.loads(data.decode("utf-8"))
        return
    if fmt in ("w3c", "parquet"):  # JSON lines (parquet's rows on their way to a file)
        fmt = "jsonl"
    if fmt in ("xml", "mode2", "bioc"):
        etree.fromstring(data, etree.XMLParser(resolve_entities=False))
    elif fmt == "html":
        assert data.decode("utf-8").lstrip().lower().startswith("<!doctype html")
    elif fmt == "jsonl":
        for line in data.decode("utf-8").split("\n"):  # not splitlines: U+2028 is no line end
            if line:
                json.loads(line)
    else:
        data.decode("utf-8")


@FUZZ
@given(sentences=st.lists(ANY_TEXT | PROSE, min_size=1, max_size=6), doc_id=ANY_TEXT)
def test_any_jsonl_text_annotates_and_every_writer_writes_it(sentences, doc_id):
    line = json.dumps({"id": doc_id, "sentences": sentences})
    papers = _read(line.encode("utf-8"), "in.jsonl")
    if not papers:
        return
    assert len(papers) == 1
    from coresc.batch.work import annotate_paper

    paper = papers[0]
    paper.drop_sentences(lambda s: not s.text.strip())
    if len(paper):
        annotate_paper(_tagger().model, paper)
    for fmt, writer in WRITERS.items():
        if fmt == "pdf":  # needs a paper read from a PDF: tests/test_pdf_highlights.py
            continue
        if writer.per_paper:
            _check_output(fmt, get_writer(fmt).load()(paper))
        else:
            _check_output(fmt, writer.load("part")(paper, True, False).encode("utf-8"))


@FUZZ
@given(text=ANY_TEXT | PROSE)
def test_api_takes_any_string(text):
    """A string given to the API: an annotated paper or a CorescError, nothing else."""
    try:
        paper = _tagger()(text)
    except CorescError:
        return
    assert all(s.pred for s in paper.sentences())


@FUZZ
@given(text=(ANY_TEXT | PROSE).filter(str.strip), heading=ANY_TEXT)
def test_long_sentence_with_the_encoder(text, heading):
    """Any text made into one runaway sentence (and heading): the tokenizer is handed a
    bounded part of it, and the encoder gives one probability row per sentence."""
    import numpy as np

    from coresc.document import Paper, Paragraph, Section, Sentence
    from coresc.model.encoder import clip_chars
    from coresc.xmlsafe import sanitize_text

    encoder = accurate_encoder()
    limit = clip_chars(encoder.settings)
    long = sanitize_text(text * (3 * limit // len(text) + 1))
    paper = Paper(id="p", sections=[Section(sanitize_text(heading) * 100, "other",
                                            paragraphs=[Paragraph([
                                                Sentence(sid="1", text=long),
                                                Sentence(sid="2", text="We did it.")])])])
    seen = []
    real = encoder.tokenizer.encode_batch

    def spy(items, **kw):
        seen.extend(len(t) for i in items for t in (i if isinstance(i, tuple) else (i,)))
        return real(items, **kw)

    encoder.tokenizer.encode_batch = spy
    try:
        probs = encoder.predict_paper(paper)
    finally:
        del encoder.tokenizer.encode_batch
    assert max(seen) <= limit
    assert probs.shape == (2, len(encoder.labels)) and np.isfinite(probs).all()


@FUZZ
@given(text=ANY_TEXT | PROSE, times=st.integers(1, 3))
def test_long_text_is_cleaned_as_a_short_one(text, times):
    """Texts over one block are cleaned a block at a time (a 50 MB paragraph's list of
    words took 800 MB): the result is the same as all at once."""
    from coresc import document

    long = (text or " ") * (times * document._BLOCK // max(len(text), 1) + 1)
    assert document.clean_text(long) == " ".join(long.split())


# Text any encoding with a byte-order mark can hold: no lone surrogates (UTF-16 and UTF-32
# cannot encode them), no NUL (UTF-8 with one is refused as binary; UTF-16 needs them).
ENCODABLE = st.text(st.characters(min_codepoint=1, max_codepoint=0x10FFFF,
                                  blacklist_categories=("Cs",)), max_size=200)
MARKED = {"utf-8-sig": b"", "utf-16": b"", "utf-32": b"",
          "utf-16-be": b"\xfe\xff", "utf-32-be": b"\x00\x00\xfe\xff"}


def _texts_or_refused(data: bytes, name: str):
    papers = _read(data, name)
    return None if papers is None else [[s.text for s in p.sentences()] for p in papers]


@FUZZ
@given(text=ENCODABLE | PROSE.map(lambda t: t.replace("\x00", "").replace("\ud800", "")),
       codec=st.sampled_from(sorted(MARKED)), kind=st.sampled_from(["txt", "jsonl", "xml"]))
def test_every_byte_order_mark_reads_like_utf8(text, codec, kind):
    """UTF-32 (issue 32) and UTF-16, either byte order, read exactly as UTF-8 does."""
    from xml.sax.saxutils import escape

    doc = {"txt": text, "jsonl": json.dumps({"id": "p", "sentences": [text]}) + "\n",
           "xml": f"<PAPER><P><s sid='1'>{escape(text)}</s></P></PAPER>"}[kind]
    name = f"in.{kind}"
    utf8 = _texts_or_refused(doc.encode("utf-8"), name)
    if utf8 is not None:
        assert _texts_or_refused(MARKED[codec] + doc.encode(codec), name) == utf8


WORDS = st.lists(st.sampled_from(["We", "saw", "it", "grow", "fast"]), min_size=1,
                 max_size=4).map(" ".join)


@st.composite
def nested_sentences(draw, depth: int = 0) -> str:
    """An <s> holding words and, at random, further <s> elements."""
    parts = draw(st.lists(WORDS | (nested_sentences(depth + 1) if depth < 3 else WORDS),
                          min_size=1, max_size=3))
    return f"<s>{' '.join(parts)}.</s>"


@FUZZ
@given(body=st.lists(nested_sentences(), min_size=1, max_size=4).map("".join))
def test_nested_sentences_read_alike_in_mode2_and_tei(body):
    """Every word once, in order, and the same sentences as the TEI reader (issue 32)."""
    [mode2] = read_data(f"<PAPER><BODY><DIV><P>{body}</P></DIV></BODY></PAPER>".encode(), "m.xml")
    [tei] = read_data((f"<TEI xmlns='http://www.tei-c.org/ns/1.0'><text><body><div>"
                       f"<head>H</head><p>{body}</p></div></body></text></TEI>").encode(),
                      "t.tei.xml")
    texts = [s.text for s in mode2.sentences()]
    assert texts == [s.text for s in tei.sentences()]
    flat = etree.fromstring(f"<r>{body}</r>".encode())
    assert "".join("".join(texts).split()) == "".join("".join(flat.itertext()).split())


# issue 37: a damaged model is one line naming the file; any -o value is checked cleanly


@pytest.fixture(scope="module")
def model_copy(tmp_path_factory):
    """A copy of the fast model to damage (each example mends what it damaged)."""
    import shutil

    from coresc.model.storage import BUNDLED_DIR

    return shutil.copytree(BUNDLED_DIR / "fast", tmp_path_factory.mktemp("fuzz-model") / "m")


@FUZZ
@given(name=st.sampled_from(["crf.crfsuite", "ovr.npz", "ovr_vocab.json", "config.json",
                             "calibration.json"]),
       cut=st.floats(0, 1), flips=st.lists(st.tuples(st.floats(0, 1), st.integers(1, 255)),
                                           max_size=4))
def test_a_damaged_model_file_is_one_line(model_copy, name, cut, flips):
    from coresc.model import CoreSCClassifier
    from coresc.model.storage import ModelError

    d = model_copy
    original = (d / name).read_bytes()
    data = bytearray(original[:int(len(original) * cut)] if cut < 1 else original)
    for at, mask in flips:
        if data:
            data[min(int(at * len(data)), len(data) - 1)] ^= mask
    try:
        (d / name).write_bytes(bytes(data))
        if bytes(data) == original:
            return
        try:
            CoreSCClassifier.load(d)
        except ModelError as exc:
            assert name in str(exc) and "\n" not in str(exc), str(exc)
        else:
            raise AssertionError(f"a damaged {name} loaded")
    finally:
        (d / name).write_bytes(original)


# issue 42: any JSON value anywhere in meta.json loads or is one line naming the file

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-10 ** 20, 10 ** 20)
    | st.floats(allow_nan=True, allow_infinity=True) | ANY_TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(ANY_TEXT, inner, max_size=4),
    max_leaves=12)


def _meta_keys(meta, prefix=()):
    """Every key path of a meta.json (objects only; lists by their first element)."""
    for key, value in meta.items():
        yield (*prefix, key)
        if isinstance(value, dict):
            yield from _meta_keys(value, (*prefix, key))


@lru_cache(maxsize=1)
def _meta_paths():
    from coresc.model.storage import BUNDLED_DIR

    return sorted(_meta_keys(json.loads((BUNDLED_DIR / "fast" / "meta.json").read_text())))


@FUZZ
@given(data=st.data(), value=JSON_VALUES)
def test_any_value_anywhere_in_meta_json_loads_or_is_one_line(model_copy, data, value):
    from coresc.model import CoreSCClassifier
    from coresc.model.card import card_markdown
    from coresc.model.storage import ModelError

    d = model_copy
    original = (d / "meta.json").read_text()
    meta = json.loads(original)
    path = data.draw(st.sampled_from(_meta_paths()))
    target = meta
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    try:
        (d / "meta.json").write_text(json.dumps(meta))
        try:
            CoreSCClassifier.load(d)
            card_markdown(d)  # what model-info and serve's GET /model read
        except ModelError as exc:
            # meta.json, or a file whose record or use it changed
            assert str(exc).startswith(f"{d}/") and "\n" not in str(exc), str(exc)
    finally:
        (d / "meta.json").write_text(original)


@FUZZ
@given(value=JSON_VALUES.filter(lambda v: "NaN" not in repr(v) and "inf" not in repr(v)))
def test_nesting_is_the_depth_of_the_parsed_value(value):
    from coresc.model.schema import nesting

    def depth(v) -> int:
        children = v.values() if isinstance(v, dict) else v if isinstance(v, list) else None
        return 0 if children is None else 1 + max(map(depth, children), default=0)

    text = json.dumps(value, ensure_ascii=bool(len(repr(value)) % 2)).encode("utf-8",
                                                                            "surrogatepass")
    assert nesting(text) == depth(value)


@FUZZ
@given(value=ANY_TEXT | st.sampled_from(["", " ", "/proc/1/x", "/sys", "-", "/dev/null",
                                         "a\x00b", "x" * 300, "/" * 5]),
       kind=st.sampled_from(["file", "folder", "file or folder"]))
def test_any_output_name_is_checked_cleanly(value, kind):
    from coresc.commands.options import check_output

    try:
        check_output("-o", value, kind, [])
    except CorescError as exc:
        assert "\n" not in str(exc).strip("\n") or "\n" in value, str(exc)

# Dense XML (issue 37): a tree costs memory per node, so a document of more nodes than
# xmlsafe.MAX_XML_NODES is refused before its tree is built. Small here, with the limit
# lowered; the real sizes are measured by benchmarks/dense_xml_memory.py.
DENSE = {
    "elements": lambda n: "<p>" + "<x/>" * n + "</p>",
    "attributes": lambda n: "<p><x " + " ".join(f"a{i}='1'" for i in range(n)) + "/></p>",
    "comments": lambda n: "<p>" + "<!---->" * n + "</p>",
    "paragraphs": lambda n: "".join(f"<p>We saw {i}.</p>\n" for i in range(n)),
    "nested": lambda n: "<p>" + "<b>" * min(n, 200) + "<x/>" * n + "</b>" * min(n, 200) + "</p>",
}
DENSE_WRAP = {
    "jats": "<article><body><sec><title>R</title>{}</sec></body></article>",
    "mode2": "<PAPER><BODY><DIV>{}</DIV></BODY></PAPER>",
    "tei": "<TEI xmlns='http://www.tei-c.org/ns/1.0'><text><body><div>{}</div></body></text></TEI>",
}


def _nodes(doc: bytes) -> int:
    root = etree.fromstring(doc, etree.XMLParser(resolve_entities=False))
    return sum(1 + (len(el.attrib) if isinstance(el.tag, str) else 0) for el in root.iter())


@FUZZ
@given(shape=st.sampled_from(sorted(DENSE)), n=st.integers(0, 400),
       limit=st.integers(10, 300), dialect=st.sampled_from(sorted(DENSE_WRAP)))
def test_dense_xml_is_read_or_refused_by_its_node_count(shape, n, limit, dialect):
    from coresc import xmlsafe

    doc = DENSE_WRAP[dialect].format(DENSE[shape](n)).encode()
    saved, xmlsafe.MAX_XML_NODES = xmlsafe.MAX_XML_NODES, limit
    try:
        read_data(doc, "dense.xml")
        refused = None
    except CorescError as exc:
        refused = str(exc)
    finally:
        xmlsafe.MAX_XML_NODES = saved
    assert refused is None or (refused.startswith("dense.xml: ") and "\n" not in refused)
    over = _nodes(doc) > limit
    assert over == (refused is not None and f"more than {limit:,} elements" in refused), refused


def test_dense_xml_over_the_real_limit_is_refused_before_its_tree_is_built():
    from coresc.xmlsafe import MAX_XML_NODES

    doc = b"<article><body><p>" + b"<x/>" * MAX_XML_NODES + b"</p></body></article>"
    with pytest.raises(CorescError, match=f"more than {MAX_XML_NODES:,} elements"):
        read_data(doc, "x.nxml")
