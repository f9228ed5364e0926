"""Metrics on small cases computed by hand (the arithmetic is in the comments)."""

from __future__ import annotations

import json

import pytest

from coresc.document import Label, Paper, Paragraph, Prediction, Section, Sentence
from coresc.evaluation import evaluate_papers, format_report
from coresc.metrics import (
    MEASURES,
    _kappa,
    agreement,
    classification_scores,
    kappas,
    secondary_scores,
)

approx = pytest.approx


def test_classification_scores_by_hand():
    gold = ["Res", "Res", "Met", "Met", "Bac"]
    pred = ["Res", "Met", "Met", "Met", "Res"]
    r = classification_scores(gold, pred)
    # Res: tp 1, fp 1 (sentence 5), fn 1 (sentence 2) -> P .5 R .5 F1 .5
    # Met: tp 2, fp 1 (sentence 2), fn 0 -> P 2/3 R 1 F1 2*(2/3)/(5/3) = .8
    # Bac: tp 0, fp 0, fn 1 -> 0 0 0
    assert r["n"] == 5
    assert r["accuracy"] == approx(3 / 5)
    assert r["per_label"]["Res"] == approx({"precision": .5, "recall": .5, "f1": .5,
                                            "support": 2})
    assert r["per_label"]["Met"] == approx({"precision": 2 / 3, "recall": 1.0, "f1": .8,
                                            "support": 2})
    assert r["per_label"]["Bac"] == approx({"precision": 0.0, "recall": 0.0, "f1": 0.0,
                                            "support": 1})
    assert r["macro_f1"] == approx((.5 + .8 + 0) / 3)
    # pooled tp 3, fp 2, fn 2 -> micro F1 .6 (= accuracy)
    assert r["micro_f1"] == approx(.6)
    # labels in priority order Res > Met > Bac; rows gold, columns predicted
    assert r["confusion"] == {"labels": ["Res", "Met", "Bac"],
                              "matrix": [[1, 1, 0], [0, 2, 0], [1, 0, 0]]}
    json.dumps(r)


def test_classification_scores_explicit_labels():
    # Hyp never occurs: reported with zeros but left out of macro F1.
    r = classification_scores(["Res", "Met"], ["Res", "Res"], labels=["Hyp", "Res", "Met"])
    assert r["per_label"]["Hyp"]["support"] == 0
    # Res: tp1 fp1 fn0 -> P .5 R 1 F1 2/3; Met: 0 -> macro (2/3 + 0) / 2
    assert r["macro_f1"] == approx(1 / 3)
    assert r["confusion"]["matrix"] == [[0, 0, 0], [0, 1, 0], [0, 1, 0]]


def test_classification_scores_rejects_bad_input():
    with pytest.raises(ValueError):
        classification_scores(["Res"], ["Res", "Met"])
    with pytest.raises(ValueError):
        classification_scores([], [])


def test_single_label_no_agreement_beyond_chance_is_zero():
    # Po = 2/4; both sides Res .5 Met .5 -> Pe = .25 + .25 = .5; kappa 0 on all measures
    a = [["Res"], ["Res"], ["Met"], ["Met"]]
    b = [["Res"], ["Met"], ["Res"], ["Met"]]
    assert kappas(a, b) == approx(dict.fromkeys(MEASURES, 0.0))


def test_single_label_systematic_disagreement_is_negative():
    # Po = 0, Pe = .5 -> (0 - .5) / .5 = -1
    assert kappas([["Res"], ["Met"]], [["Met"], ["Res"]]) == approx(
        dict.fromkeys(MEASURES, -1.0))


def test_single_label_cohen():
    # Po = 3/4; A: Res 3/4, Met 1/4; B: Res 1/2, Met 1/2 -> Pe = 3/8 + 1/8 = 1/2
    # kappa = (3/4 - 1/2) / (1/2) = 1/2 on every measure (one label per sentence)
    a = [["Res"], ["Res"], ["Res"], ["Met"]]
    b = [["Res"], ["Res"], ["Met"], ["Met"]]
    assert kappas(a, b) == approx(dict.fromkeys(MEASURES, 0.5))


# Multi-label case used below (s5 is unlabelled on side B and must be left out).
A = [["Res"], ["Res", "Obj"], ["Met"], ["Obj", "Res", "Met"], ["Bac"]]
B = [["Res"], ["Obj"], ["Bac"], ["Obj", "Met"], []]


def test_multilabel_kappas_by_hand():
    k = kappas(A, B)
    # weighted: A weights s1 {Res 1}, s2 {Res .6, Obj .4}, s3 {Met 1}, s4 {Obj .6, Res .3, Met .1}
    #           B weights s1 {Res 1}, s2 {Obj 1}, s3 {Bac 1}, s4 {Obj .6, Met .4}
    # overlaps 1, .4, 0, .6 + .1 -> Po = 2.1 / 4 = .525
    # F_A: Res 1.9/4 = .475, Obj 1/4 = .25, Met 1.1/4 = .275
    # F_B: Res .25, Obj 1.6/4 = .4, Bac .25, Met .1
    # Pe = .475*.25 + .25*.4 + .275*.1 = .11875 + .1 + .0275 = .24625
    assert k["weighted"] == approx((.525 - .24625) / (1 - .24625))
    # loose: s1 s2 s4 share a label -> Po .75. All sets distinct (1/4 each side);
    # intersecting (A, B) set pairs: {Res}:1, {Res,Obj}:3, {Met}:1, {Obj,Res,Met}:3 = 8/16
    assert k["loose"] == approx((.75 - .5) / (1 - .5))
    # abo (|S&T| >= max(1, |S|-1, |T|-1)): s1 s2 s4 agree -> Po .75; agreeing pairs
    # {Res}:{Res}; {Res,Obj}:{Res},{Obj},{Obj,Met}; {Met}:{Obj,Met}; {Obj,Res,Met}:{Obj,Met}
    # = 6/16 = .375
    assert k["abo"] == approx((.75 - .375) / (1 - .375))
    # coresc1: A Res Res Met Obj, B Res Obj Bac Obj -> Po .5
    # Pe = Res .5*.25 + Obj .25*.5 = .25
    assert k["coresc1"] == approx((.5 - .25) / (1 - .25))
    # strict: only s1 identical -> Po .25; all tuples distinct, one equal pair -> Pe 1/16
    assert k["strict"] == approx((.25 - 1 / 16) / (1 - 1 / 16))


def test_abo_differs_from_loose_only_with_three_labels():
    # s1 {Res,Obj,Met} vs {Res}: share 1 < 2 -> abo disagrees, loose agrees
    a = [["Res", "Obj", "Met"], ["Bac"]]
    b = [["Res"], ["Bac"]]
    k = kappas(a, b)
    # loose: Po 1; pairs ({ROM},{R}) y, ({ROM},{B}) n, ({B},{R}) n, ({B},{B}) y -> Pe .5 -> 1
    assert k["loose"] == approx(1.0)
    # abo: Po .5; only ({B},{B}) agrees -> Pe .25 -> (.5 - .25) / .75 = 1/3
    assert k["abo"] == approx(1 / 3)


def test_missing_sentences_left_out():
    assert kappas(A, B) == approx(kappas(A[:4], B[:4]))
    assert kappas([["Res"], [], ["Met"]], [["Res"], ["Met"], ["Met"]]) == approx(
        dict.fromkeys(MEASURES, 1.0))


def test_self_agreement_is_one():
    assert kappas(A, A) == approx(dict.fromkeys(MEASURES, 1.0))
    r = agreement({"p1": A[:2], "p2": A[2:]}, {"p1": A[:2], "p2": A[2:]})
    assert r["micro"] == approx(dict.fromkeys(MEASURES, 1.0))
    assert r["macro"] == approx(dict.fromkeys(MEASURES, 1.0))


def test_degenerate_expected_agreement():
    # Both sides always Bac: Pe = 1, Po = 1 -> defined as 1.0
    assert kappas([["Bac"]] * 3, [["Bac"]] * 3) == approx(dict.fromkeys(MEASURES, 1.0))
    assert _kappa(1.0, 1.0) == 1.0
    assert _kappa(0.5, 1.0) == 0.0


def test_repeated_codes_count_once():
    assert kappas([["Res", "Res"], ["Met"]], [["Res"], ["Met"]]) == approx(
        dict.fromkeys(MEASURES, 1.0))


def test_kappas_rejects_bad_input():
    with pytest.raises(ValueError):
        kappas([["Res"]], [])
    with pytest.raises(ValueError):
        kappas([[]], [["Res"]])
    with pytest.raises(ValueError):
        kappas([["Res", "Met", "Bac", "Obj"]], [["Res"]])


def test_agreement_micro_and_macro_by_hand():
    a = {"p1": A[:2], "p2": A[2:], "only_a": [["Res"]]}
    b = {"p1": B[:2], "p2": B[2:], "only_b": [["Res"]]}
    r = agreement(a, b)
    assert r["n_sentences"] == 4 and r["n_papers"] == 2
    assert r["micro"] == approx(kappas(A, B))
    # coresc1 p1: A Res Res, B Res Obj -> Po .5, Pe 1*.5 = .5 -> 0
    #         p2: A Met Obj, B Bac Obj -> Po .5, Pe .5*.5 = .25 -> 1/3; macro 1/6
    assert r["macro"]["coresc1"] == approx(1 / 6)
    # strict p1: Po .5, Pe (Res) .5*.5 = .25 -> 1/3; p2: Po 0, Pe 0 -> 0; macro 1/6
    assert r["macro"]["strict"] == approx(1 / 6)


def test_agreement_errors():
    with pytest.raises(ValueError):
        agreement({"p1": [["Res"]]}, {"p2": [["Res"]]})
    with pytest.raises(ValueError):
        agreement({"p1": [["Res"]]}, {"p1": [["Res"], ["Met"]]})


def test_secondary_scores_by_hand():
    gold = [["Res", "Obj"], ["Met"], ["Con", "Res", "Obs"], ["Bac"], []]
    pred = [["Res", "Obj"], ["Met", "Exp"], ["Con", "Obs", "Res"], ["Bac"], ["Met"]]
    r = secondary_scores(gold, pred)
    # unlabelled 5th sentence left out -> n 4; gold second labels: s1 Obj, s3 Res
    # top 2: s1 [Res, Obj] has Obj, s3 [Con, Obs] lacks Res -> 1/2; top 3: both -> 1
    # emitted: s1 Obj (gold), s2 Exp (not), s3 Obs, Res (gold) -> 3/4; s1 s2 s3 multi -> 3/4
    assert r == approx({"top2_recall": .5, "top3_recall": 1.0, "emitted_precision": .75,
                        "emitted_rate": .75, "n": 4, "n_gold_second": 2, "n_emitted": 4})


def test_secondary_scores_undefined_is_none():
    r = secondary_scores([["Res"]], [["Res"]])
    assert r["top2_recall"] is None and r["emitted_precision"] is None
    assert r["emitted_rate"] == 0.0


def _paper(pid: str, gold: list[list[str]], pred: list[list[str]]) -> Paper:
    sentences = [
        Sentence(sid=str(i + 1), text=f"sentence {i}", gold=[Label(c) for c in g],
                 pred=[Prediction(c, 1.0 / (r + 1)) for r, c in enumerate(p)])
        for i, (g, p) in enumerate(zip(gold, pred, strict=True))
    ]
    return Paper(id=pid, sections=[Section("", "other", paragraphs=[Paragraph(sentences)])])


def test_evaluate_papers_and_report():
    p1 = _paper("p1", A[:2], B[:2])
    p2 = _paper("p2", A[2:], [*B[2:4], ["Met"]])
    p2.sentences()[-1].gold = []  # predicted but no gold: left out
    r = evaluate_papers([p1, p2])
    assert r["n_sentences"] == 4 and r["n_papers"] == 2
    # primary: gold firsts Res Res Met Obj, pred firsts Res Obj Bac Obj -> 2/4
    assert r["primary"]["accuracy"] == approx(.5)
    assert r["agreement"]["micro"] == approx(kappas(A, B))
    assert r["secondary"]["n_gold_second"] == 2
    text = format_report(r)
    assert "accuracy  0.500" in text
    assert "coresc1" in text and "top 2 / top 3  0.500 / 0.500" in text
    json.dumps(r)


def test_evaluate_papers_missing_prediction_counts_as_wrong():
    r = evaluate_papers([_paper("p1", [["Res"], ["Met"]], [["Res"], []])])
    assert r["primary"]["accuracy"] == approx(.5)
    assert r["primary"]["per_label"]["-"]["support"] == 0
    # coresc1: gold Res Met, pred Res - -> Po .5; Pe = Res .5*.5 = .25 -> 1/3
    assert r["agreement"]["micro"]["coresc1"] == approx(1 / 3)


def test_evaluate_papers_needs_gold():
    with pytest.raises(ValueError):
        evaluate_papers([_paper("p1", [[]], [["Res"]])])
