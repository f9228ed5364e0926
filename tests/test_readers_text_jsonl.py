"""Plain-text and JSONL readers: structure, ids, labels, clear errors, CSAbstruct."""

from __future__ import annotations

from collections import Counter

import pytest

from coresc.errors import InputError
from coresc.readers import read_corpus, read_file


def test_text_reader(fixtures):
    [paper] = read_file(fixtures / "text_small.txt")
    assert paper.id == "text_small" and paper.source_format == "text"
    assert paper.title == "Soap films as templates" and paper.tree is None
    heads = [(s.heading, s.type, s.depth, s.parent) for s in paper.sections]
    assert heads == [("Title", "title", 0, None), ("Abstract", "abstract", 0, None),
                     ("Introduction", "introduction", 1, None),
                     ("Prior work", "introduction", 2, 2), ("Methods", "methods", 1, None)]
    sents = paper.sentences()
    assert [s.text for s in sents[1:6]] == [
        "We grew crystals in soap films.", "They were small.",
        "Films can template growth [3,4].", "E. coli was not used.",
        "This line continues the paragraph."]
    assert [s.zone for s in sents[:3]] == ["title", "abstract", "abstract"]
    assert sents[3].n_citations == 2 and sents[6].n_citations == 1
    assert [s.sid for s in sents] == [str(i) for i in range(1, len(sents) + 1)]
    assert all(s.element is None for s in sents)


def test_text_without_title_or_headings(tmp_path):
    f = tmp_path / "plain.txt"
    f.write_text("This is a sentence. Here is another one.\n\nA second paragraph.\n")
    [paper] = read_file(f)
    assert paper.title == ""
    assert [len(p.sentences) for _, p in paper.paragraphs()] == [2, 1]
    assert paper.sections[0].type == "other"


def test_jsonl_reader(fixtures):
    papers = read_file(fixtures / "jsonl_small.jsonl")
    assert [p.id for p in papers] == ["a1", "jsonl_small:3", "jsonl_small:4"]
    assert papers[0].title == "First" and papers[0].source_format == "jsonl"
    assert [s.gold_codes for s in papers[0].sentences()] == [["objective"], ["method"]]
    assert [s.gold_codes for s in papers[1].sentences()] == [[], []]
    assert [s.text for s in papers[2].sentences()] == ["One labelled."]


@pytest.mark.parametrize("line, problem", [
    ('{"sentences": ["a", "b"], "labels": ["x"]}', "line 2: 1 labels for 2 sentences"),
    ('{"sentences": ["a"]', "line 2: invalid JSON"),
    ('{"labels": ["x"]}', "line 2: 'sentences' missing"),
    ('["a"]', "line 2: expected a JSON object"),
    ('{"sentences": "abc"}', "line 2: 'sentences' missing or not a list"),
])
def test_jsonl_bad_line(tmp_path, line, problem):
    f = tmp_path / "bad.jsonl"
    f.write_text('{"sentences": ["ok."]}\n' + line + "\n")
    with pytest.raises(InputError) as err:
        read_file(f)
    assert str(f) in str(err.value) and problem in str(err.value)


@pytest.mark.slow
def test_csabstruct(shared_data):
    papers = read_corpus([shared_data / "csabstruct" / "train.jsonl",
                          shared_data / "csabstruct" / "dev.jsonl"])
    assert len(papers) == 1963 and len({p.id for p in papers}) == 1963
    assert sum(len(p) for p in papers) == 13359
    counts = Counter(s.gold_codes[0] for p in papers for s in p.sentences())
    assert set(counts) == {"background", "objective", "method", "result", "other"}
    assert papers[0].id == "train:1"


def test_jsonl_sentence_records_written_by_coresc_read_back(tmp_path):
    """`--to jsonl` output (one record per sentence) reads back with gold and pred."""
    from coresc.document import Prediction
    from coresc.writers import write_papers

    src = tmp_path / "two.jsonl"
    src.write_text('{"id": "a", "sentences": ["We did X.", "X works."], "labels": ["Met", "Res"]}\n'
                   '{"id": "b", "sentences": ["Y is known."], "labels": ["Bac"]}\n')
    papers = read_file(src)
    papers[0].sentences()[1].pred = [Prediction("Res", 0.75), Prediction("Con", 0.2)]
    out = tmp_path / "out.jsonl"
    write_papers(papers, "jsonl", out, inputs=[src])
    back = read_file(out)
    assert [p.id for p in back] == ["a", "b"]
    assert [s.text for s in back[0].sentences()] == ["We did X.", "X works."]
    assert [s.gold_codes for p in back for s in p.sentences()] == [["Met"], ["Res"], ["Bac"]]
    assert back[0].sentences()[1].pred_codes == ["Res", "Con"]
    assert back[0].sentences()[1].pred[0].score == 0.75
