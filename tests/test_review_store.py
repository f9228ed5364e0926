"""coresc review's store: decisions saved atomically as mode2 gold, resumed, undone, and
kept apart per annotator; the files read back by the readers, agreement and metrics."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import gold_of, never, review_paper, store_for

from coresc.agreement import load_set
from coresc.document import Prediction
from coresc.errors import OutputError, UsageError
from coresc.evaluation import evaluate_papers
from coresc.readers import read_file
from coresc.review.adapt import Adapter
from coresc.review.decisions import ANSWERED_KEPT
from coresc.review.lock import Lock
from coresc.review.store import open_store


def test_decisions_are_saved_as_gold_and_the_rest_withheld(tmp_path: Path) -> None:
    store = store_for(tmp_path)
    review = store.paper(0)
    assert gold_of(review.out) == [[]] * 8  # written at once, nothing reviewed yet
    store.decide(0, 0, None)  # accept the model's Bac
    store.decide(0, 2, ["Obs", "Res"], novelty="New", comment="a <tricky> & \"one\"")
    store.decide(0, 4, ["Obs", "Res"])  # the model's labels, typed: still confirmed
    assert gold_of(review.out) == [["Bac"], [], ["Obs", "Res"], [], ["Obs", "Res"], [], [],
                                   []]
    paper = read_file(review.out)[0]
    s = paper.sentences()
    assert s[1].withheld == Prediction("Met", 0.55) and not s[1].pred  # reads as no label
    assert s[2].gold[0].novelty == "New"
    text = review.out.read_text(encoding="utf-8")
    assert 'annotator="alice" review="changed"' in text
    assert text.count('review="confirmed"') == 2 and text.count('review="unreviewed"') == 5
    assert 'reviewed="3"' in text and 'sentences="8"' in text
    assert "a &lt;tricky&gt; &amp; &quot;one&quot;" in text
    assert [x["sentence"] for x in map(json.loads, store.journal.read_text().splitlines())] \
        == [0, 2, 4]
    assert store.progress()["all"] == {"total": 8, "reviewed": 3, "changed": 1}
    # only reviewed sentences are gold for scoring: the model's output is compared on 3
    paper.sentences()[0].pred = [Prediction("Bac", 1.0)]
    assert evaluate_papers([paper])["n_sentences"] == 3


def test_accepting_confirms_the_primary_only(tmp_path: Path) -> None:
    """The model's secondary labels are suggestions: gold only when the person takes them."""
    store = store_for(tmp_path)
    review = store.paper(0)
    accepted = store.decide(0, 1, None)  # the model says Met, Exp: Enter keeps Met
    assert accepted.labels == ["Met"] and accepted.action == "confirmed"
    taken = store.decide(0, 4, ["Obs", "Res"])  # the model's secondary, taken: confirmed
    assert taken.action == "confirmed"
    other = store.decide(0, 7, ["Res", "Obs"])  # a secondary the model did not give
    assert other.action == "changed"
    again = store.decide(0, 4, None)  # accepting a decided sentence keeps the decision
    assert again.labels == ["Obs", "Res"]
    assert gold_of(review.out)[1] == ["Met"] and gold_of(review.out)[4] == ["Obs", "Res"]


def test_bad_decisions_are_refused_and_change_nothing(tmp_path: Path) -> None:
    store = store_for(tmp_path)
    before = store.paper(0).out.read_bytes()
    for labels, kwargs in ((["Xyz"], {}), ([], {"advantage": "Advantage"}),
                           (["Bac", "Met", "Res", "Con"], {}),
                           (["Bac", "Bac"], {}), (["Bac"], {"novelty": "Brand-new"}),
                           (["Bac"], {"advantage": "Maybe"})):
        with pytest.raises(UsageError):
            store.decide(0, 1, labels, **kwargs)
    with pytest.raises(LookupError):
        store.decide(0, 8, ["Bac"])
    with pytest.raises(LookupError):
        store.decide(1, 0, ["Bac"])
    assert store.paper(0).out.read_bytes() == before
    assert not store.paper(0).decisions


def test_a_failed_save_leaves_the_files_as_they_were(tmp_path: Path, monkeypatch) -> None:
    store = store_for(tmp_path)
    store.decide(0, 0, ["Met"])
    review = store.paper(0)
    saved = review.out.read_bytes(), review.state_path.read_bytes()

    def broken(annotator: str) -> bytes:
        raise OutputError(review.out, "disk full")

    monkeypatch.setattr(review, "mode2_bytes", broken)
    with pytest.raises(OutputError):
        store.decide(0, 1, ["Bac"])
    assert (review.out.read_bytes(), review.state_path.read_bytes()) == saved
    assert sorted(review.decisions) == [0]  # the failed decision is not kept
    assert not [p for p in review.out.parent.rglob("*.part")]  # no half-written file left


def test_restart_resumes_exactly_and_rewrites_a_stale_file(tmp_path: Path) -> None:
    store = store_for(tmp_path)
    store.decide(0, 3, ["Con", "Res"], advantage="Advantage", comment="ok")
    store.decide(0, 5, None)
    out = store.paper(0).out
    expected = gold_of(out)
    out.unlink()  # a crash between the state and the file: the state wins
    again = store_for(tmp_path)
    assert gold_of(out) == expected
    d = again.paper(0).decisions
    assert sorted(d) == [3, 5] and d[3].comment == "ok" and d[3].advantage == "Advantage"
    assert again.paper(0).suggestions == store.paper(0).suggestions
    assert again.undo(0) == 5 and again.undo(0) == 3 and again.undo(0) is None  # undo too


def test_undo_restores_the_decision_before(tmp_path: Path) -> None:
    store = store_for(tmp_path)
    store.decide(0, 1, ["Exp"])
    store.decide(0, 1, ["Exp", "Met"])
    assert store.undo(0) == 1
    assert gold_of(store.paper(0).out)[1] == ["Exp"]
    assert store.undo(0) == 1
    assert gold_of(store.paper(0).out)[1] == []
    assert store.paper(0).progress()["reviewed"] == 0


def test_a_decision_that_changes_nothing_is_not_one_more_to_undo(tmp_path: Path) -> None:
    """A label typed, then Enter: one decision, taken back by one undo."""
    store = store_for(tmp_path)
    review = store.paper(0)
    store.decide(0, 0, None)
    store.decide(0, 1, ["Res"])
    lines = store.journal.read_text().splitlines()
    assert store.decide(0, 1, None) is review.decisions[1]  # Enter after the letter
    assert store.decide(0, 1, ["Res"]) is review.decisions[1]
    assert store.journal.read_text().splitlines() == lines  # nothing saved again
    assert len(review.undo_stack) == 2
    assert store.undo(0) == 1 and 1 not in review.decisions  # one undo: back as it was
    assert gold_of(review.out)[:2] == [["Bac"], []]
    assert store.undo(0) == 0 and store.undo(0) is None


def test_a_request_already_carried_out_is_not_repeated_after_a_restart(tmp_path: Path) -> None:
    store = store_for(tmp_path)
    store.decide(0, 1, ["Exp"], request="r1")
    store.decide(0, 2, ["Met"], request="r2")
    assert store.undo(0, request="r3") == 2
    again = store_for(tmp_path)  # the server died before the page heard the answers
    assert again.undo(0, request="r3") == 2  # sent again: answered, not undone twice
    assert again.decide(0, 2, ["Met"], request="r2").labels == ["Met"]
    review = again.paper(0)
    assert sorted(review.decisions) == [1] and len(review.undo_stack) == 1
    assert again.undo(0, request="r4") == 1 and not again.paper(0).decisions
    for k in range(ANSWERED_KEPT + 5):  # what is remembered stays bounded
        again.paper(0).remember(f"x{k}", "undo", {"sentence": None})
    assert len(again.paper(0).answered) == ANSWERED_KEPT


def test_a_request_id_is_remembered_with_what_it_was_for(tmp_path: Path) -> None:
    """An id used again for another request is refused, whatever that request is."""
    from coresc.review.decisions import ReusedRequest

    store = store_for(tmp_path, papers=[review_paper("p1"), review_paper("p2")])
    store.decide(0, 1, ["Exp"], request="d1")
    store.undo(0, request="u1")
    store.decide(0, 1, ["Exp"], request="d2")
    for call in (lambda: store.decide(0, 2, ["Exp"], request="d2"),  # another sentence
                 lambda: store.decide(0, 1, ["Met"], request="d2"),  # other labels
                 lambda: store.decide(0, 1, ["Exp"], novelty="New", request="d2"),
                 lambda: store.decide(1, 1, ["Exp"], request="d2"),  # another paper
                 lambda: store.undo(0, request="d2"),  # a decision's id as an undo
                 lambda: store.decide(0, 1, ["Exp"], request="u1"),  # an undo's as one
                 lambda: store.undo(1, request="u1")):
        with pytest.raises(ReusedRequest, match="was used before for"):
            call()
    assert {j: d.labels for j, d in store.paper(0).decisions.items()} == {1: ["Exp"]}
    assert not store.paper(1).decisions and len(store.paper(0).undo_stack) == 1
    assert store.decide(0, 1, ["Exp"], request="d2").labels == ["Exp"]  # the same: answered
    assert store.undo(0, request="u1") == 1 and 1 in store.paper(0).decisions


def test_no_label_is_saved_as_such_and_every_reader_skips_it(tmp_path: Path) -> None:
    """Acknowledgements, funding: a sentence with no CoreSC label is a decision, saved as
    CoreScNone, read back as no_label and never as gold; a paper holding one finishes."""
    from coresc.agreement import compare
    from coresc.consensus import build_consensus
    from coresc.writers.mode2 import render_mode2

    alice, bob = store_for(tmp_path, "alice"), store_for(tmp_path, "bob")
    review = alice.paper(0)
    none = alice.decide(0, 5, [], comment="funding")
    assert none.labels == [] and none.action == "changed"  # the model said Hyp
    assert alice.decide(0, 5, None) is none  # accepting it changes nothing
    with pytest.raises(UsageError, match="no novelty"):
        alice.decide(0, 6, [], novelty="New")
    for j in range(review.n):
        if j != 5:
            alice.decide(0, j, None)
    assert alice.progress()["papers"][0]["reviewed"] == review.n  # finished
    text = review.out.read_text(encoding="utf-8")
    assert '<CoreScNone annotator="alice" review="changed"' in text
    assert 'comment="funding"' in text and 'review="unreviewed"' not in text
    paper = read_file(review.out)[0]
    s5 = paper.sentences()[5]
    assert s5.no_label and not s5.gold and not s5.pred and s5.withheld is None
    assert sum(s.no_label for s in paper.sentences()) == 1
    # kept by a rewrite of the gold; dropped where the output is a model's labels
    assert render_mode2(paper, labels="gold").count(b"<CoreScNone") == 1
    paper.sentences()[5].pred = [Prediction("Bac", 0.5)]
    assert b"CoreScNone" not in render_mode2(paper, labels="pred")
    # scoring, agreement and consensus take it for no gold (train skips it alike)
    paper = read_file(review.out)[0]
    for s in paper.sentences():
        s.pred = [Prediction("Bac", 1.0)]
    assert evaluate_papers([paper])["n_sentences"] == review.n - 1
    for j in range(review.n):
        bob.decide(0, j, None)
    pair = compare(load_set(tmp_path / "alice"), load_set(tmp_path / "bob"))
    assert pair["n_sentences"] == review.n - 1
    consensus = build_consensus([load_set(tmp_path / "alice"), load_set(tmp_path / "bob")])
    assert consensus.papers[0].sentences()[5].gold_codes == ["Hyp"]  # bob's, as one set's


def test_a_changed_paper_is_not_resumed_from_another_version(tmp_path: Path) -> None:
    store_for(tmp_path).decide(0, 0, None)
    changed = review_paper()
    changed.sentences()[0].text = "Something else entirely."
    lines: list[str] = []
    store = open_store(tmp_path / "alice", "alice", [changed, review_paper("paper-2")], "fast",
                       never, lines.append)
    assert [r.paper.id for r in store.papers] == ["paper-2"]  # the other stays reviewable
    assert len(lines) == 1 and "another version of paper paper-1" in lines[0]
    with pytest.raises(UsageError, match="no paper left to review"):
        open_store(tmp_path / "alice", "alice", [changed], "fast", never, print)
    assert store_for(tmp_path).paper(0).decisions  # the saved state is still there


def test_two_annotators_keep_separate_files_that_agreement_pairs(tmp_path: Path) -> None:
    alice, bob = store_for(tmp_path, "alice"), store_for(tmp_path, "bob")
    for j, (a, b) in enumerate([("Bac", "Bac"), ("Met", "Exp"), ("Res", "Res"),
                                ("Con", "Con")]):
        alice.decide(0, j, [a])
        bob.decide(0, j, [b])
    alice.decide(0, 6, ["Bac"])  # bob has not reviewed it: left out of the comparison
    assert gold_of(alice.paper(0).out)[1] == ["Met"] and gold_of(bob.paper(0).out)[1] == ["Exp"]
    a, b = load_set(tmp_path / "alice"), load_set(tmp_path / "bob")
    assert a.source == b.source == "gold" and set(a.papers) == set(b.papers) == {"paper-1"}
    from coresc.agreement import align_sentences

    pairs = [(a.labels(x), b.labels(y)) for x, y in
             align_sentences(a.papers["paper-1"], b.papers["paper-1"])
             if a.labels(x) and b.labels(y)]
    assert pairs == [(["Bac"], ["Bac"]), (["Met"], ["Exp"]), (["Res"], ["Res"]),
                     (["Con"], ["Con"])]


def test_the_lock_refuses_a_second_review_and_takes_over_a_dead_ones(tmp_path: Path) -> None:
    lock = Lock(tmp_path / "alice")
    lock.acquire()
    with pytest.raises(UsageError, match="another coresc review"):
        Lock(tmp_path / "alice").acquire()
    Lock(tmp_path / "bob").acquire()  # another annotator: its own lock
    lock.release()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    lock.path.write_text(dead + "\n")  # left by a killed process
    lock.acquire()
    assert lock.path.read_text().strip() == str(os.getpid())


def test_reannotating_changes_only_unreviewed_sentences(tmp_path: Path) -> None:
    store = store_for(tmp_path)
    store.decide(0, 0, ["Hyp"])

    def other_model(papers) -> None:
        for p in papers:
            for s in p.sentences():
                s.pred = [Prediction("Obj", 0.6)]

    assert store.reannotate(other_model, "adapted") == 7
    review = store.paper(0)
    assert review.suggestions[0] == [("Bac", 0.9)] and review.decisions[0].labels == ["Hyp"]
    assert all(review.suggestions[j] == [("Obj", 0.6)] for j in range(1, 8))
    text = review.out.read_text(encoding="utf-8")
    assert text.count('model="adapted"') == 7 + 1  # seven sentences and the paper


class CopyingAdapter(Adapter):
    """The adaptation with the training replaced by a copy of the bundled fast model."""

    def train_command(self, files: list[str]) -> list[str]:
        from coresc.model.storage import resolve_model

        return [sys.executable, "-c", "import shutil, sys; shutil.copytree(sys.argv[1], "
                "sys.argv[2], dirs_exist_ok=True); print('trained')",
                str(resolve_model("fast")), str(self.out)]


def test_adapting_needs_a_review_then_relabels_the_rest(tmp_path: Path) -> None:
    from coresc.commands.review import _Annotator

    store = store_for(tmp_path)
    adapter = CopyingAdapter(store, "fast", tmp_path / "alice-adapted-model", _Annotator)
    with pytest.raises(UsageError, match="nothing reviewed yet"):
        adapter.start()
    store.decide(0, 0, ["Hyp"])
    adapter.start()
    adapter.thread.join(120)
    assert adapter.status()["state"] == "done", adapter.status()
    assert store.paper(0).model == str(tmp_path / "alice-adapted-model")
    assert store.paper(0).decisions[0].labels == ["Hyp"]
    assert "trained" in adapter.status()["log"]


def test_adapting_reports_a_failed_training(tmp_path: Path) -> None:
    store = store_for(tmp_path)
    store.decide(0, 0, None)

    class Failing(Adapter):
        def train_command(self, files: list[str]) -> list[str]:
            return [sys.executable, "-c", "import sys; sys.exit('coresc train: error: no')"]

    adapter = Failing(store, "fast", tmp_path / "m", never)
    adapter.start()
    adapter.thread.join(60)
    assert adapter.status()["state"] == "failed"
    assert adapter.status()["message"] == "coresc train: error: no"
    assert store.paper(0).model == "the input file"  # still the labels it came with


@pytest.mark.slow
def test_adapting_with_coresc_train_from(tmp_path: Path) -> None:
    """The real thing: `coresc train FILES --from fast` on a reviewed paper, then the
    adapted model labels the sentences not reviewed."""
    from coresc.commands.review import _Annotator

    paper = read_file(Path(__file__).parents[1] / "data" / "example-paper.xml")[0]
    store = open_store(tmp_path / "alice", "alice", [paper], "fast", _Annotator("fast"), print)
    for j, labels in enumerate([["Bac"], ["Bac"], ["Goa"], ["Met"], ["Met", "Exp"], ["Exp"],
                                ["Res"], ["Res"], ["Obs"], ["Con"], ["Con"], ["Bac"]]):
        store.decide(0, j, labels)
    adapter = Adapter(store, "fast", tmp_path / "alice-adapted-model", _Annotator)
    adapter.start()
    adapter.thread.join(300)
    status = adapter.status()
    assert status["state"] == "done", status
    assert status["command"][-4:] == ["--from", "fast", "-o", str(tmp_path /
                                                                  "alice-adapted-model")]
    review = store.paper(0)
    assert review.model == str(tmp_path / "alice-adapted-model")
    assert [review.decisions[j].labels for j in (3, 4)] == [["Met"], ["Met", "Exp"]]
    text = review.out.read_text(encoding="utf-8")
    assert text.count(f'model="{tmp_path / "alice-adapted-model"}"') == len(paper) - 12 + 1
