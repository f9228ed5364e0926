"""The review loop's commands (issue 42): one paper-list format that `select -o` writes
and `review --from-list` / `train --from-list` read (item 8); `select --scores` says why
each paper was chosen and explains the order (item 9); `convert --strip-labels` makes an
unlabelled pool of labelled papers (item 10)."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from coresc.cli import main
from coresc.commands.options import keep_listed, listed_paths, read_list
from coresc.errors import InputError
from coresc.readers import read_corpus, read_file
from coresc.selection import weak_label_parts

QUICK = ["--c1", "0.1", "--c2", "0.1", "--max-iterations", "5", "--no-secondary"]
TEXT = "Introduction\n\nWe weighed the {a} every day. The {a} gained weight. We {b}.\n"


@pytest.fixture()
def pool(tmp_path: Path) -> Path:
    d = tmp_path / "pool"
    d.mkdir()
    for a, b in (("rats", "slept"), ("mice", "ran"), ("stars", "watched them")):
        (d / f"{a}.txt").write_text(TEXT.format(a=a, b=b))
    return d


def _select(argv: list[str], capsys) -> tuple[list[str], str]:
    assert main(["select", *argv, "--model", "fast"]) == 0
    out, err = capsys.readouterr()
    return out.splitlines(), err


def test_select_scores_list_is_what_review_and_train_read(pool, tmp_path, capsys) -> None:
    listed = tmp_path / "next.txt"
    lines, _ = _select([str(pool), "--budget", "2", "--scores", "-o", str(listed)], capsys)
    rows = [line.split("\t") for line in lines if not line.startswith("#")]
    assert len(rows) == 2 and all(len(r) == 7 for r in rows)
    assert read_list(listed) == [(r[0], None) for r in rows]  # the path, not the numbers
    from coresc.commands.review import _papers

    args = argparse.Namespace(papers=[], from_list=[str(listed)], format="auto")
    assert [p.source_path for p in _papers(args)] == [r[0] for r in rows]


def test_a_list_names_one_paper_of_a_file_of_several_and_takes_comments(tmp_path) -> None:
    pool = tmp_path / "pool.jsonl"
    rows = [{"id": f"p{i}", "sentences": ["We saw it.", "It grew."]} for i in (1, 2, 3)]
    pool.write_text("".join(json.dumps(r) + "\n" for r in rows))
    listed = tmp_path / "l.txt"
    listed.write_text(f"# chosen\n\n{pool}#p3\t0.5\t2\n{pool}#p1\n")
    entries = read_list(listed)
    assert entries == [(str(pool), "p3"), (str(pool), "p1")]
    kept = keep_listed(read_corpus(listed_paths(entries)), entries)
    assert sorted(p.id for p in kept) == ["p1", "p3"]
    listed.write_text(f"{pool}#p9\n")
    with pytest.raises(InputError, match="no paper 'p9'"):
        keep_listed(read_corpus([str(pool)]), read_list(listed))


@pytest.mark.parametrize("text, problem", [
    ("missing.xml\n", "line 1: missing.xml: no such file"),
    ("# only a comment\n\n", "names no paper"),
])
def test_a_bad_list_is_one_line_naming_it(text, problem, tmp_path, fixtures,
                                          coresc_cli) -> None:
    listed = tmp_path / "bad.txt"
    listed.write_text(text)
    for argv in (["train", "--from-list", str(listed), "-o", str(tmp_path / "m")],
                 ["review", "--from-list", str(listed), "--annotator", "a", "-o",
                  str(tmp_path / "r")]):
        rc, err = coresc_cli(argv)
        assert rc == 2 and problem in err and "bad.txt" in err, err
        assert len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "m").exists() and not (tmp_path / "r").exists()


def test_train_from_a_list_trains_on_the_listed_papers(fixtures, tmp_path, coresc_cli) -> None:
    listed = tmp_path / "gold.txt"
    p1 = fixtures / "agreement_a1" / "p1_mode2.xml"
    listed.write_text(f"# reviewed\n{p1}\t9.9\t7\n")
    rc, err = coresc_cli(["train", "--from-list", str(listed), "-o", str(tmp_path / "m"),
                          *QUICK])
    assert rc == 0, err
    meta = json.loads((tmp_path / "m" / "meta.json").read_text())
    assert [p["id"] for p in meta["training_data"]["papers"]] == ["p1"]
    assert "--from-list" in meta["command"]


def test_select_scores_say_why_and_explain_the_order(pool, capsys) -> None:
    lines, _ = _select([str(pool), "--budget", "3", "--scores"], capsys)
    comments = [line for line in lines if line.startswith("#")]
    assert any("most useful first" in c and "gain = utility" in c for c in comments)
    assert any("utility (weak)" in c for c in comments)
    assert comments[-1].split("\t")[1:] == ["expected_wrong", "sentences", "weak_labels",
                                            "utility", "similarity", "gain"]
    rows = [line.split("\t") for line in lines if not line.startswith("#")]
    gains = [float(r[6]) for r in rows]
    assert gains == sorted(gains, reverse=True)
    for r in rows:
        weak = [part.split(":") for part in r[3].split()]
        assert 1 <= len(weak) <= 3 and all(float(n) >= 0 for _, n in weak)


def test_weak_label_parts_name_the_rare_uncertain_label() -> None:
    # three labels; paper 0 unsure about the rare Hyp, paper 1 about common Res/Met
    margs = [np.tile([0.3, 0.7, 0.0], (4, 1)), np.tile([0.0, 0.5, 0.5], (10, 1)),
             np.zeros((0, 3))]
    parts = weak_label_parts(margs, ["Hyp", "Res", "Met"])
    assert parts[0][0][0] == "Hyp" and parts[0][0][1] == pytest.approx(1.2)
    assert {lab for lab, _ in parts[1]} == {"Res", "Met"} and parts[2] == []


def test_strip_labels_makes_an_unlabelled_pool(fixtures, tmp_path, capsys) -> None:
    src = tmp_path / "gold"
    shutil.copytree(fixtures / "agreement_a1", src)
    shutil.copy(fixtures / "io_art_small.xml", src)
    out = tmp_path / "pool"
    assert main(["convert", str(src), "-o", str(out), "--strip-labels"]) == 0
    before, after = read_corpus([src]), read_corpus([out])
    assert any(s.gold for p in before for s in p.sentences())
    assert [[s.text for s in p.sentences()] for p in after] == \
        [[s.text for s in p.sentences()] for p in before]
    assert not any(s.gold or s.pred or s.withheld for p in after for s in p.sentences())
    text = "".join(f.read_text() for f in out.glob("*.xml"))
    assert "CoreSc" not in text and "annotationART" not in text
    capsys.readouterr()
    lines, _ = _select([str(out), "--budget", "1"], capsys)  # a pool select takes
    assert len(lines) == 1
    annotated = tmp_path / "annotated.jsonl"
    assert main(["annotate", str(fixtures / "agreement_a1"), "--model", "fast", "--to", "jsonl",
                 "-o", str(annotated)]) == 0
    stripped = tmp_path / "stripped.jsonl"
    assert main(["convert", str(annotated), "--to", "jsonl", "-o", str(stripped),
                 "--strip-labels"]) == 0
    assert not any(s.gold or s.pred for p in read_file(stripped) for s in p.sentences())


def test_any_list_text_gives_existing_paths_or_one_input_error(tmp_path) -> None:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    real = tmp_path / "real.txt"
    real.write_text("x")
    pieces = st.sampled_from([str(real), f"{real}#p1", "# note", "", "\t", "missing.xml",
                              "\x00", "é", "#", f"{real}\t1.0\t3", " "])
    listed = tmp_path / "l.txt"

    @settings(max_examples=200, deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(st.lists(st.lists(pieces, max_size=3).map("".join), max_size=6),
           st.sampled_from(["\n", "\r\n"]))
    def check(lines, newline):
        listed.write_bytes(newline.join(lines).encode("utf-8"))
        try:
            entries = read_list(listed)
        except InputError as exc:
            assert "\n" not in str(exc) and str(listed) in str(exc)
            return
        assert entries and all(Path(p).exists() for p, _ in entries)

    check()
