"""coresc review --adjudicate: a third person settles where two annotators disagree; the
agreed sentences are taken as they are, only the disagreements wait for a decision."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import gold_of, store_for, two_reviews

from coresc.errors import UsageError
from coresc.readers import read_file
from coresc.review.adjudicate import open_adjudication
from coresc.review.page import page_data, review_page


def test_only_disagreements_wait_and_the_rest_is_taken(tmp_path: Path) -> None:
    two_reviews(tmp_path)
    sets = [str(tmp_path / "alice"), str(tmp_path / "bob")]
    store = open_adjudication(tmp_path / "carol", "carol", sets, print)
    review = store.paper(0)
    assert review.choices == {2: [["Res"], ["Hyp"]], 4: [["Obs", "Res"], ["Res"]]}
    assert {j: d.action for j, d in review.decisions.items()} == {
        0: "agreed", 1: "agreed", 3: "one-annotator"}
    assert store.progress()["all"] == {"total": 2, "reviewed": 0, "changed": 0}
    # the bar names both annotators (a '/' between two names is no path to cut)
    assert page_data(store, 0)["model_name"] == "alice / bob"
    assert 'id="rv-model">alice / bob<' in review_page(store, 0)
    assert gold_of(review.out) == [["Bac"], ["Met"], [], ["Con"], [], [], [], []]
    assert store.decide(0, 2, ["Hyp"]).action == "adjudicated"
    store.decide(0, 4, ["Obs"])  # neither choice: counted as changed
    assert store.progress()["all"] == {"total": 2, "reviewed": 2, "changed": 1}
    assert gold_of(review.out) == [["Bac"], ["Met"], ["Hyp"], ["Con"], ["Obs"], [], [], []]
    assert 'review="adjudicated"' in review.out.read_text(encoding="utf-8")
    # started again: resumed, nothing settled twice
    again = open_adjudication(tmp_path / "carol", "carol", sets, print).paper(0)
    assert again.decisions[2].labels == ["Hyp"] and again.choices == review.choices


def test_adjudication_refuses_bad_sets(tmp_path: Path) -> None:
    two_reviews(tmp_path)
    alice = str(tmp_path / "alice")
    with pytest.raises(UsageError, match="same annotation set"):
        open_adjudication(tmp_path / "carol", "carol", [alice, alice + "/"], print)
    with pytest.raises(UsageError, match="one of the annotation sets"):
        open_adjudication(tmp_path / "alice", "alice", [alice, str(tmp_path / "bob")], print)


def test_no_label_is_a_choice_in_an_adjudication(tmp_path: Path) -> None:
    """One annotator's "no label" against the other's label is a disagreement; both
    saying it is agreed, and saved as no label."""
    alice, bob = store_for(tmp_path, "alice"), store_for(tmp_path, "bob")
    for store, labels in ((alice, [["Bac"], [], [], []]), (bob, [["Bac"], ["Met"], [], None])):
        for j, chosen in enumerate(labels):
            if chosen is not None:
                store.decide(0, j, chosen)
    sets = [str(tmp_path / "alice"), str(tmp_path / "bob")]
    store = open_adjudication(tmp_path / "carol", "carol", sets, print)
    review = store.paper(0)
    assert review.choices == {1: [[], ["Met"]]}
    assert {j: (d.labels, d.action) for j, d in review.decisions.items()} == {
        0: (["Bac"], "agreed"), 2: ([], "agreed"), 3: ([], "one-annotator")}
    store.decide(0, 1, [])  # carol takes alice's: no label
    text = review.out.read_text(encoding="utf-8")
    assert text.count("<CoreScNone") == 3 and 'review="adjudicated"' in text
    assert [s.no_label for s in read_file(review.out)[0].sentences()][:4] == \
        [False, True, True, True]
