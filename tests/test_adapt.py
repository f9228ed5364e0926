"""Adapting a model to a few reviewed papers (``coresc train PAPERS --from MODEL``)."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest
from helpers import GROUPS, labelled_paper, run_cli

from coresc.errors import CorescError
from coresc.labels import LABEL_NAMES
from coresc.model import CoreSCClassifier, ModelError
from coresc.model.adapt import adapt
from coresc.model.source import SourceSettings


def _rows(predictions):
    return [[[(p.label, round(p.score, 6)) for p in r] for r in x] for x in predictions]


@pytest.fixture(scope="module")
def source_papers():
    rng = random.Random(3)
    return [labelled_paper(i, rng) for i in range(5)]


@pytest.fixture(scope="module")
def reviewed():
    rng = random.Random(11)
    return [labelled_paper(100 + i, rng) for i in range(4)]


@pytest.fixture(scope="module")
def source(source_papers) -> CoreSCClassifier:
    return CoreSCClassifier(features=GROUPS, c1=0.01, c2=0.01, max_iterations=30,
                            verbose=False).fit(source_papers)


@pytest.fixture(scope="module")
def adapted(source, reviewed) -> CoreSCClassifier:
    return adapt(source, reviewed, c1=0.05, c2=0.05, max_iterations=30, verbose=False,
                 source_name="tiny")


def test_source_probabilities_are_features(adapted, source, reviewed):
    x = adapted.featurize(reviewed[:1])[0]
    marg = source.marginals(reviewed[:1])[0]
    labels = list(source.labels_)
    scale = SourceSettings().scale
    assert x[1]["src=" + labels[0]] == pytest.approx(scale * marg[1][0])
    assert x[1]["src-1=" + labels[0]] == pytest.approx(scale * marg[0][0])
    assert "src-1=" + labels[0] not in x[0]  # no sentence before the first
    assert x[1]["mdoc=" + labels[0]] == pytest.approx(scale * marg[:, 0].mean())
    assert any(k.startswith("w=") or k.startswith("cue") for k in x[1])  # hand-built too


def test_save_load_round_trip_gives_identical_predictions(adapted, reviewed, tmp_path):
    adapted.save(tmp_path / "m")
    assert (tmp_path / "m" / "source" / "crf.crfsuite").is_file()
    loaded = CoreSCClassifier.load(tmp_path / "m")
    assert loaded.get_params() == adapted.get_params()
    assert _rows(loaded.predict(reviewed)) == _rows(adapted.predict(reviewed))
    config = json.loads((tmp_path / "m" / "config.json").read_text())
    assert config["source"] == SourceSettings().to_dict()
    meta = json.loads((tmp_path / "m" / "meta.json").read_text())
    assert meta["adapted_from"]["model"] == "tiny"
    assert meta["adapted_from"]["seen_by_source"] == []
    shutil.rmtree(tmp_path / "m" / "source")
    with pytest.raises(ModelError, match="source model"):
        CoreSCClassifier.load(tmp_path / "m")


def test_deterministic(adapted, source, reviewed):
    again = adapt(source, reviewed, c1=0.05, c2=0.05, max_iterations=30, verbose=False,
                  source_name="tiny")
    assert again._crf_bytes == adapted._crf_bytes
    assert _rows(again.predict(reviewed)) == _rows(adapted.predict(reviewed))


def test_adapted_model_learns_the_fields_labels(source, source_papers):
    """Reviewed papers that use a label the source never saw: the adapted model learns it
    (a source-only model cannot), and its source still says what it knows."""
    rng = random.Random(5)
    field = [labelled_paper(200 + i, rng) for i in range(4)]
    for p in field:  # in this field, conclusions are called hypotheses
        for s in p.sentences():
            if s.gold and s.gold[0].code == "Con":
                s.gold = [type(s.gold[0])("Hyp")]
    model = adapt(source, field[:3], c1=0.01, c2=0.01, max_iterations=50, verbose=False)
    assert "Hyp" in model.labels_ and "Hyp" not in source.labels_
    pred = model.predict(field[3:])[0]
    gold = [s.gold[0].code for s in field[3].sentences() if s.gold]
    got = [r[0].label for r, s in zip(pred, field[3].sentences(), strict=True) if s.gold]
    assert got.count("Hyp") == gold.count("Hyp") > 0


def test_reviewed_papers_the_source_trained_on_are_named(source, source_papers, capsys):
    model = adapt(source, source_papers[:3], c1=0.05, c2=0.05, max_iterations=20,
                  verbose=True)
    assert model.meta_["adapted_from"]["seen_by_source"] == ["p0", "p1", "p2"]
    assert "WARNING: 3 of the 3 reviewed papers were in the source" in capsys.readouterr().err


def test_bad_inputs(source, reviewed):
    bare = [labelled_paper(300, random.Random(1))]
    for s in bare[0].sentences():
        s.gold = []
    with pytest.raises(CorescError, match="no sentence with a gold label"):
        adapt(source, bare, verbose=False)
    with pytest.raises(ValueError, match="source neighbours"):
        adapt(source, reviewed, source_settings={"neighbours": -1}, verbose=False)
    with pytest.raises(CorescError, match="not trained"):
        adapt(CoreSCClassifier(), reviewed, verbose=False)


# ---------------------------------------------------------------- the command line


@pytest.fixture()
def cli_source(tmp_path, fixtures, capsys) -> Path:
    out = tmp_path / "src"
    rc, _, err = run_cli(["train", str(fixtures / "io_art_small.xml"), "-o", str(out),
                          "--c1", "0.1", "--c2", "0.1", "--max-iterations", "10"], capsys)
    assert rc == 0, err
    return out


def test_cli_train_from(cli_source, tmp_path, fixtures, capsys):
    out = tmp_path / "adapted"
    reviewed = fixtures / "agreement_a1"
    rc, _, err = run_cli(["train", str(reviewed), "--from", str(cli_source), "-o", str(out),
                          "--max-iterations", "10"], capsys)
    assert rc == 0, err
    assert "adapting" in err and "saved model to" in err
    meta = json.loads((out / "meta.json").read_text())
    assert meta["command"].startswith("coresc train") and "--from" in meta["command"]
    assert meta["adapted_from"]["model"] == str(cli_source)
    # model-info says it is adapted and from what
    rc, card, _ = run_cli(["model-info", str(out)], capsys)
    assert rc == 0 and "## Adapted model" in card and f"`{cli_source}`" in card
    assert "`p1`" in card and "`p2`" in card
    # and how much each label is its own against the source's
    assert meta["source_mix"] and "this model's weight" in card
    for lab, v in meta["source_absent"].items():
        assert f"{lab} x {v:.2f}" in card
    for lab, w in meta["source_mix"].items():
        assert f"| {lab} | {LABEL_NAMES[lab]} | {w:.2f} | {1 - w:.2f} |" in card.splitlines()
    # evaluate keeps the reviewed papers (and the source's own) apart from held-out ones
    rc, report, err = run_cli(["evaluate", "--model", str(out), str(reviewed)], capsys)
    assert rc == 0, err
    assert report.startswith("WARNING: IN-SAMPLE. 2 of 2 papers")
    rc, report, err = run_cli(["evaluate", "--model", str(out), str(reviewed),
                               str(fixtures / "io_mode2_small.xml")], capsys)
    assert rc == 0, err
    assert "2 of 3 papers" in report and "held-out papers only (1 of 3" in report
    # and it annotates like any model
    rc, _, err = run_cli(["annotate", str(fixtures / "jats_small.xml"), "--model", str(out),
                          "--to", "tsv", "-o", str(tmp_path / "a.tsv")], capsys)
    assert rc == 0, err
    assert (tmp_path / "a.tsv").read_text().count("\n") > 3


def test_cli_train_from_bad_inputs(cli_source, tmp_path, fixtures, capsys):
    text = tmp_path / "p.txt"
    text.write_text("Introduction\n\nWe measured the weight of the rats. It rose.\n")
    out = tmp_path / "adapted"
    gold = str(fixtures / "agreement_a1")
    for argv, message in (
            ([gold, "--from", str(tmp_path / "nope")], "model directory not found"),
            ([str(text), "--from", str(cli_source)], "no sentence with a gold label"),
            ([gold, "--from", str(cli_source), "--encoder"], "without fine-tuning"),
            ([gold, "--from", str(cli_source), "--features", "ngrams"], "--features"),
            ([gold, "--from", str(cli_source), "--c1", "0.1"], "give both --c1 and --c2"),
            ([gold, "--from", str(cli_source), "-o", str(cli_source)], "overwrite")):
        rc, _, err = run_cli(["train", "-o", str(out), *argv], capsys)
        assert rc == 2, (argv, err)
        *progress, last = err.strip().splitlines()
        assert all(line.startswith("[coresc] ") for line in progress), err
        assert last.startswith("coresc") and message in last, (argv, err)
        assert not out.exists()


# ---------------------------------------------------------------- real data


@pytest.mark.slow
def test_adapt_art_source_to_cra_and_annotate_jats(shared_data, tmp_path, capsys):
    art = sorted((shared_data / "art-corpus" / "ann1").iterdir())[:4]
    cra = sorted((shared_data / "cra-corpus").glob("*.xml"))
    src, out = tmp_path / "art-src", tmp_path / "cra-adapted"
    rc, _, err = run_cli(["train", *map(str, art), "-o", str(src), "--c1", "0.5", "--c2",
                          "5.0", "--no-secondary", "--max-iterations", "50"], capsys)
    assert rc == 0, err
    rc, _, err = run_cli(["train", *map(str, cra[:3]), "--from", str(src), "-o", str(out),
                          "--max-iterations", "50"], capsys)
    assert rc == 0, err
    model = CoreSCClassifier.load(out)
    assert model.meta_["training_data"]["corpora"].keys() == {c.stem for c in cra[:3]}
    assert model._ovr is not None  # CRA papers are multi-label: a secondary layer
    jats = sorted((shared_data / "jats").glob("*.xml"))[0]
    rc, _, err = run_cli(["annotate", str(jats), "--model", str(out), "--to", "jsonl",
                          "-o", str(tmp_path / "j.jsonl")], capsys)
    assert rc == 0, err
    rows = [json.loads(line) for line in (tmp_path / "j.jsonl").read_text().splitlines()]
    labelled = [r for r in rows if r.get("pred")]
    assert len(labelled) > 50
    assert len({r["pred"][0]["label"] for r in labelled}) >= 4
    rc, report, err = run_cli(["evaluate", "--model", str(out), *map(str, cra[:5])], capsys)
    assert rc == 0, err
    assert "3 of 5 papers" in report and "held-out papers only (2 of 5" in report


def test_batch_manifest_identity_covers_the_source(adapted, tmp_path):
    """`annotate --resume` must notice a changed source model, not only a changed top."""
    from coresc.batch.manifest import model_identity

    adapted.save(tmp_path / "m")
    before = model_identity(tmp_path / "m")["model_sha256"]
    meta = tmp_path / "m" / "source" / "meta.json"
    meta.write_text(meta.read_text().replace('"n_papers"', '"n_papers" ', 1))
    assert model_identity(tmp_path / "m")["model_sha256"] != before


@pytest.mark.slow
def test_adapt_the_accurate_model_round_trip(shared_data, tmp_path):
    """A source with a sentence encoder: its probabilities are features too, and the
    encoder travels in source/ (the JATS papers were never in its training data)."""
    from coresc.document import Label
    from coresc.model.storage import resolve_model
    from coresc.readers import read_corpus

    source = CoreSCClassifier.load(resolve_model("accurate"))
    jats = sorted((shared_data / "jats").glob("*.xml"))
    reviewed = read_corpus(jats[:2])
    for paper in reviewed:  # "reviewed": the source's labels accepted as they are
        source.annotate([paper])
        for s in paper.sentences():
            s.gold, s.pred = [Label(p.label) for p in s.pred], []
    model = adapt(source, reviewed, max_iterations=30, verbose=False, source_name="accurate")
    assert model.meta_["adapted_from"]["seen_by_source"] == []
    assert any(k.startswith("srcenc=") for k in model.featurize(reviewed[:1])[0][0])
    model.save(tmp_path / "m")
    assert (tmp_path / "m" / "source" / "encoder.onnx").is_file()
    new = read_corpus(jats[2:3])
    loaded = CoreSCClassifier.load(tmp_path / "m")
    assert _rows(loaded.predict(new)) == _rows(model.predict(new))


def _firsts(predictions) -> list[str]:
    return [r[0].label for paper in predictions for r in paper if r]


def test_a_label_the_reviewed_papers_lack_survives_adaptation(source, source_papers):
    """Reviewed papers that never label a sentence Goa: the adapted model still says Goa
    where its source does (its marginals mixed per label with the source's, issue 38);
    with ``mix: false`` the CRF, which never saw Goa, cannot."""
    rng = random.Random(13)
    field = [labelled_paper(300 + i, rng) for i in range(3)]
    for p in field:
        for s in p.sentences():
            if s.gold and s.gold[0].code == "Goa":
                s.gold = []
    kw = {"c1": 0.05, "c2": 0.05, "max_iterations": 30, "secondary": False,
          "verbose": False}
    mixed = adapt(source, field, **kw)
    plain = adapt(source, field, source_settings={"mix": False}, **kw)
    assert "Goa" in source.labels_ and "Goa" not in plain.labels_
    assert "Goa" in mixed.labels_ and mixed.meta_["source_mix"]["Goa"] == 0.0
    # never reviewed although the source expects it: its probability scaled down
    assert 0 < mixed.source_absent_["Goa"] < 1 and set(mixed.source_absent_) == {"Goa"}
    test = source_papers[:2]
    assert "Goa" in _firsts(source.predict(test))
    assert "Goa" in _firsts(mixed.predict(test))
    assert "Goa" not in _firsts(plain.predict(test))


def test_mixing_weights_load_back_and_bad_ones_are_refused(adapted, tmp_path):
    assert adapted.source_mix_ and set(adapted.source_mix_) == set(adapted.labels_)
    adapted.save(tmp_path / "m")
    assert CoreSCClassifier.load(tmp_path / "m").source_mix_ == adapted.source_mix_
    meta_path = tmp_path / "m" / "meta.json"
    meta = json.loads(meta_path.read_text())
    meta["source_mix"] = {"Res": 1.5}
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(ModelError, match="source_mix"):
        CoreSCClassifier.load(tmp_path / "m")
    meta["source_mix"], meta["source_absent"] = adapted.source_mix_, {"Res": 0.0}
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(ModelError, match="source_absent"):
        CoreSCClassifier.load(tmp_path / "m")
