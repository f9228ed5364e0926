"""CoreSCClassifier: fit / predict / save / load on small invented papers."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from helpers import GROUPS, labelled_paper
from hostile import rerecord

from coresc.document import Label, Paper, Paragraph, Section, Sentence
from coresc.errors import CorescError
from coresc.model import CoreSCClassifier, ModelError, balanced_folds
from coresc.model.secondary import tune_thresholds
from coresc.model.training import inner_cv, inner_folds


@pytest.fixture(scope="module")
def papers() -> list[Paper]:
    rng = random.Random(7)
    return [labelled_paper(i, rng) for i in range(6)]


@pytest.fixture(scope="module")
def model(papers) -> CoreSCClassifier:
    return CoreSCClassifier(features=GROUPS, c1=0.01, c2=0.01, max_iterations=30,
                            max_secondary_rate=0.3, verbose=False).fit(papers)


def test_balanced_folds_largest_first():
    # 50->0, 40->1, 30->1 (40<50), 20->0 (50<70), 10->0 (tie 70/70: lower fold)
    assert balanced_folds([10, 50, 30, 20, 40], 2) == [0, 0, 1, 0, 1]
    folds = balanced_folds([5] * 9, 3)
    assert sorted(folds) == [0, 0, 0, 1, 1, 1, 2, 2, 2]


def test_fit_predict(model, papers):
    assert set(model.labels_) == {"Bac", "Goa", "Exp", "Res", "Con"}  # never ""
    preds = model.predict(papers)
    assert len(preds) == len(papers)
    first = [s[0].label for p, ps in zip(papers, preds, strict=True)
             for s, g in zip(ps, p.sentences(), strict=True) if g.gold]
    gold = [s.gold_codes[0] for p in papers for s in p.sentences() if s.gold]
    assert np.mean([a == b for a, b in zip(first, gold, strict=True)]) > 0.9
    for ps in preds:
        for ranking in ps:
            assert 1 <= len(ranking) <= 3
            assert all(0.0 <= r.score <= 1.0 for r in ranking)
            assert len({r.label for r in ranking}) == len(ranking)
    full = model.rank(papers[:1])[0]
    assert all(len(r) == 3 for r in full)
    marg = model.marginals(papers[:1])[0]
    assert marg.shape == (len(papers[0]), len(model.labels_))
    assert np.allclose(marg.sum(axis=1), 1.0, atol=1e-6)


def test_secondary_layer_trained_and_bounded(model, papers):
    meta = model.meta_["secondary"]
    assert meta is not None and 0.0 < meta["threshold2"] <= 1.01
    preds = model.predict(papers)
    rate = np.mean([len(r) > 1 for ps in preds for r in ps])
    assert rate <= 0.35


def test_annotate_sets_pred(model, papers):
    model.annotate(papers[:2])
    assert all(s.pred for p in papers[:2] for s in p.sentences())


def test_save_load_round_trip(model, papers, tmp_path):
    model.save(tmp_path / "m")
    names = sorted(f.name for f in (tmp_path / "m").iterdir())
    assert names == ["MODEL_CARD.md", "calibration.json", "config.json", "crf.crfsuite",
                     "meta.json", "ovr.npz", "ovr_vocab.json"]
    loaded = CoreSCClassifier.load(tmp_path / "m")
    assert loaded.get_params() == model.get_params()
    a, b = model.predict(papers), loaded.predict(papers)
    assert [[[(p.label, round(p.score, 6)) for p in r] for r in x] for x in a] == \
           [[[(p.label, round(p.score, 6)) for p in r] for r in x] for x in b]
    # npz loads without pickle
    with np.load(tmp_path / "m" / "ovr.npz", allow_pickle=False) as z:
        assert z["coef"].dtype == np.float32


def test_load_errors(model, tmp_path):
    with pytest.raises(ModelError, match="model directory not found"):
        CoreSCClassifier.load(tmp_path / "nope")
    d = model.save(tmp_path / "m2")
    (d / "meta.json").write_text("{not json")
    with pytest.raises(ModelError, match="corrupt JSON"):
        CoreSCClassifier.load(d)
    model.save(d)
    (d / "crf.crfsuite").write_bytes(b"garbage")
    with pytest.raises(ModelError, match="crf.crfsuite: damaged or truncated"):
        CoreSCClassifier.load(d)  # meta.json records its size and SHA-256 (issue 37)
    rerecord(d)  # edited with its record (issue 42): crfsuite's structure is checked
    with pytest.raises(ModelError, match="crf.crfsuite: damaged CRF model"):
        CoreSCClassifier.load(d)
    model.save(d)
    cfg = json.loads((d / "config.json").read_text())
    cfg["features"] = ["sid"]
    (d / "config.json").write_text(json.dumps(cfg))
    rerecord(d)  # a hand-edited config.json, its record updated
    with pytest.raises(ModelError, match="unknown feature group"):
        CoreSCClassifier.load(d)


def test_validation_and_unfitted(papers):
    with pytest.raises(ValueError, match="unknown feature group"):
        CoreSCClassifier(features=("nope",)).fit(papers)
    with pytest.raises(ValueError, match="c1"):
        CoreSCClassifier(c1=-1, c2=0.1).fit(papers)
    for grid in ([[0.5, -5.0]], [[0.5]], [0.5, 5.0], [[0.5, None]], []):
        with pytest.raises(ValueError, match="c_grid must list"):
            CoreSCClassifier(c_grid=grid).fit(papers)
    with pytest.raises(CorescError, match="not trained"):
        CoreSCClassifier().predict(papers)
    empty = [Paper(id="x", sections=[Section("Intro", "introduction", 1, None,
                                              [Paragraph([Sentence("1", "Text.")])])])]
    with pytest.raises(CorescError, match="no sentence with a gold label"):
        CoreSCClassifier(verbose=False).fit(empty)


def test_decode_modes(papers, tmp_path):
    """posterior = argmax of each sentence's marginal; viterbi = the tagger's path."""
    m = CoreSCClassifier(features=GROUPS, c1=0.5, c2=5.0, max_iterations=10,
                         secondary=False, decode="posterior", calibrate=False,
                         verbose=False).fit(papers)
    assert m.label_bias_ == {} and m.meta_["inner_cv_accuracy"] == {}  # no inner CV
    marg = m.marginals(papers)
    got = [[r[0].label for r in paper] for paper in m.predict(papers)]
    assert got == [[m.labels_[j] for j in np.argmax(a, axis=1)] for a in marg]
    m.decode = "viterbi"
    from coresc.model.crf import crf_tag as _tag
    x = m.featurize(papers[:1], m.domains_)[0]
    assert [r[0].label for r in m.predict(papers[:1])[0]] == _tag(m._tagger, x, m.labels_)[0]
    with pytest.raises(ValueError, match="decode must be one of"):
        CoreSCClassifier(decode="greedy").fit(papers)


def test_stacked_model_round_trip(papers, tmp_path):
    m = CoreSCClassifier(features=GROUPS, c1=0.1, c2=0.1, max_iterations=10,
                         secondary=False, decode="posterior", stack=True, inner_folds=2,
                         verbose=False).fit(papers)
    assert m._stack_tagger is not None
    d = m.save(tmp_path / "s")
    assert (d / "crf_stack.crfsuite").is_file()
    loaded = CoreSCClassifier.load(d)
    assert loaded.stack and loaded.get_params() == m.get_params()
    a = [[(r[0].label, round(r[0].score, 6)) for r in x] for x in m.predict(papers)]
    assert a == [[(r[0].label, round(r[0].score, 6)) for r in x]
                 for x in loaded.predict(papers)]
    # the marginals are the second CRF's, not the first's
    first = m._tagger
    from coresc.model.crf import crf_tag as _tag
    x = m.featurize(papers[:1])[0]
    assert not np.allclose(m.marginals(papers[:1])[0], m._full(_tag(first, x, m.labels_)[1]))
    (d / "crf_stack.crfsuite").unlink()
    with pytest.raises(ModelError, match="crf_stack.crfsuite: missing"):
        CoreSCClassifier.load(d)
    with pytest.raises(CorescError, match="at least 2 training papers"):
        CoreSCClassifier(features=GROUPS, stack=True, c1=0.1, c2=0.1,
                         verbose=False).fit(papers[:1])


def test_inner_folds_keep_source_folders_together(papers):
    import dataclasses
    ps = [dataclasses.replace(p, source_path=f"/corpus/ann{i % 3}/p{i}.xml")
          for i, p in enumerate(papers)]
    X = [[{}] * (5 + i) for i in range(len(ps))]
    by_folder = inner_folds(CoreSCClassifier(domains=["folder"]), ps, X, 2)
    assert len(set(by_folder)) == 2
    for i in range(len(ps)):
        for j in range(len(ps)):
            if i % 3 == j % 3:
                assert by_folder[i] == by_folder[j]
    assert inner_folds(CoreSCClassifier(), ps, X, 2) == balanced_folds([len(x) for x in X], 2)
    # fewer folders than folds: by paper
    one = [dataclasses.replace(p, source_path="/corpus/ann1/x.xml") for p in papers]
    assert len(set(inner_folds(CoreSCClassifier(domains=["folder"]), one, X, 2))) == 2


def test_cv_chooses_the_best_grid_point(papers):
    # strong regularisation first: on these papers it scores lower in the inner folds
    m = CoreSCClassifier(features=GROUPS, c_grid=((3.0, 3.0), (0.01, 0.01)),
                         max_iterations=15, secondary=False, verbose=False).fit(papers)
    scores = m.meta_["inner_cv_accuracy"]
    assert set(scores) == {"c1=3.0,c2=3.0", "c1=0.01,c2=0.01"}
    assert scores["c1=3.0,c2=3.0"] < scores["c1=0.01,c2=0.01"]
    assert (m.c1_, m.c2_) == (0.01, 0.01) and m.meta_["c1"] == 0.01
    assert m.meta_["secondary"] is None


def test_threshold_tuning_respects_rate():
    labels = ["A", "B", "C"]
    rng = np.random.default_rng(0)
    n = 200
    gold = [["A", "B"] if i < 30 else ["A"] for i in range(n)]
    prob = rng.uniform(0, 0.3, size=(n, 3))
    prob[:30, 1] = 0.9  # the true second labels score high
    prob[30:60, 2] = 0.8  # a decoy that is never right
    t2, t3, tune = tune_thresholds(prob, labels, ["A"] * n, gold, max_rate=0.2)
    assert 0.8 < t2 <= 0.9
    assert tune["precision_2"] == 1.0 and tune["rate_2"] == 0.15
    t2, _, tune = tune_thresholds(prob, labels, ["A"] * n, gold, max_rate=0.1)
    assert tune["rate_2"] <= 0.1


def test_train_command_uses_the_default_feature_groups():
    import argparse

    from coresc.commands import train
    from coresc.features import DEFAULT_FEATURES

    parser = argparse.ArgumentParser()
    train.add_arguments(parser)
    args = parser.parse_args(["corpus", "-o", "model"])
    assert tuple(args.features.split(",")) == DEFAULT_FEATURES
    assert train.decoding(args) == CoreSCClassifier().decode and not args.stack
    from coresc.model.adapt import ADAPT_DECODE
    adapting = parser.parse_args(["corpus", "-o", "model", "--from", "fast"])
    assert train.decoding(adapting) == ADAPT_DECODE
    from coresc.model import DECODINGS
    choices = next(a.choices for a in parser._actions if a.dest == "decode")
    assert tuple(choices) == DECODINGS
    from coresc.model.encoder import CONTEXTS
    choices = next(a.choices for a in parser._actions if a.dest == "encoder_context")
    assert tuple(choices) == CONTEXTS


def test_domain_feature_copies_separate_corpora(tmp_path):
    # Two corpora with the same sentences, where corpus "b" calls results "Obs": only
    # the per-domain feature copies can tell a reader which habit applies.
    rng = random.Random(3)
    papers = [labelled_paper(i, rng) for i in range(10)]
    for i, p in enumerate(papers):
        p.meta["corpus"] = "a" if i % 2 == 0 else "b"
        for s in p.sentences():
            if p.meta["corpus"] == "b" and s.gold and s.gold[0].code == "Res":
                s.gold = [Label("Obs")]
    model = CoreSCClassifier(features=GROUPS, c1=0.01, c2=0.01, max_iterations=40,
                             secondary=False, inner_folds=2, domains=["corpus"],
                             verbose=False).fit(papers)
    assert model.domains_ == ("corpus=a", "corpus=b")
    assert set(model.domain_bias_) == {"corpus=a", "corpus=b"}  # 5 papers each: tuned

    def result_labels(m, paper):
        pred = m.predict([paper])[0]
        return {p[0].label for p, s in zip(pred, paper.sentences(), strict=True)
                if s.gold and s.gold[0].code in ("Res", "Obs")}

    assert result_labels(model, papers[0]) == {"Res"}
    assert result_labels(model, papers[1]) == {"Obs"}
    unknown = labelled_paper(99, rng)  # no corpus: shared weights only, still labels
    assert len(model.predict([unknown])[0]) == len(unknown.sentences())
    model.save(tmp_path / "m")
    again = CoreSCClassifier.load(tmp_path / "m")
    assert again.domains_ == model.domains_ and again.domains == ("corpus",)
    assert again.domain_bias_ == model.domain_bias_
    assert result_labels(again, papers[1]) == {"Obs"}
    with pytest.raises(ValueError, match="unknown domain kind"):
        CoreSCClassifier(domains=["annotator"])._validate()


def test_train_with_corpus_domains_from_the_command_line(tmp_path, capsys):
    from coresc.cli import main
    from coresc.writers import write_papers

    rng = random.Random(5)
    for name in ("corpus-a", "corpus-b"):
        (tmp_path / name).mkdir()
        write_papers([labelled_paper(i, rng) for i in range(5)], "jsonl",
                     tmp_path / name / "papers.jsonl")
    model_dir = tmp_path / "m"
    assert main(["train", str(tmp_path / "corpus-a"), str(tmp_path / "corpus-b"),
                 "-o", str(model_dir), "--domains", "corpus", "--c1", "0.01", "--c2", "0.01",
                 "--max-iterations", "20", "--no-secondary", "--features", ",".join(GROUPS)]) == 0
    assert CoreSCClassifier.load(model_dir).domains_ == ("corpus=corpus-a", "corpus=corpus-b")
    capsys.readouterr()
    assert main(["evaluate", "--model", str(model_dir), "--domain", "corpus-b",
                 str(tmp_path / "corpus-b")]) == 0
    assert "accuracy" in capsys.readouterr().out.lower()
    assert main(["evaluate", "--model", str(model_dir), "--domain", "cra",
                 str(tmp_path / "corpus-b")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--domain cra" in err and "corpus-a, corpus-b" in err


def test_domain_for_a_model_without_domains_says_so(model, papers, tmp_path, capsys):
    from coresc.cli import main
    from coresc.writers import write_papers

    write_papers(papers[:1], "jsonl", tmp_path / "c" / "papers.jsonl")
    assert not model.domain_names("corpus") and not model.calibration_corpora()
    assert main(["evaluate", "--model", str(model.save(tmp_path / "m")), "--domain", "cra",
                 str(tmp_path / "c")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "known: none" not in err, err
    assert "--domain cra: this model was trained without corpus domains" in err


def test_inner_cv_scores_the_models_decoding():
    # label noise makes the Viterbi path and the per-sentence largest marginal disagree
    rng = random.Random(0)
    noisy = [labelled_paper(i, rng) for i in range(6)]
    for p in noisy:
        for s in p.sentences():
            if s.gold and rng.random() < 0.4:
                s.gold[0] = Label(rng.choice(["Bac", "Res", "Exp"]))
    labels = [[s.gold[0].code if s.gold else None for s in p.sentences()] for p in noisy]
    accuracy = {}
    for decode in ("viterbi", "posterior"):
        m = CoreSCClassifier(features=GROUPS, max_iterations=5, decode=decode, verbose=False)
        X = m.featurize(noisy)
        _, scores, oof = inner_cv(m, X, labels, balanced_folds([len(x) for x in X], 2),
                                  ((0.01, 0.01),))
        pairs = [(vit if decode == "viterbi" else max(d, key=d.get), g)
                 for (path, marg), gold in zip(oof, labels, strict=True)
                 for vit, d, g in zip(path, marg, gold, strict=True) if g]
        accuracy[decode] = round(sum(p == g for p, g in pairs) / len(pairs), 4)
        assert scores == {"c1=0.01,c2=0.01": accuracy[decode]}
    assert accuracy["viterbi"] != accuracy["posterior"]


class _Given:
    """A sentence encoder fitted elsewhere: probabilities naming each gold label."""

    labels = ["Bac", "Goa", "Exp", "Res", "Con"]

    def predict_paper(self, paper) -> np.ndarray:
        return np.array([[float(bool(s.gold) and s.gold[0].code == lab) for lab in self.labels]
                         for s in paper.sentences()], np.float32)


def test_fit_with_a_given_encoder_learns_from_it_and_refuses_to_save(tmp_path, monkeypatch):
    from coresc.model.finetune import oof

    def refuse(*_args, **_kwargs):
        raise AssertionError("fine-tuned an encoder")

    monkeypatch.setattr(oof, "fit_encoder", refuse)
    rng = random.Random(0)
    train = [labelled_paper(i, rng) for i in range(4)]
    given = _Given()
    model = CoreSCClassifier(c1=0.1, c2=0.1, secondary=False, calibrate=False,
                             encoder={"inner_folds": 2}).fit(train, encoder=given)
    assert model._encoder is given and model._encoder_labels == given.labels
    paper = labelled_paper(9, rng)
    model.annotate([paper])
    agree = [s.pred[0].label == s.gold[0].code for s in paper.sentences() if s.gold]
    assert sum(agree) / len(agree) > 0.9  # the CRF leans on the given probabilities
    with pytest.raises(CorescError, match="given to fit"):
        model.save(tmp_path / "m")
    assert not (tmp_path / "m").exists()


def test_fit_with_an_encoder_but_no_encoder_settings_is_refused(papers):
    with pytest.raises(CorescError, match="no encoder settings"):
        CoreSCClassifier(secondary=False).fit(papers, encoder=_Given())
