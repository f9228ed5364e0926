"""Consensus rules (the paper's Table 7 and more), `coresc consensus`, and CRA round trips."""

from __future__ import annotations

import json
import random
import shutil

import pytest

from coresc.agreement import AnnotationSet, load_set
from coresc.cli import main
from coresc.consensus import build_consensus, decide
from coresc.document import Label
from coresc.errors import UsageError
from coresc.readers import read_corpus
from coresc.writers import write_papers

# Table 7 of the CRA corpus paper: (A1, A2, A3) -> gold standard; A1 is the reliable one.
TABLE_7 = [
    # 1: majority vote
    ((["Bac"], ["Mot"], ["Bac"]), ["Bac"], "majority"),
    # 2: all different single labels -> highest priority (Hyp > Mot > Bac)
    ((["Bac"], ["Hyp"], ["Mot"]), ["Hyp"], "priority"),
    # 3: all three multi-label -> k = median count 2; votes Res 3, Obj 2, Met 2;
    #    Obj beats Met on priority -> Res Obj
    ((["Obj", "Res", "Met"], ["Obj", "Res"], ["Res", "Met"]), ["Res", "Obj"], "multi-label"),
    # 4: one multi-label annotator only -> single label; Bac has 3 votes
    ((["Mot", "Bac"], ["Bac"], ["Bac"]), ["Bac"], "majority"),
    # 5: single label; votes over all ranks: Met 2 (A1's second, A3) -> Met
    #    (first labels alone, Res Obj Met, would give Obj by priority: not the paper's gold)
    ((["Res", "Met"], ["Obj"], ["Met"]), ["Met"], "majority"),
    # 6: no label has two votes and A3 used two labels -> follow the reliable A1
    #    (priority alone would give Hyp: not the paper's gold)
    ((["Res"], ["Hyp"], ["Mot", "Obs"]), ["Res"], "reliable"),
]


@pytest.mark.parametrize("annotations, gold, rule", TABLE_7,
                         ids=[f"example{i}" for i in range(1, 7)])
def test_table_7(annotations, gold, rule):
    assert decide(annotations, reliable=0) == (gold, rule)


def test_unanimous_keeps_ranking():
    # identical lists are kept as ranked, even against priority (Res after Obj)
    assert decide([["Res", "Obj"]] * 3) == (["Res", "Obj"], "unanimous")
    assert decide([["Bac"], ["Bac"], ["Bac"]]) == (["Bac"], "unanimous")


def test_missing_annotators():
    assert decide([[], [], []]) == ([], "unlabelled")
    assert decide([["Res"], [], ["Res"]]) == (["Res"], "unanimous")
    # two single labels that differ: no majority of 2 -> priority (Con > Res)
    assert decide([["Res"], ["Con"], []]) == (["Con"], "priority")


def test_three_label_gold():
    # all give three labels -> k 3; votes Res 3, Met 3, Obj 2, Bac 1 (no majority);
    # Res and Met tie on votes, Res (priority 5) before Met (9); then Obj
    got = decide([["Res", "Met", "Obj"], ["Met", "Res", "Bac"], ["Obj", "Res", "Met"]])
    assert got == (["Res", "Met", "Obj"], "multi-label")


def test_reliable_fallbacks():
    # somebody multi-labelled, no majority label: the reliable annotator's first label,
    # or the highest priority when none is named or the reliable one left it unlabelled
    case = [["Res"], ["Hyp"], ["Mot", "Obs"]]
    assert decide(case, reliable=2) == (["Mot"], "reliable")
    assert decide(case) == (["Hyp"], "priority")
    assert decide([[], ["Res"], ["Mot", "Obs"]], reliable=0) == (["Mot"], "priority")
    # two annotators multi-labelled (k 2) but with no shared label: whole reliable list
    assert decide([["Res", "Obj"], ["Met", "Bac"], ["Con"]], reliable=1) == (
        ["Met", "Bac"], "reliable")


def test_two_annotators_have_no_majority():
    # a shared label is kept; no shared label: unresolved (no gold), never by priority
    assert decide([["Mot"], ["Bac", "Mot"]]) == (["Mot"], "majority")
    assert decide([["Mot", "Bac"], ["Bac", "Mot"]]) == (["Mot", "Bac"], "multi-label")
    assert decide([["Res"], ["Hyp"]]) == ([], "unresolved")
    assert decide([["Res"], ["Hyp", "Goa"]]) == ([], "unresolved")
    assert decide([["Res"], ["Hyp"]], prefer=0) == (["Res"], "preferred")
    assert decide([["Res"], ["Hyp", "Goa"]], prefer=1) == (["Hyp", "Goa"], "preferred")
    assert decide([["Res"], []]) == (["Res"], "unanimous")


def test_cli_two_annotators(fixtures, tmp_path, capsys):
    a1, a2 = (str(fixtures / f"agreement_a{i}") for i in (1, 2))
    assert main(["consensus", a1, a2, "-o", str(tmp_path / "g")]) == 0
    printed = capsys.readouterr().out
    assert "reliable annotator" not in printed and "unresolved" in printed
    summary = json.loads((tmp_path / "g" / "consensus.json").read_text())
    assert summary["reliable"] is None and summary["rules"]["priority"] == 0
    unresolved = summary["rules"]["unresolved"]
    assert unresolved > 0 and summary["rules"]["preferred"] == 0
    rows = [r.split("\t") for r in
            (tmp_path / "g" / "consensus-decisions.tsv").read_text().splitlines()[1:]]
    assert all(r[3] == "" for r in rows if r[2] == "unresolved")
    assert main(["consensus", a1, a2, "-o", str(tmp_path / "p"), "--prefer",
                 "agreement_a2"]) == 0
    summary = json.loads((tmp_path / "p" / "consensus.json").read_text())
    assert summary["rules"]["preferred"] == unresolved and summary["prefer"] == a2
    assert "settled by " + a2 in capsys.readouterr().out
    assert main(["consensus", a1, a2, "-o", str(tmp_path / "r"), "--reliable", a1]) == 2
    assert "--prefer" in capsys.readouterr().err
    a3 = str(fixtures / "agreement_a3")
    assert main(["consensus", a1, a2, a3, "-o", str(tmp_path / "t"), "--prefer", a1]) == 2
    assert "two annotation sets" in capsys.readouterr().err


def test_majority_tie_broken_by_priority():
    # one multi-label annotator (k 1); Res and Met both have 2 votes -> Res by priority
    assert decide([["Met", "Res"], ["Res"], ["Met"]]) == (["Res"], "majority")


def test_cli_on_fixtures(fixtures, tmp_path, capsys):
    sets = [str(fixtures / f"agreement_a{i}") for i in (1, 2, 3)]
    out = tmp_path / "gold"
    assert main(["consensus", *sets, "-o", str(out), "--reliable", sets[0] + "/"]) == 0
    printed = capsys.readouterr().out
    assert "reliable annotator" in printed and "multi-label" in printed
    summary = json.loads((out / "consensus.json").read_text())
    # p1 = Table 7 (rules as above) + sentence 7: Con vs Res, A3 lacks it -> priority;
    # p2: unanimous Bac, majority Bac (Bac Bac Met), unanimous Met, unanimous Res (A3 empty)
    assert summary["rules"] == {"unanimous": 3, "majority": 4, "priority": 2,
                                "multi-label": 1, "reliable": 1, "preferred": 0,
                                "unresolved": 0, "unlabelled": 0}
    papers = {p.id: p for p in read_corpus([out])}
    assert sorted(papers) == ["p1", "p2"]
    assert [s.gold_codes for s in papers["p1"].sentences()] == [
        ["Bac"], ["Hyp"], ["Res", "Obj"], ["Bac"], ["Met"], ["Res"], ["Con"]]
    assert [s.gold_codes for s in papers["p2"].sentences()] == [
        ["Bac"], ["Bac"], ["Met"], ["Res"]]
    rows = (out / "consensus-decisions.tsv").read_text().splitlines()
    assert rows[0].split("\t")[:4] == ["paper", "sid", "rule", "gold"]
    assert rows[3].split("\t")[2:4] == ["multi-label", "Res|Obj"]


def test_cli_reliable_default_is_highest_mean(fixtures, tmp_path, capsys):
    sets = [str(fixtures / f"agreement_a{i}") for i in (3, 2, 1)]
    assert main(["consensus", *sets, "-o", str(tmp_path / "g")]) == 0
    summary = json.loads((tmp_path / "g" / "consensus.json").read_text())
    means = summary["reliability"]
    assert summary["reliable"] == max(means, key=means.get)


def test_cli_bad_input(fixtures, tmp_path, capsys):
    a1 = str(fixtures / "agreement_a1")
    out = str(tmp_path / "g")
    assert main(["consensus", a1, str(fixtures / "agreement_other"), "-o", out]) == 2
    assert "no paper in common" in capsys.readouterr().err
    assert main(["consensus", a1, str(fixtures / "agreement_bad"), "-o", out]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"coresc consensus: error: {fixtures / 'agreement_bad' / 'p1_mode2.xml'}"
                          f": malformed XML: ") and err.count("\n") == 1, err
    assert main(["consensus", a1, str(fixtures / "agreement_a2"), "-o", out,
                 "--reliable", "nobody"]) == 2
    assert "--reliable nobody" in capsys.readouterr().err
    assert not (tmp_path / "g").exists()  # nothing written on failure


def test_cli_refuses_input_dir_as_output(fixtures, tmp_path, capsys):
    a1 = tmp_path / "a1"
    shutil.copytree(fixtures / "agreement_a1", a1)
    assert main(["consensus", str(a1), str(fixtures / "agreement_a2"), "-o", str(a1)]) == 2
    assert "input annotation set" in capsys.readouterr().err


def test_build_consensus_needs_two_sets(fixtures):
    with pytest.raises(UsageError):
        build_consensus([load_set(fixtures / "agreement_a1")])


# --------------------------------------------------------------- real data (CRA gold)

LABELS = ["Bac", "Met", "Res", "Exp", "Obs", "Con", "Obj", "Mot", "Goa", "Hyp"]


def _perturbed(cra, seed: int) -> AnnotationSet:
    """CRA gold with 15% of primary labels redrawn and a second label added on 10%."""
    annotator = load_set(cra, name=f"annotator{seed}")
    rng = random.Random(seed)
    for paper in annotator.papers.values():
        for s in paper.sentences():
            if not s.gold:
                continue
            if rng.random() < 0.15:
                s.gold = [Label(rng.choice(LABELS)), *s.gold[1:]]
            if rng.random() < 0.10 and len(s.gold) < 3:
                extra = rng.choice([x for x in LABELS if x not in s.gold_codes])
                s.gold = [*s.gold, Label(extra)]
    return annotator


def _exact(truth, papers, primary=False) -> float:
    """Share of gold-labelled sentences whose label list (or first label) is recovered."""
    pairs = [(t, s.gold_codes) for p in papers
             for t, s in zip(truth[p.id], p.sentences(), strict=True) if t]
    if primary:
        return sum(bool(g) and t[0] == g[0] for t, g in pairs) / len(pairs)
    return sum(t == g for t, g in pairs) / len(pairs)


@pytest.mark.slow
def test_cra_consensus_recovers_gold(shared_data):
    cra = shared_data / "cra-corpus"
    truth = {p.id: [s.gold_codes for s in p.sentences()] for p in read_corpus([cra])}
    annotators = [_perturbed(cra, seed) for seed in (1, 2, 3)]
    singles = [_exact(truth, a.papers.values()) for a in annotators]
    result = build_consensus(annotators)
    exact, primary = _exact(truth, result.papers), _exact(truth, result.papers, primary=True)
    # one annotator alone keeps about 0.85 * 0.9 = 77% of the gold lists; the consensus
    # fails where two annotators were perturbed on one sentence (about 6%) and where
    # votes tie and priority reorders a multi-label gold
    assert all(0.7 < x < 0.8 for x in singles)
    assert exact > 0.92 and primary > 0.93
    assert result.counts["unlabelled"] == 54  # as in the corpus
    for r in result.pairwise:
        for avg in ("micro", "macro"):
            assert all(0.0 < v < 1.0 for v in r[avg].values())
            assert r[avg]["loose"] >= r[avg]["strict"]


@pytest.mark.slow
def test_cra_consensus_cli_round_trip(shared_data, tmp_path, capsys):
    cra = shared_data / "cra-corpus"
    names = ["10357790", "ehp11", "plos11"]  # both document layouts
    dirs = []
    for seed in (1, 2, 3):
        annotator = _perturbed(cra, seed)
        d = tmp_path / f"ann{seed}"
        d.mkdir()
        write_papers([annotator.papers[n] for n in names], "xml", d)
        dirs.append(str(d))
    out = tmp_path / "gold"
    assert main(["consensus", *dirs, "-o", str(out), "--reliable", dirs[0]]) == 0
    capsys.readouterr()
    consensus = {p.id: p for p in read_corpus([out])}
    truth = {p.id: p for p in read_corpus([cra / f"{n}_mode2_annotated.xml" for n in names])}
    pairs = [(t.gold_codes, g.gold_codes) for n in names
             for t, g in zip(truth[n].sentences(), consensus[n].sentences(), strict=True)
             if t.gold]
    assert sum(t == g for t, g in pairs) / len(pairs) > 0.9
    # the gold agrees with the consensus better than with any one annotator
    assert main(["agreement", str(cra), str(out), *dirs, "--to", "json"]) == 0
    gold_vs = [p for p in json.loads(capsys.readouterr().out)["pairs"] if p["a"] == str(cra)]
    assert gold_vs[0]["b"] == str(out) and gold_vs[0]["n_papers"] == 3
    for other in gold_vs[1:]:
        for m in ("weighted", "coresc1", "strict"):
            assert gold_vs[0]["micro"][m] > other["micro"][m]


def test_cli_papers_not_in_every_set(fixtures, tmp_path, capsys):
    partial = tmp_path / "a2_partial"
    partial.mkdir()
    shutil.copy(fixtures / "agreement_a2" / "p2_mode2.xml", partial)
    out = tmp_path / "g"
    assert main(["consensus", str(fixtures / "agreement_a1"), str(partial), "-o", str(out)]) == 0
    assert "1 papers are not in every set" in capsys.readouterr().err
    assert [p.name for p in sorted(out.glob("*.xml"))] == ["p2.xml"]
    assert json.loads((out / "consensus.json").read_text())["papers_left_out"] == ["p1"]
