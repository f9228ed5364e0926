"""coresc report: intervals in the headline table, paired differences between runs that
predicted the same papers (coresc/paired_runs.py)."""

from __future__ import annotations

import json
import random

from coresc.paired_runs import (
    first_mismatch,
    paired_runs,
    paired_section,
    read_folds,
    read_predictions,
)
from coresc.report import RunInfo, headline_table

CODES = ["Bac", "Met", "Res", "Con"]


def records(seed: int, right: float, n_papers: int = 12) -> list[dict]:
    rnd = random.Random(0)
    flip = random.Random(seed)
    out = []
    for p in range(n_papers):
        for s in range(1, 15):
            gold = rnd.choice(CODES)
            pred = gold if flip.random() < right else flip.choice(CODES)
            out.append({"fold": f"fold{p % 3}", "paper": f"P{p}", "sid": str(s),
                        "gold": [gold], "pred": [{"label": pred, "score": 0.5}]})
    return out


def write(path, recs) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))


def run(run_id: str, config: str, test: str = "cra", **metrics) -> RunInfo:
    return RunInfo(run_id=run_id, config=config, silver=False, test=test, train="x",
                   metrics=metrics, params={})


def test_runs_on_the_same_papers_are_paired(tmp_path) -> None:
    write(tmp_path / "a.jsonl", records(1, 0.5))
    write(tmp_path / "b.jsonl", records(2, 0.9))
    preds = {"a": read_predictions(tmp_path / "a.jsonl"),
             "b": read_predictions(tmp_path / "b.jsonl"),
             "c": read_predictions(tmp_path / "a.jsonl")}
    runs = [run("a", "art-to-cra"), run("b", "cra-3fold"), run("c", "again"),
            run("d", "art-9fold", "art")]
    text = "\n".join(paired_section(runs, preds))
    assert "## Paired differences on cra: against art-to-cra" in text
    assert "### cra-3fold (B) against art-to-cra (A)" in text
    assert "B is better than A in accuracy by" in text and "over 12 papers" in text
    assert "| accuracy |" in text and "| F1 Bac |" in text
    # the same predictions again: no difference, p = 1
    again = text.split("### again (B)")[1]
    assert "no difference in accuracy detectable" in again
    assert "+0.0 [+0.0, +0.0] | 1.000" in again
    assert "on art" not in text  # one run only: nothing to pair


def test_the_paired_section_is_stratified_by_fold_like_the_intervals(tmp_path) -> None:
    """Issue 36: the runs' intervals were stratified by fold, their pairing was not."""
    write(tmp_path / "a.jsonl", records(1, 0.5))
    write(tmp_path / "b.jsonl", records(2, 0.9))
    a, b = read_predictions(tmp_path / "a.jsonl"), read_predictions(tmp_path / "b.jsonl")
    folds = {"a": read_folds(tmp_path / "a.jsonl"), "b": read_folds(tmp_path / "b.jsonl")}
    assert paired_runs(a, b, folds["a"], folds["b"])["strata"] == 3
    assert paired_runs(a, b)["strata"] == 1
    text = "\n".join(paired_section([run("a", "x"), run("b", "y")], {"a": a, "b": b}, folds))
    assert "12 papers, 168 sentences, stratified by 3 folds." in text
    assert "per-label p Holm-adjusted" in text and "-0.0" not in text


def test_runs_on_other_sentences_are_not_paired(tmp_path) -> None:
    write(tmp_path / "a.jsonl", records(1, 0.5))
    write(tmp_path / "b.jsonl", records(2, 0.9)[:-1])
    a, b = read_predictions(tmp_path / "a.jsonl"), read_predictions(tmp_path / "b.jsonl")
    assert first_mismatch(a, b) == "paper P11, sentence 14 is only in one of them"
    text = "\n".join(paired_section([run("a", "x"), run("b", "y")], {"a": a, "b": b}))
    assert "Not paired: paper P11, sentence 14 is only in one of them." in text
    text = "\n".join(paired_section([run("a", "x"), run("b", "y")], {"a": a, "b": None}))
    assert "Not paired: a run has no `predictions.jsonl` artefact." in text


def test_headline_shows_the_interval_and_the_fold_spread() -> None:
    r = run("0" * 32, "cra-3fold", accuracy=0.709, accuracy_ci_low=0.68,
            accuracy_ci_high=0.74, fold_mean_accuracy=0.71, fold_std_accuracy=0.012,
            n_papers=50, macro_f1=0.54)
    row = headline_table([r])[2]
    assert "| 70.9 [68.0, 74.0] | folds: 71.0 ± 1.2 | 50 | 0.540 |" in row
    r.metrics.update(seed_mean_accuracy=0.705, seed_std_accuracy=0.004, n_seeds=3)
    assert "| folds: 71.0 ± 1.2; seeds (3): 70.5 ± 0.4 |" in headline_table([r])[2]
    r.params["n_folds"] = "1"
    assert "| seeds (3): 70.5 ± 0.4 |" in headline_table([r])[2]


def test_runs_logged_before_intervals_get_them_from_their_predictions(tmp_path) -> None:
    from coresc.report import _fill_intervals

    write(tmp_path / "a.jsonl", records(1, 0.5))

    class Client:
        def download_artifacts(self, run_id, path):
            if run_id == "none":
                raise OSError("no such artefact")
            return str(tmp_path / "a.jsonl")

    old, bare = run("a", "art-to-cra", accuracy=0.5), run("none", "x", accuracy=0.5)
    _fill_intervals(Client(), [old, bare])
    low, high = old.metrics["accuracy_ci_low"], old.metrics["accuracy_ci_high"]
    assert low < high and old.metrics["n_papers"] == 12
    assert "accuracy_ci_low" not in bare.metrics  # no predictions: no interval, no guess
