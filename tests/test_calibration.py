"""Calibrated scores, --min-score, and what a model records of its training papers."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from helpers import GROUPS, labelled_paper
from hostile import rerecord

from coresc.cli import main
from coresc.document import Label, Paper, Paragraph, Prediction, Section, Sentence
from coresc.model import CoreSCClassifier, ModelError
from coresc.model.calibration import (
    Calibration,
    IsotonicMap,
    coverage_curve,
    fit_calibration,
    fit_isotonic,
    keep_above,
    reliability,
)
from coresc.model.provenance import paper_fingerprint, seen_in_training, training_record
from coresc.reliability import calibration_metrics, calibration_summary

# --------------------------------------------------------------------------- the maps


def test_isotonic_pools_adjacent_violators() -> None:
    m = fit_isotonic([0.1, 0.2, 0.3, 0.4], [0, 1, 0, 1])
    # 0 | (1, 0) pooled to 0.5 | 1; knots at both ends of the pooled block
    assert m.x.tolist() == [0.1, 0.2, 0.3, 0.4] and m.y.tolist() == [0.0, 0.5, 0.5, 1.0]
    assert m(0.25) == pytest.approx(0.5) and m(0.35) == pytest.approx(0.75)
    assert m(0.0) == 0.0 and m(1.0) == 1.0  # constant beyond the knots
    for v in (0.0, 0.1, 0.15, 0.25, 0.35, 0.4, 1.0):
        assert m.one(v) == pytest.approx(float(m(v)))
    tied = fit_isotonic([0.5, 0.5, 0.5, 0.9], [1, 0, 0, 1])
    assert tied.x.tolist() == [0.5, 0.9] and tied.y.tolist() == pytest.approx([1 / 3, 1.0])
    with pytest.raises(ValueError):
        fit_isotonic([0.1], [1, 0])


def test_isotonic_map_json_is_validated() -> None:
    m = fit_isotonic([0.1, 0.4, 0.8], [0, 1, 1])
    assert IsotonicMap.from_json(json.loads(json.dumps(m.to_json()))).y.tolist() == m.y.tolist()
    for bad in ({"x": [0.1, 0.2], "y": [0.9, 0.1], "n": 2},  # decreasing
                {"x": [0.2, 0.1], "y": [0.1, 0.2], "n": 2},
                {"x": [0.1], "y": [1.5], "n": 1}, {"x": [0.1]}, "x"):
        with pytest.raises(ValueError):
            IsotonicMap.from_json(bad)


def _ranked(*pairs) -> list[Prediction]:
    return [Prediction(lab, s) for lab, s in pairs]


def test_fit_and_apply_scores_never_increase() -> None:
    rng = random.Random(3)
    rankings, golds = [], []
    for _ in range(400):
        p1, p2 = rng.random(), rng.random()
        rankings.append(_ranked(("Res", p1), ("Obs", p2), ("Con", p2 / 2)))
        golds.append(["Res"] if rng.random() < p1 else ["Obs"] if rng.random() < p2 else ["Bac"])
    cal = fit_calibration(rankings, golds)
    assert len(cal.maps) == 3 and cal.stats["n"] == 400
    assert cal.stats["rank1"]["n"] == 400 and 0 < cal.stats["rank1"]["hit_rate"] < 1
    for r in rankings[:50]:
        out = cal.apply(r)
        assert [p.label for p in out] == [p.label for p in r]  # order kept
        scores = [p.score for p in out]
        assert all(0 <= s <= 1 for s in scores) and scores == sorted(scores, reverse=True)
    # a secondary whose own map says more than the primary's score is capped at it
    capped = Calibration([IsotonicMap(np.array([0, 1.0]), np.array([0.1, 0.3]), 2),
                          IsotonicMap(np.array([0, 1.0]), np.array([0.5, 0.9]), 2)])
    assert [p.score for p in capped.apply(_ranked(("A", 0.5), ("B", 0.5), ("C", 0.9)))] == \
        pytest.approx([0.2, 0.2, 0.2])
    again = Calibration.from_json(json.loads(json.dumps(cal.to_json())))
    assert again.apply(rankings[0]) == cal.apply(rankings[0])
    with pytest.raises(ValueError, match="at least 20"):
        fit_calibration(rankings[:5], golds[:5])
    with pytest.raises(ValueError):
        Calibration.from_json({"method": "platt", "maps": []})



def test_each_corpus_gets_its_own_map_when_it_has_enough_points() -> None:
    """Corpus "easy" is right 90% of the time at a raw 0.5, "hard" 30%: the pooled map
    says 0.5 or so for both; each corpus's own map says what holds for it."""
    rng = random.Random(5)
    rankings, golds, corpora = [], [], []
    for name, rate, n in (("easy", 0.9, 600), ("hard", 0.3, 900), ("tiny", 0.6, 100)):
        for _ in range(n):
            rankings.append(_ranked(("Res", 0.5), ("Obs", 0.2)))
            golds.append(["Res"] if rng.random() < rate else ["Bac"])
            corpora.append(name)
    cal = fit_calibration(rankings, golds, corpora)
    assert sorted(cal.by_corpus) == ["easy", "hard"]  # "tiny" has < MIN_CORPUS_POINTS
    assert cal.stats["by_corpus"] == {"easy": {"n": 600}, "hard": {"n": 900}}
    first = _ranked(("Res", 0.5))
    pooled = cal.apply(first)[0].score
    assert cal.apply(first, "easy")[0].score == pytest.approx(0.9, abs=0.05)
    assert cal.apply(first, "hard")[0].score == pytest.approx(0.3, abs=0.05)
    assert cal.apply(first, "tiny")[0].score == pooled == cal.apply(first, None)[0].score
    assert 0.4 < pooled < 0.6
    again = Calibration.from_json(json.loads(json.dumps(cal.to_json())))
    assert again.apply(first, "easy") == cal.apply(first, "easy")
    # one corpus alone: its map is the pooled one, nothing kept twice
    assert fit_calibration(rankings[:600], golds[:600], corpora[:600]).by_corpus == {}
    with pytest.raises(ValueError, match="by_corpus"):
        Calibration.from_json({**cal.to_json(), "by_corpus": {"easy": []}})

def test_reliability_and_coverage_by_hand() -> None:
    rel = reliability([0.05, 0.15, 0.15, 0.95, 1.0], [0, 1, 0, 1, 1])
    bins = {b["low"]: b for b in rel["bins"] if b["n"]}
    assert set(bins) == {0.0, 0.1, 0.9} and bins[0.9]["n"] == 2  # 1.0 is in the last bin
    # |0 - 0.05| * 1/5 + |0.5 - 0.15| * 2/5 + |1 - 0.975| * 2/5
    assert rel["ece"] == pytest.approx(0.01 + 0.14 + 0.01)
    curve = {p["threshold"]: p for p in coverage_curve([0.2, 0.6, 0.9, 0.95], [0, 0, 1, 1],
                                                       thresholds=(0.0, 0.5, 0.91, 0.99))}
    assert curve[0.0]["coverage"] == 1.0 and curve[0.0]["accuracy"] == 0.5
    assert curve[0.5]["coverage"] == 0.75 and curve[0.5]["accuracy"] == pytest.approx(2 / 3)
    assert curve[0.91]["n"] == 1 and curve[0.99]["accuracy"] is None


def test_keep_above_is_a_prefix() -> None:
    r = _ranked(("Res", 0.8), ("Obs", 0.4), ("Con", 0.1))
    assert keep_above(r, None) == r and keep_above(r, 0.0) == r
    assert [p.label for p in keep_above(r, 0.4)] == ["Res", "Obs"]
    assert keep_above(r, 0.9) == []
    raw = _ranked(("Res", 0.3), ("Obs", 0.6))  # an uncalibrated model's secondary above
    assert keep_above(raw, 0.5) == []


def test_calibration_summary_of_prediction_records() -> None:
    records = [{"gold": ["Res"], "pred": [{"label": "Res", "score": 0.9}]},
               {"gold": ["Res", "Obs"], "pred": [{"label": "Obs", "score": 0.7},
                                                 {"label": "Res", "score": 0.6}]},
               {"gold": [], "pred": [{"label": "Bac", "score": 0.5}]},  # no gold: left out
               {"gold": ["Met"], "pred": [{"label": "Exp", "score": 0.3}]}]
    s = calibration_summary(records)
    assert s["primary"]["n"] == 3 and s["secondary"]["n"] == 1
    # hits (label among gold): 1, 1, 0 at 0.9, 0.7, 0.3; strict (== gold primary): 1, 0, 0
    assert s["primary"]["ece"] == pytest.approx((0.1 + 0.3 + 0.3) / 3)
    assert s["primary_strict_ece"] == pytest.approx((0.1 + 0.7 + 0.3) / 3)
    m = calibration_metrics(s, silver=True)
    assert "silver_ece_primary" in m and "silver_agreement_at_0.5" in m
    assert not any(k.startswith("accuracy") for k in m)
    assert calibration_summary([{"gold": [], "pred": []}]) is None


# --------------------------------------------------------------------------- in the model


@pytest.fixture(scope="module")
def papers() -> list[Paper]:
    rng = random.Random(11)
    return [labelled_paper(i, rng) for i in range(6)]


@pytest.fixture(scope="module")
def model(papers) -> CoreSCClassifier:
    return CoreSCClassifier(features=GROUPS, c1=0.5, c2=0.5, max_iterations=20,
                            max_secondary_rate=0.3, verbose=False).fit(papers)


def test_model_scores_are_calibrated_and_ordered(model, papers, tmp_path) -> None:
    assert model.calibration_ is not None and model.meta_["calibration"]["n"] > 0
    for paper in model.rank(papers):
        for r in paper:
            scores = [p.score for p in r]
            assert scores == sorted(scores, reverse=True) and all(0 <= s <= 1 for s in scores)
    raw = model._rank_raw(papers[:1])[0]
    assert [p.label for r in raw for p in r] == [p.label for r in model.rank(papers[:1])[0]
                                                  for p in r]  # calibration keeps the order
    d = model.save(tmp_path / "m")
    loaded = CoreSCClassifier.load(d)
    assert loaded.calibration_.to_json() == model.calibration_.to_json()
    (d / "calibration.json").write_text('{"method": "isotonic", "maps": [{"x": [1, 0]}]}')
    with pytest.raises(ModelError, match="calibration.json: damaged"):
        CoreSCClassifier.load(d)  # meta.json records it (issue 37)
    rerecord(d)  # edited with its record: the parser's own check
    with pytest.raises(ModelError, match="bad calibration"):
        CoreSCClassifier.load(d)
    uncalibrated = CoreSCClassifier(features=GROUPS, c1=0.5, c2=0.5, max_iterations=5,
                                    secondary=False, decode="posterior", calibrate=False,
                                    verbose=False).fit(papers)
    assert uncalibrated.calibration_ is None and uncalibrated.meta_["calibration"] is None
    assert not (uncalibrated.save(tmp_path / "u") / "calibration.json").exists()


def test_model_calibrates_each_training_corpus_apart(monkeypatch, tmp_path) -> None:
    import coresc.model.calibration as calibration

    monkeypatch.setattr(calibration, "MIN_CORPUS_POINTS", 20)
    rng = random.Random(13)
    papers = [labelled_paper(i, rng) for i in range(8)]
    for i, p in enumerate(papers):
        p.meta["corpus"] = "art" if i % 2 else "cra"
        for s in p.sentences() if i % 2 else ():  # "art": half its gold labels are noise
            if s.gold and rng.random() < 0.5:
                s.gold = [Label(rng.choice(["Bac", "Exp", "Res", "Hyp", "Mot"]))]
    model = CoreSCClassifier(features=GROUPS, c1=0.5, c2=0.5, max_iterations=10,
                             secondary=False, verbose=False).fit(papers)
    assert model.calibration_corpora() == ["art", "cra"]
    loaded = CoreSCClassifier.load(model.save(tmp_path / "m"))
    assert loaded.calibration_corpora() == ["art", "cra"]
    paper = papers[0]
    raw = [r[:1] for r in model._rank_raw([paper])[0]]  # no secondary layer: primary only
    scores = {}
    for name in ("art", "cra", None):
        paper.meta["corpus"] = name
        model.annotate([paper])
        assert [s.pred for s in paper.sentences()] == \
            [model.calibration_.apply(r, name) for r in raw]
        scores[name] = [s.pred[0].score for s in paper.sentences()]
    # the noisy corpus's map says less for the same raw scores: the choice is visible
    assert sum(scores["art"]) < sum(scores["cra"])

def test_min_score_leaves_sentences_without_a_label(model, papers, monkeypatch) -> None:
    # an identity map, so that the (separable) invented papers' scores spread out
    identity = IsotonicMap(np.array([0.0, 1.0]), np.array([0.0, 1.0]), 2)
    monkeypatch.setattr(model, "calibration_", Calibration([identity]))
    full = model.predict(papers)
    scores = sorted(r[0].score for paper in full for r in paper)
    cut = scores[len(scores) // 2]
    assert scores[0] < cut
    kept = model.predict(papers, min_score=cut)
    for f_paper, k_paper in zip(full, kept, strict=True):
        for f, k in zip(f_paper, k_paper, strict=True):
            assert k == [p for p in f if p.score >= cut]
    model.annotate(papers[:2], min_score=cut)
    sents = [s for p in papers[:2] for s in p.sentences()]
    withheld = [s for s in sents if s.withheld is not None]
    assert withheld and all(not s.pred and s.withheld.score < cut for s in withheld)
    assert all(s.pred and s.pred[0].score >= cut for s in sents if s.withheld is None)
    assert papers[0].meta["min_score"] == cut
    model.annotate(papers[:2])  # again without: every sentence labelled
    assert all(s.pred and s.withheld is None for s in sents)
    assert "min_score" not in papers[0].meta


# --------------------------------------------------------------------------- provenance


def _paper(pid: str, texts: list[str], corpus: str = "cra") -> Paper:
    sents = [Sentence(str(i), t, gold=[Label("Res")]) for i, t in enumerate(texts)]
    return Paper(pid, sections=[Section("R", "results", paragraphs=[Paragraph(sents)])],
                 meta={"corpus": corpus})


def test_fingerprint_ignores_markup_splitting_and_labels() -> None:
    a = _paper("a", ["It rose  by 20%.", "It fell."])
    b = _paper("b", ["It rose by 20%. It fell."])
    b.sentences()[0].gold = []
    assert paper_fingerprint(a) == paper_fingerprint(b)
    assert paper_fingerprint(a) != paper_fingerprint(_paper("a", ["It rose by 21%.",
                                                                   "It fell."]))


def test_training_record_and_seen_in_training(model, papers) -> None:
    record = training_record([_paper("a", ["x y.", "z."]), _paper("b", ["w."], "art")])
    assert record["corpora"] == {"cra": {"papers": 1, "sentences": 2, "labelled": 2},
                                 "art": {"papers": 1, "sentences": 1, "labelled": 1}}
    assert record["label_counts"] == {"Res": 3} and len(record["papers"]) == 2
    meta = {"training_data": record}
    new = [_paper("a", ["x  y. z."]), _paper("b", ["other text."]), _paper("c", ["new."])]
    assert seen_in_training(meta, new) == ["same text", "same id", None]
    with pytest.raises(LookupError):
        seen_in_training({}, new)
    assert len(model.meta_["training_data"]["papers"]) == len(papers)


def test_evaluate_reports_training_papers_apart(model, papers, tmp_path, capsys) -> None:
    from coresc.writers import write_papers

    d = model.save(tmp_path / "m")
    corpus = tmp_path / "corpus"
    unseen = labelled_paper(99, random.Random(5))
    unseen.id = "unseen"
    write_papers([*papers[:2], unseen], "jsonl", corpus / "papers.jsonl")
    assert main(["evaluate", "--model", str(d), str(corpus), "--json",
                 str(tmp_path / "s.json")]) == 0
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert first.startswith("WARNING: IN-SAMPLE. 2 of 3 papers") and "held-out" in first
    assert "held-out papers only (1 of 3, never seen in training)" in out
    scores = json.loads((tmp_path / "s.json").read_text())
    assert [s["paper"] for s in scores["training_overlap"]["seen"]] == ["p0", "p1"]
    assert scores["training_overlap"]["held_out"]["n_papers"] == 1
    write_papers([unseen], "jsonl", corpus / "papers.jsonl")
    assert main(["evaluate", "--model", str(d), str(corpus), "--json",
                 str(tmp_path / "s.json")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("held-out: none of the 1 papers")
    # every paper held out: the report is the held-out one, printed once
    assert "held-out papers only" not in out and out.count("accuracy") == 1, out
    assert json.loads((tmp_path / "s.json").read_text())["training_overlap"]["held_out"] is None
