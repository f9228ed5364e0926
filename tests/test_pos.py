"""POS tagger: bundled model on hand-built cases, training, persistence without pickle."""

from __future__ import annotations

import numpy as np
import pytest

from coresc.errors import InputError
from coresc.pos import DEFAULT_MODEL, PosTagger, join_hyphens, load_default, read_treebank
from coresc.tokenize import tokenize


@pytest.fixture(scope="module")
def tagger() -> PosTagger:
    return PosTagger.load_default()


def test_simple_sentence(tagger: PosTagger) -> None:
    assert tagger.tag(["We", "measured", "the", "samples", "."]) == [
        "PRP", "VBD", "DT", "NNS", "."]


def test_passive(tagger: PosTagger) -> None:
    tags = tagger.tag(tokenize("The samples was measured at room temperature."))
    assert tags[2:4] == ["VBD", "VBN"]
    tags = tagger.tag(tokenize("The proteins were purified as described previously."))
    assert tags[2:4] == ["VBD", "VBN"]


def test_modal_and_base_verb(tagger: PosTagger) -> None:
    tags = tagger.tag(tokenize("These results may indicate that the protein is unstable."))
    assert tags[2:4] == ["MD", "VB"]
    assert tags[6:8] == ["NN", "VBZ"]


def test_brackets_and_lengths(tagger: PosTagger) -> None:
    tokens = tokenize("The yield (Table 2) was high [12].")
    tags = tagger.tag(tokens)
    assert len(tags) == len(tokens)
    assert tags[2] == "-LRB-" and tags[5] == "-RRB-"
    assert tags[-4] == "-LRB-" and tags[-2] == "-RRB-"
    assert tagger.tag([]) == []


def test_default_is_cached() -> None:
    assert load_default() is PosTagger.load_default()


SMALL = [
    [("We", "PRP"), ("measured", "VBD"), ("the", "DT"), ("samples", "NNS"), (".", ".")],
    [("The", "DT"), ("samples", "NNS"), ("were", "VBD"), ("washed", "VBN"), (".", ".")],
    [("They", "PRP"), ("may", "MD"), ("bind", "VB"), ("the", "DT"), ("protein", "NN"),
     (".", ".")],
    [("The", "DT"), ("protein", "NN"), ("was", "VBD"), ("measured", "VBN"), ("(", "-LRB-"),
     ("n", "NN"), ("=", "SYM"), ("5", "CD"), (")", "-RRB-"), (".", ".")],
]


def test_train_fits_training_data() -> None:
    tagger = PosTagger(n_iter=5, dict_min_count=100).train(SMALL)
    for sentence in SMALL:
        assert tagger.tag([w for w, _ in sentence]) == [t for _, t in sentence]


def test_train_rejects_empty() -> None:
    with pytest.raises(ValueError):
        PosTagger().train([])
    with pytest.raises(RuntimeError):
        PosTagger().tag(["word"])


def test_save_load_round_trip(tmp_path) -> None:
    clusters = {"samples": 1, "protein": 1, "we": 2}
    tagger = PosTagger(n_iter=3, dict_min_count=2, clusters=clusters).train(SMALL)
    tagger.meta = {"note": "unit test"}
    path = tmp_path / "pos" / "tagger.npz"
    tagger.save(path)
    loaded = PosTagger.load(path)
    assert loaded.tags == tagger.tags
    assert loaded.features == tagger.features
    assert np.array_equal(loaded.weights, tagger.weights)
    assert np.array_equal(loaded.trans, tagger.trans)
    assert loaded.tagdict == tagger.tagdict
    assert loaded.clusters == clusters
    assert loaded.meta == {"note": "unit test"}
    assert loaded.get_params() == tagger.get_params()
    sentences = [[w for w, _ in s] for s in SMALL] + [["Unseen", "words", "were", "tagged"]]
    for s in sentences:
        assert loaded.tag(s) == tagger.tag(s)


def test_load_never_unpickles(tmp_path) -> None:
    # every array of the bundled model loads with pickling disabled ...
    with np.load(DEFAULT_MODEL, allow_pickle=False) as z:
        assert all(z[name].dtype != object for name in z.files)
    # ... and a model holding a pickled object array is refused
    tagger = PosTagger(n_iter=1).train(SMALL)
    good = tmp_path / "good.npz"
    tagger.save(good)
    with np.load(good) as z:
        arrays = {name: z[name] for name in z.files}
    arrays["tags"] = np.array([{"evil": 1}] * len(tagger.tags), dtype=object)
    bad = tmp_path / "bad.npz"
    np.savez(bad, **arrays)
    with pytest.raises(InputError, match="bad.npz.*allow_pickle=False"):
        PosTagger.load(bad)
    with pytest.raises(InputError, match="missing.npz"):
        PosTagger.load(tmp_path / "missing.npz")


def test_read_treebank_and_join_hyphens(fixtures) -> None:
    sentences = read_treebank(fixtures / "pos_small.pretty")
    assert len(sentences) == 2
    first, second = sentences
    assert [t for _, t in first] == [
        "PRP", "VBD", "DT", "RB", "HYPH", "VBN", "NNS", "-LRB-", "NN", "SYM", "CD", "-RRB-", "."]
    assert ("*-1", "-NONE-") not in second and len(second) == 5
    joined = join_hyphens(first)
    assert joined[3] == ("well-known", "JJ")  # participle before a noun: JJ
    assert [w for w, _ in joined] == tokenize("We measured the well-known samples (n = 5).")[
        :3] + ["well-known", "samples", "-LRB-", "n", "=", "5", "-RRB-", "."]


def test_unbalanced_treebank(tmp_path) -> None:
    path = tmp_path / "bad.pretty"
    path.write_text("(TOP (NP (NN word))", encoding="utf-8")
    with pytest.raises(ValueError, match="bad.pretty"):
        read_treebank(path)


@pytest.mark.slow
def test_held_out_paper_accuracy(shared_data) -> None:
    """Train on four treebank papers, tag a fifth: well above the lexicon baseline (~0.88)."""
    files = sorted((shared_data / "oa-stm" / "treebank").glob("*.pretty"))
    papers = [[join_hyphens(s) for s in read_treebank(f)] for f in files[:5]]
    train = [s for p in papers[:4] for s in p]
    tagger = PosTagger(n_iter=4, clusters=PosTagger.load_default().clusters).train(train)
    gold = [t for s in papers[4] for _, t in s]
    pred = [t for s in papers[4] for t in tagger.tag([w for w, _ in s])]
    accuracy = sum(g == p for g, p in zip(gold, pred, strict=True)) / len(gold)
    assert accuracy > 0.90
