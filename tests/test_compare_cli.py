"""`coresc compare`: two models or annotated outputs on the same gold papers; and the
intervals `coresc evaluate` prints beside its scores."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import run_cli

from coresc import cli


def compare(argv: list[str], capsys) -> tuple[int, str, str]:
    return run_cli(["compare", *argv], capsys)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory, fixtures: Path) -> dict[str, Path]:
    """The fast model's annotations of the two gold papers of agreement_a1, as mode2
    files and as JSONL (what a run made elsewhere would hand over)."""
    tmp = tmp_path_factory.mktemp("annotated")
    gold = str(fixtures / "agreement_a1")
    assert cli.main(["annotate", gold, "-o", str(tmp / "mode2"), "--model", "fast"]) == 0
    assert cli.main(["annotate", gold, "-o", str(tmp / "out.jsonl"), "--to", "jsonl",
                     "--model", "fast"]) == 0
    return {"gold": fixtures / "agreement_a1", "mode2": tmp / "mode2",
            "jsonl": tmp / "out.jsonl"}


def test_a_model_compared_with_itself(outputs, tmp_path, capsys) -> None:
    target = tmp_path / "cmp.json"
    rc, out, _ = compare(["fast", "fast", str(outputs["gold"]), "--json", str(target)],
                         capsys)
    assert rc == 0
    doc = json.loads(target.read_text())
    assert set(doc) >= {"a", "b", "difference", "n_papers"}
    for side in ("a", "b"):
        assert set(doc[side]) >= {"accuracy", "accuracy_ci", "macro_f1", "macro_f1_ci"}
    diff = doc["difference"]
    assert diff["accuracy"] == 0 and diff["accuracy_ci"] == [0, 0] and diff["p_accuracy"] == 1
    assert diff["macro_f1"] == 0 and diff["macro_f1_ci"] == [0, 0] and diff["p_macro_f1"] == 1
    assert doc["n_papers"] == 2 and doc["n_sentences"] == 11
    assert "no difference in accuracy detectable at this size" in out
    assert "p: t test on the same standard error" in out
    assert "caution: 2 papers" in out
    # no paper differs: no spread to plan the number of papers from
    assert doc["papers_needed"]["accuracy"] == {"1": None, "2": None, "5": None}
    assert "accuracy   1 point: -   2 points: -   5 points: -" in out
    assert "-0.0" not in out


@pytest.mark.parametrize("kind", ["mode2", "jsonl"])
def test_an_annotated_output_reads_back_as_the_model_that_wrote_it(kind, outputs,
                                                                   tmp_path, capsys) -> None:
    target = tmp_path / "cmp.json"
    rc, _, _ = compare(["fast", str(outputs[kind]), str(outputs["gold"]), "--json",
                        str(target)], capsys)
    assert rc == 0
    doc = json.loads(target.read_text())
    assert doc["b"]["kind"] == "annotated output"
    assert doc["difference"]["accuracy"] == 0 and doc["difference"]["p_accuracy"] == 1
    assert doc["a"]["accuracy"] == doc["b"]["accuracy"] > 0


def test_other_predictions_give_a_difference(outputs, tmp_path, capsys) -> None:
    """Every predicted label of B set to the gold one: B is right everywhere."""
    lines = outputs["jsonl"].read_text().splitlines()
    right = tmp_path / "right.jsonl"
    recs = [json.loads(line) for line in lines]
    for rec in recs:
        rec["pred"] = [{"label": rec["gold"][0], "score": 0.9}] if rec["gold"] else rec["pred"]
    right.write_text("".join(json.dumps(r) + "\n" for r in recs))
    target = tmp_path / "cmp.json"
    rc, out, _ = compare([str(outputs["jsonl"]), str(right), str(outputs["gold"]), "--json",
                          str(target)], capsys)
    assert rc == 0
    doc = json.loads(target.read_text())
    assert doc["b"]["accuracy"] == 1.0
    assert doc["difference"]["accuracy"] == pytest.approx(1 - doc["a"]["accuracy"])
    lo, hi = doc["difference"]["accuracy_ci"]
    assert lo <= doc["difference"]["accuracy"] <= hi <= 1
    # two papers: t with 1 df; the interval and the test say the same
    assert (lo > 0) == (doc["difference"]["p_accuracy"] < 0.05)
    needed = doc["papers_needed"]["accuracy"]
    assert needed["1"] >= needed["2"] >= needed["5"] >= 2
    assert "papers needed to detect a difference (80% power, p < 0.05)" in out
    labels = doc["difference"]["per_label_f1"]
    assert all(x["p_holm"] >= x["p"] for x in labels.values())
    assert "per-label F1 (p Holm-adjusted over the labels; the intervals are not)" in out


def test_a_mismatched_output_names_the_first_mismatch(outputs, tmp_path, capsys) -> None:
    changed = tmp_path / "changed"
    shutil.copytree(outputs["mode2"], changed)
    paper = changed / "p2.xml"
    paper.write_text(paper.read_text().replace("The second sentence gives more background",
                                               "Another sentence entirely"))
    rc, _, err = compare(["fast", str(changed), str(outputs["gold"])], capsys)
    assert rc == 2 and err.count("\n") == 1
    assert "paper 'p2', sentence 2: has other text" in err
    (changed / "p2.xml").unlink()
    rc, _, err = compare(["fast", str(changed), str(outputs["gold"])], capsys)
    assert rc == 2 and "paper 'p2' of the gold corpus is missing" in err


def test_too_few_papers_give_no_number(outputs, capsys) -> None:
    rc, out, err = compare(["fast", "fast", str(outputs["gold"] / "p1_mode2.xml")], capsys)
    assert rc == 2 and out == ""
    assert "1 paper: an interval over papers needs at least 2" in err


def test_gold_only_sides_and_corpora_without_gold_are_refused(outputs, fixtures, tmp_path,
                                                              capsys) -> None:
    rc, _, err = compare([str(fixtures / "agreement_a2"), "fast", str(outputs["gold"])],
                         capsys)
    assert rc == 2 and "no sentence carries a predicted label" in err
    for name in ("a.txt", "b.txt"):
        (tmp_path / name).write_text("Introduction\n\nWe weighed the rats. They grew.\n")
    rc, _, err = compare(["fast", "fast", str(tmp_path)], capsys)
    assert rc == 2 and "no sentence carries a gold label" in err


def test_training_papers_are_left_out_and_all_in_sample_is_refused(shared_data, outputs,
                                                                   tmp_path, capsys) -> None:
    cra = sorted((shared_data / "cra-corpus").glob("*.xml"))[:2]
    rc, _, err = compare(["fast", "fast", *map(str, cra)], capsys)
    assert rc == 2 and "every paper was in the training data of fast" in err
    assert "refused" in err and err.count("\n") == 1
    mixed = tmp_path / "mixed"
    shutil.copytree(outputs["gold"], mixed)
    shutil.copy(cra[0], mixed)
    target = tmp_path / "cmp.json"
    rc, out, _ = compare(["fast", "fast", str(mixed), "--json", str(target)], capsys)
    assert rc == 0
    doc = json.loads(target.read_text())
    assert doc["n_papers"] == 2
    assert len(doc["left_out"]) == 1
    assert doc["left_out"][0]["why"] == "in fast's training data (same text)"
    assert "left out:" in out and "training data" in out


def test_evaluate_gives_intervals_over_papers(outputs, tmp_path, capsys) -> None:
    docs = []
    for name in ("a.json", "b.json"):
        assert cli.main(["evaluate", "--model", "fast", str(outputs["gold"]), "--json",
                         str(tmp_path / name)]) == 0
        docs.append(json.loads((tmp_path / name).read_text()))
    out = capsys.readouterr().out
    assert docs[0] == docs[1]  # the same papers, the same intervals
    prim = docs[0]["primary"]
    lo, hi = prim["accuracy_ci"]
    assert lo <= prim["accuracy"] <= hi and len(prim["macro_f1_ci"]) == 2
    assert all(len(s["f1_ci"]) == 2 for s in prim["per_label"].values())
    assert set(docs[0]["agreement"]["micro_ci"]) == {"weighted", "loose", "abo", "coresc1",
                                                     "strict"}
    about = docs[0]["interval"]
    assert (about["n_papers"], about["n_sentences"], about["df"]) == (2, 11, 1)
    assert "[low, high]: 95% intervals, t interval over papers (delete-one-paper " \
           "jackknife) (2 papers, 11 sentences)" in out
    assert "caution: 2 papers: intervals over so few papers are wide" in out
    assert f"accuracy  {prim['accuracy']:.3f} [{lo:.3f}, {hi:.3f}]" in out


def test_evaluate_on_one_paper_says_no_interval(outputs, tmp_path, capsys) -> None:
    target = tmp_path / "one.json"
    assert cli.main(["evaluate", "--model", "fast", str(outputs["gold"] / "p1_mode2.xml"),
                     "--json", str(target)]) == 0
    out = capsys.readouterr().out
    assert "no intervals: 1 paper: an interval over papers needs at least 2" in out
    doc = json.loads(target.read_text())
    assert "accuracy_ci" not in doc["primary"] and "reason" in doc["interval"]


def test_papers_from_several_folders_are_stratified_by_folder(fixtures, tmp_path,
                                                               capsys) -> None:
    target = tmp_path / "two.json"
    other = tmp_path / "other"  # two papers that are in neither other folder
    other.mkdir()
    shutil.copy(fixtures / "agreement_a3" / "p1_mode2.xml", other / "p1_mode2.xml")
    shutil.copy(fixtures / "agreement_other" / "q1_mode2.xml", other / "q1_mode2.xml")
    assert cli.main(["evaluate", "--model", "fast", str(fixtures / "agreement_a1"),
                     str(other), "--json", str(target)]) == 0
    assert "stratified by 2 folds or corpora" in capsys.readouterr().out
    assert json.loads(target.read_text())["interval"]["strata"] == 2


def test_folders_of_one_paper_are_not_stratified_and_never_zero_width(outputs, tmp_path,
                                                                       capsys) -> None:
    """Issue 36: three folders holding one paper each printed 49.8 [49.8, 49.8]."""
    folders = []
    other = outputs["gold"].parent / "agreement_other"
    for i, paper in enumerate([outputs["gold"] / "p1_mode2.xml",
                               outputs["gold"] / "p2_mode2.xml", other / "q1_mode2.xml"]):
        folder = tmp_path / f"g{i}"
        folder.mkdir()
        shutil.copy(paper, folder / paper.name)  # copies, not links
        folders.append(str(folder))
    target = tmp_path / "cmp.json"
    rc, out, _ = compare(["fast", "fast", *folders, "--json", str(target)], capsys)
    assert rc == 0 and "not stratified" in out
    doc = json.loads(target.read_text())
    assert doc["method"]["strata"] == 1 and doc["n_papers"] == 3
    lo, hi = doc["a"]["accuracy_ci"]
    assert hi - lo > 0.001
    assert cli.main(["evaluate", "--model", "fast", *folders, "--json",
                     str(tmp_path / "ev.json")]) == 0
    out = capsys.readouterr().out
    about = json.loads((tmp_path / "ev.json").read_text())["interval"]
    assert about["strata"] == 1 and "not stratified" in out
    lo, hi = json.loads((tmp_path / "ev.json").read_text())["primary"]["accuracy_ci"]
    assert hi - lo > 0.001


@pytest.mark.parametrize("given", ["folder twice", "file twice", "a copy"])
def test_a_paper_given_twice_is_scored_once(given, outputs, tmp_path, capsys) -> None:
    """Issue 42: a folder or file given twice, or a copy of a paper under another name,
    was scored twice (n=6 for 3 papers) and narrowed the intervals."""
    gold = outputs["gold"]
    if given == "folder twice":
        corpora = [str(gold), str(gold)]
    elif given == "file twice":
        corpora = [str(gold), str(gold / "p1_mode2.xml")]
    else:
        shutil.copytree(gold, tmp_path / "gold")
        shutil.copy(gold / "p1_mode2.xml", tmp_path / "gold" / "copy_of_p1.xml")
        corpora = [str(tmp_path / "gold")]
    target = tmp_path / "ev.json"
    assert cli.main(["evaluate", "--model", "fast", *corpora, "--json", str(target)]) == 0
    err = capsys.readouterr().err
    assert "given more than once are scored once" in err
    doc = json.loads(target.read_text())
    assert doc["interval"]["n_papers"] == 2 and doc["repeats_left_out"]
    rc, out, err = compare(["fast", "fast", *corpora, "--json", str(target)], capsys)
    assert rc == 0 and "given more than once are scored once" in err
    doc = json.loads(target.read_text())
    assert doc["n_papers"] == 2 and doc["n_sentences"] == 11
    assert any("given twice" in x["why"] or "the same text as" in x["why"]
               for x in doc["left_out"])


def test_an_annotated_output_of_a_corpus_with_a_copy_compares(outputs, tmp_path,
                                                              capsys) -> None:
    """The copy left out of the gold may be in an annotated output made from the same
    files: it is not "a paper missing from the gold"."""
    shutil.copytree(outputs["gold"], tmp_path / "gold")
    shutil.copy(outputs["gold"] / "p1_mode2.xml", tmp_path / "gold" / "copy_of_p1.xml")
    assert cli.main(["annotate", str(tmp_path / "gold"), "-o", str(tmp_path / "out.jsonl"),
                     "--to", "jsonl", "--model", "fast"]) == 0
    capsys.readouterr()
    rc, out, _ = compare([str(tmp_path / "out.jsonl"), "fast", str(tmp_path / "gold")],
                         capsys)
    assert rc == 0 and "2 papers, 11 gold sentences" in out
