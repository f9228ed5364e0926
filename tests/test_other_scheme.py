"""A corpus of another label scheme (CSAbstruct's background / objective / method /
result) trains a model of that scheme, with one note (issue 42, item 2), which annotate,
evaluate, compare, the HTML view and review take; a CoreSC model scored on such gold
stops in one line naming both label sets instead of printing 0.000 (item 20)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coresc.cli import main
from coresc.errors import UsageError
from coresc.labels import LABELS

QUICK = ["--c1", "0.1", "--c2", "0.1", "--max-iterations", "20"]
SCHEME = ("background", "objective", "method", "result")
TOPICS = ("graphs", "compilers", "parsers", "caches", "robots", "queries", "proofs", "games",
          "networks", "images")
SAYS = {
    "background": "Many systems rely on {t} and prior work studied {t} at length.",
    "objective": "In this paper we aim to improve {t} for everyday use.",
    "method": "We train a model on {t} and measure it with a benchmark.",
    "result": "Results show that our approach beats the baseline on {t}.",
}


def _abstracts(path: Path, topics) -> Path:
    """Abstracts of four sentences, one per label, as CSAbstruct's JSONL."""
    with path.open("w") as fh:
        for i, t in enumerate(topics):
            fh.write(json.dumps({"abstract_id": i,
                                 "sentences": [SAYS[lab].format(t=t) for lab in SCHEME],
                                 "labels": list(SCHEME)}) + "\n")
    return path


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    return _abstracts(tmp_path_factory.mktemp("other") / "abstracts.jsonl", TOPICS)


@pytest.fixture(scope="module")
def held_out(tmp_path_factory) -> Path:
    return _abstracts(tmp_path_factory.mktemp("other") / "held-out.jsonl",
                      [f"{t} at scale" for t in TOPICS])


@pytest.fixture(scope="module")
def model(corpus, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("model") / "m"
    assert main(["train", str(corpus), "-o", str(out), *QUICK]) == 0
    return out


def test_another_scheme_trains_on_its_own_labels_with_one_note(corpus, tmp_path,
                                                               coresc_cli) -> None:
    rc, err = coresc_cli(["train", str(corpus), "-o", str(tmp_path / "m"), *QUICK])
    assert rc == 0, err
    notes = [line for line in err.splitlines() if "note" in line]
    assert len(notes) == 1 and all(lab in notes[0] for lab in SCHEME), err
    meta = json.loads((tmp_path / "m" / "meta.json").read_text())
    assert sorted(meta["labels"]) == sorted(SCHEME)
    card = (tmp_path / "m" / "MODEL_CARD.md").read_text()
    assert "CoreSC discourse role" not in card and "background" in card.split("\n\n")[1]


def test_a_stray_label_among_coresc_labels_is_still_refused(corpus, tmp_path,
                                                             coresc_cli) -> None:
    coresc = dict(zip(SCHEME, ("Bac", "Goa", "Met", "Res"), strict=True))
    records = [json.loads(line) for line in corpus.read_text().splitlines()]
    for r in records:
        r["labels"] = [coresc[lab] for lab in r["labels"]]
    records[3]["labels"][2] = "Mehtod"  # a typo in a CoreSC corpus
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text("".join(json.dumps(r) + "\n" for r in records))
    rc, err = coresc_cli(["train", str(mixed), "-o", str(tmp_path / "m"), *QUICK])
    assert rc == 2 and "'Mehtod'" in err and "mixed.jsonl" in err, err
    assert not (tmp_path / "m").exists()


def test_annotate_evaluate_compare_and_view_take_the_model(model, held_out, tmp_path,
                                                           coresc_cli, capsys) -> None:
    corpus = held_out
    out = tmp_path / "pred.jsonl"
    rc, err = coresc_cli(["annotate", "--model", str(model), str(corpus), "--to", "jsonl",
                          "-o", str(out)])
    assert rc == 0, err
    preds = {json.loads(line)["pred"][0]["label"] for line in out.read_text().splitlines()
             if "pred" in json.loads(line)}
    assert preds and preds <= set(SCHEME)
    assert main(["evaluate", "--model", str(model), str(corpus)]) == 0
    printed = capsys.readouterr().out
    assert "objective" in printed and "accuracy  0.000" not in printed
    assert main(["compare", str(model), str(out), str(corpus)]) == 0
    assert "background" in capsys.readouterr().out
    rc, err = coresc_cli(["view", str(out), "-o", str(tmp_path / "v.html")])
    assert rc == 0, err
    page = (tmp_path / "v.html").read_text()
    assert all(f'data-label="{lab}"' in page for lab in SCHEME)


@pytest.mark.parametrize("verb", ["evaluate", "compare"])
def test_a_coresc_model_on_another_schemes_gold_stops_naming_both(verb, corpus,
                                                                  capsys) -> None:
    argv = (["evaluate", "--model", "fast", str(corpus)] if verb == "evaluate"
            else ["compare", "fast", "fast", str(corpus)])
    assert main(argv) == 2
    printed = capsys.readouterr()
    assert printed.out == ""
    [line] = printed.err.strip().splitlines()
    assert "abstracts.jsonl" in line and "share none" in line
    assert all(lab in line for lab in SCHEME) and all(lab in line for lab in LABELS)


def test_an_annotated_output_of_another_scheme_is_refused_by_compare(model, corpus,
                                                                     tmp_path,
                                                                     coresc_cli) -> None:
    fast_out = tmp_path / "fast.jsonl"
    assert coresc_cli(["annotate", "--model", "fast", str(corpus), "--to", "jsonl", "-o",
                       str(fast_out)])[0] == 0
    rc, err = coresc_cli(["compare", str(model), str(fast_out), str(corpus)])
    assert rc == 2 and "share none" in err and str(fast_out) in err, err


def test_review_keys_and_labels_follow_the_models_scheme(model, corpus, tmp_path) -> None:
    pytest.importorskip("fastapi")
    from coresc.commands.review import _Annotator
    from coresc.readers import read_file
    from coresc.review.page import ACTION_LETTERS, page_data, review_page
    from coresc.review.store import open_store

    papers = read_file(corpus)[:2]
    annotate = _Annotator(str(model))
    store = open_store(tmp_path / "alice", "alice", papers, str(model), annotate, print,
                       annotate.labels)
    assert sorted(store.labels) == sorted(SCHEME)
    data = page_data(store, 0)
    keys = data["keys"]
    assert sorted(keys) == sorted(SCHEME) and sorted(data["styles"]) == sorted(SCHEME)
    assert len(set(keys.values())) == len(SCHEME) and not set(keys.values()) & ACTION_LETTERS
    assert data["names"]["method"] == "method"
    page = review_page(store, 0)
    assert all(f"<kbd>{keys[lab]}</kbd></td><td>{lab}" in page for lab in SCHEME)
    store.decide(0, 0, ["objective"])
    with pytest.raises(UsageError, match="unknown label 'Bac'"):
        store.decide(0, 1, ["Bac"])
    [saved] = read_file(store.paper(0).out)
    assert saved.sentences()[0].gold_codes == ["objective"]


def test_a_coresc_review_keeps_coresc_keys(tmp_path) -> None:
    from helpers import store_for

    from coresc.review.page import LABEL_KEYS, page_data

    store = store_for(tmp_path)
    assert store.labels == LABELS and page_data(store, 0)["keys"] == LABEL_KEYS
    with pytest.raises(UsageError, match="unknown label 'background'"):
        store.decide(0, 0, ["background"])


def test_adapting_a_coresc_model_to_another_scheme_keeps_that_scheme(corpus, tmp_path,
                                                                     coresc_cli) -> None:
    out = tmp_path / "m"
    rc, err = coresc_cli(["train", str(corpus), "--from", "fast", "-o", str(out), *QUICK])
    assert rc == 0, err
    assert "share none" in err  # the note: not mixed with the source's labels
    meta = json.loads((out / "meta.json").read_text())
    assert sorted(meta["labels"]) == sorted(SCHEME) and meta["source_mix"] == {}
    assert "another label scheme" in (out / "MODEL_CARD.md").read_text()
