"""Annotation sets, sentence alignment and `coresc agreement` on small fixtures + CRA."""

from __future__ import annotations

import json
import random

import pytest

from coresc.agreement import (
    AlignmentError,
    align_sentences,
    aligned_labels,
    compare,
    load_set,
    normalise_text,
    reliability,
)
from coresc.cli import main
from coresc.document import Label, Paper, Paragraph, Prediction, Section, Sentence
from coresc.errors import InputError
from coresc.metrics import MEASURES, kappas, observed

approx = pytest.approx


def _paper(pid: str, sents: list[tuple[str, str]]) -> Paper:
    return Paper(id=pid, sections=[Section("", "other", paragraphs=[
        Paragraph([Sentence(sid, text) for sid, text in sents])])])


def test_normalise_text():
    assert (normalise_text("  TNF-\u0391  production (28). ")
            == normalise_text("tnf-\u03b1 production (28)"))
    assert normalise_text("a b") != normalise_text("a c")


def test_align_by_sid_then_text():
    a = _paper("p", [("1", "Alpha one."), ("2", "Beta two."), ("3", "Gamma three."),
                     ("4", "Delta four.")])
    # sid 2 names another text (sid disagreement) -> matched by text instead;
    # "Gamma" has no sid on b; "Delta" is missing on b; "Extra" is missing on a.
    b = _paper("p", [("1", "alpha  ONE"), ("2", "Extra."), ("9", "Beta two."),
                     ("", "Gamma three.")])
    pairs = [(x.text, y.text) for x, y in align_sentences(a, b)]
    assert pairs == [("Alpha one.", "alpha  ONE"), ("Beta two.", "Beta two."),
                     ("Gamma three.", "Gamma three.")]


def test_align_repeated_texts_in_order():
    a = _paper("p", [("", "Same."), ("", "Same."), ("", "Other.")])
    b = _paper("p", [("x", "Same."), ("y", "Same.")])
    pairs = [(x.sid, y.sid) for x, y in align_sentences(a, b)]
    assert pairs == [("", "x"), ("", "y")]


def test_fixture_sets_by_hand(fixtures):
    a1 = load_set(fixtures / "agreement_a1")
    a3 = load_set(fixtures / "agreement_a3")
    la, lb = aligned_labels(a1, a3)
    # p1: a3 has other sids and spacing/case (matched by text) and lacks sentence 7;
    # p2: a3 leaves sentence 4 unlabelled (kept by alignment, left out by the measures)
    assert len(la["p1"]) == 6 and len(la["p2"]) == 4
    k = kappas(la["p1"], lb["p1"])
    # coresc1: a1 Bac Bac Obj Mot Res Res, a3 Bac Mot Res Bac Met Mot -> Po 1/6
    # pA Bac 2/6 Obj 1/6 Mot 1/6 Res 2/6; pB Bac 2/6 Mot 2/6 Res 1/6 Met 1/6
    # Pe = (2*2 + 1*2 + 2*1) / 36 = 8/36 -> (6/36 - 8/36) / (28/36) = -1/14
    assert k["coresc1"] == approx(-1 / 14)
    # loose: s1 s3 s4 s5 share a label -> Po 4/6; intersecting set pairs
    # {Bac}x2: 2 each, {Obj,Res,Met}: 2, {Mot,Bac}: 4, {Res,Met}: 2, {Res}: 1 -> 13/36
    assert k["loose"] == approx((24 / 36 - 13 / 36) / (23 / 36))
    r = compare(a1, a3)
    assert (r["n_papers"], r["n_sentences"]) == (2, 9)
    # p2 (single labels): Bac/Bac Bac/Met Met/Met -> Po 2/3, Pe 2/9 + 2/9 = 4/9 -> 0.4
    assert r["macro"]["coresc1"] == approx((-1 / 14 + 0.4) / 2)


def test_set_with_itself_is_one(fixtures):
    a1 = load_set(fixtures / "agreement_a1")
    r = compare(a1, load_set(fixtures / "agreement_a1", name="copy"))
    assert r["micro"] == approx(dict.fromkeys(MEASURES, 1.0))
    assert r["macro"] == approx(dict.fromkeys(MEASURES, 1.0))
    assert r["n_sentences"] == 11


def test_reliability_means():
    pairs = [{"a": "x", "b": "y", "micro": dict.fromkeys(MEASURES, 0.6)},
             {"a": "x", "b": "z", "micro": dict.fromkeys(MEASURES, 0.4)},
             {"a": "y", "b": "z", "micro": dict.fromkeys(MEASURES, 0.2)}]
    assert reliability(["x", "y", "z"], pairs) == approx({"x": .5, "y": .4, "z": .3})


def test_cli_json(fixtures, capsys):
    sets = [str(fixtures / f"agreement_a{i}") for i in (1, 2, 3)]
    assert main(["agreement", *sets, "--to", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [(p["a"], p["b"]) for p in out["pairs"]] == [
        (sets[0], sets[1]), (sets[0], sets[2]), (sets[1], sets[2])]
    assert out["pairs"][1]["macro"]["coresc1"] == approx((-1 / 14 + 0.4) / 2)
    assert set(out["mean_agreement"]) == set(sets)


def test_observed_agreement_beside_the_kappas(fixtures, capsys):
    a = [["Res"], ["Met", "Exp"], ["Bac"], []]
    b = [["Res"], ["Exp"], ["Obj"], ["Con"]]  # the last is unlabelled on one side: out
    assert observed(a, b) == approx({"weighted": (1 + 0.4 + 0) / 3, "loose": 2 / 3,
                                     "abo": 2 / 3, "coresc1": 1 / 3, "strict": 1 / 3})
    sets = [str(fixtures / "agreement_a1"), str(fixtures / "agreement_a3")]
    assert main(["agreement", *sets, "--to", "json"]) == 0
    pair = json.loads(capsys.readouterr().out)["pairs"][0]
    po = pair["observed"]["micro"]["coresc1"]
    assert main(["agreement", *sets]) == 0
    row = capsys.readouterr().out.splitlines()[1]
    assert f"{pair['micro']['coresc1']:.3f} ({100 * po:.1f}%)" in row


@pytest.mark.parametrize("to", ["table", "markdown"])
def test_cli_table(fixtures, capsys, to):
    sets = [str(fixtures / "agreement_a1"), str(fixtures / "agreement_a3")]
    assert main(["agreement", *sets, "--to", to]) == 0
    out = capsys.readouterr().out
    assert "coresc1" in out and "macro" in out and "%)" in out
    assert ("| set A |" in out) == (to == "markdown")


@pytest.mark.parametrize("other, message", [
    ("agreement_other", "no paper in common"),
    ("agreement_nocommon", "no sentence in common"),
    ("agreement_bad", "agreement_bad/p1_mode2.xml"),
    ("no_such_dir", "no such file or directory"),
])
def test_cli_bad_input(fixtures, capsys, other, message):
    assert main(["agreement", str(fixtures / "agreement_a1"), str(fixtures / other)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_cli_needs_two_sets(fixtures, capsys):
    assert main(["agreement", str(fixtures / "agreement_a1")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == ("coresc agreement: error: agreement needs at least two "
                                 "annotation sets\n")


def test_unlabelled_set_refused(tmp_path):
    (tmp_path / "x.xml").write_text("<PAPER><BODY><P><s sid='1'>No label.</s></P></BODY></PAPER>")
    with pytest.raises(InputError, match="no sentence carries"):
        load_set(tmp_path)


def test_no_common_paper_raises(fixtures):
    with pytest.raises(AlignmentError):
        compare(load_set(fixtures / "agreement_a1"), load_set(fixtures / "agreement_other"))


# --------------------------------------------------------------- real data (CRA gold)


@pytest.mark.slow
def test_cra_gold_with_itself_via_cli(shared_data, capsys):
    cra = shared_data / "cra-corpus"
    assert main(["agreement", str(cra), f"{cra}/", "--to", "json"]) == 0
    pair = json.loads(capsys.readouterr().out)["pairs"][0]
    assert pair["micro"] == approx(dict.fromkeys(MEASURES, 1.0))
    assert pair["macro"] == approx(dict.fromkeys(MEASURES, 1.0))
    # 8,501 sentences of which 54 carry no label (data README)
    assert (pair["n_papers"], pair["n_sentences"]) == (50, 8447)


@pytest.mark.slow
def test_cra_perturbed_agreement_ordering(shared_data):
    gold = load_set(shared_data / "cra-corpus")
    noisy = load_set(shared_data / "cra-corpus", name="noisy")
    rng = random.Random(7)
    labels = ["Bac", "Met", "Res", "Exp", "Obs", "Con", "Obj", "Mot", "Goa", "Hyp"]
    for paper in noisy.papers.values():
        for s in paper.sentences():
            if s.gold and rng.random() < 0.2:
                s.gold = [Label(rng.choice(labels))]
            elif s.gold and rng.random() < 0.1:  # add a second label
                extra = rng.choice([x for x in labels if x not in s.gold_codes])
                s.gold = [*s.gold[:2], Label(extra)]
    r = compare(gold, noisy)
    for avg in ("micro", "macro"):
        for m in MEASURES:
            assert 0.0 < r[avg][m] < 1.0
        assert r[avg]["loose"] >= r[avg]["strict"]
        assert r[avg]["coresc1"] >= r[avg]["strict"]
    # 20% relabelled (some back to the same label) -> CoreSC1 kappa well below 1
    assert 0.6 < r["micro"]["coresc1"] < 0.9


def test_model_output_compared_by_predictions(fixtures):
    gold = load_set(fixtures / "agreement_a1")
    model = load_set(fixtures / "agreement_a1", name="model")
    for paper in model.papers.values():
        for s in paper.sentences():
            s.pred = [Prediction(c, 0.5) for c in s.gold_codes]
            s.gold = [Label("Bac")] if s.gold else []  # input gold, not what is compared
    model.source = "pred"
    r = compare(gold, model)
    assert r["micro"] == approx(dict.fromkeys(MEASURES, 1.0))
    with pytest.raises(InputError, match="no sentence carries pred labels"):
        load_set(fixtures / "agreement_a1", labels="pred")
