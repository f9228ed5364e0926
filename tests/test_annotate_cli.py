"""`coresc train / annotate / evaluate` through the command line, on a few real papers."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from coresc.cli import main

CRA_PAPERS = ("10357790", "10753189", "10753217", "10783320", "11006351", "11099637")


@pytest.fixture(scope="module")
def corpus(shared_data, tmp_path_factory) -> Path:
    """Six CRA papers (links, not copies, in a temporary folder)."""
    d = tmp_path_factory.mktemp("cra6")
    for pid in CRA_PAPERS:
        src = shared_data / "cra-corpus" / f"{pid}_mode2_annotated.xml"
        (d / src.name).symlink_to(src)
    return d


@pytest.fixture(scope="module")
def model_dir(corpus, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("model") / "m"
    rc = main(["train", str(corpus), "-o", str(out), "--c1", "0.05", "--c2", "0.01",
               "--max-iterations", "15"])
    assert rc == 0
    return out


@pytest.mark.slow
def test_train_writes_model_dir(model_dir):
    meta = json.loads((model_dir / "meta.json").read_text())
    assert meta["n_papers"] == len(CRA_PAPERS)
    assert "" not in meta["labels"] and "Bac" in meta["labels"]
    assert meta["corpora"]
    assert (model_dir / "ovr.npz").is_file()  # CRA is multi-label: secondary layer


@pytest.mark.slow
def test_annotate_jsonl_and_xml(model_dir, corpus, tmp_path, capsys):
    paper = next(corpus.iterdir())
    out = tmp_path / "out.jsonl"
    assert main(["annotate", str(paper), "--model", str(model_dir), "-o", str(out),
                 "--to", "jsonl"]) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert records and all(1 <= len(r["pred"]) <= 3 for r in records)
    assert all(set(p) == {"label", "score"} for r in records for p in r["pred"])
    xml_out = tmp_path / "out.xml"
    assert main(["annotate", str(paper), "--model", str(model_dir), "-o", str(xml_out)]) == 0
    assert b"CoreSc1" in xml_out.read_bytes()


@pytest.mark.slow
def test_evaluate_prints_report(model_dir, corpus, capsys):
    assert main(["evaluate", "--model", str(model_dir), str(corpus)]) == 0
    out = capsys.readouterr().out
    assert "accuracy" in out and "kappa" in out and "Bac" in out


def test_missing_model_dir(tmp_path, capsys, fixtures):
    paper = tmp_path / "p.txt"
    paper.write_text("We measured things. They were big.\n")
    rc = main(["annotate", str(paper), "--model", str(tmp_path / "nope")])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "model directory not found" in err[0]


@pytest.mark.slow
def test_corrupt_model_metadata(model_dir, corpus, tmp_path, capsys):
    bad = tmp_path / "bad"
    shutil.copytree(model_dir, bad)
    (bad / "meta.json").write_text('{"format": 1, "labels": ')
    rc = main(["evaluate", "--model", str(bad), str(corpus)])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "meta.json" in err[0] and "corrupt" in err[0]


def test_train_argument_errors(tmp_path, capsys):
    rc = main(["train", str(tmp_path), "-o", str(tmp_path / "m"), "--c1", "0.1"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "--c2" in err[0]
    rc = main(["train", str(tmp_path), "-o", str(tmp_path / "m"), "--features", "ngrams,x"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and "unknown feature group" in err[0]
    rc = main(["train", str(tmp_path / "none"), "-o", str(tmp_path / "m")])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1
    assert not (tmp_path / "m").exists()


def test_bundled_model_annotates_text(tmp_path, capsys):
    """`coresc annotate` works with the model shipped in the package (no --model)."""
    paper = tmp_path / "p.txt"
    paper.write_text("Introduction\n\nWe investigated whether insulin affects growth. "
                     "Previous studies have shown that it does.\n")
    out = tmp_path / "p.jsonl"
    assert main(["annotate", str(paper), "--to", "jsonl", "-o", str(out)]) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert records and all(r["pred"] and r["pred"][0]["label"] for r in records)
    assert not any(r["pred"][0]["label"] == "" for r in records)


def test_default_model_is_the_accurate_tier(default_model, tmp_path, capsys) -> None:
    """Without --model (and without CORESC_MODEL) a paper gets the accurate tier's labels;
    CORESC_MODEL=fast makes fast the machine's default."""
    from coresc.config import PROJECT_ROOT

    paper = PROJECT_ROOT / "data" / "example-paper.xml"
    out = {}
    for name, extra in (("default", []), ("accurate", ["--model", "accurate"]),
                        ("fast", ["--model", "fast"])):
        out[name] = tmp_path / f"{name}.jsonl"
        assert main(["annotate", str(paper), "--to", "jsonl", "-o", str(out[name]), "-q",
                     *extra]) == 0
    assert out["default"].read_bytes() == out["accurate"].read_bytes()
    assert out["default"].read_bytes() != out["fast"].read_bytes()
    default_model.setenv("CORESC_MODEL", "fast")
    assert main(["annotate", str(paper), "--to", "jsonl", "-o", str(tmp_path / "env.jsonl"),
                 "-q"]) == 0
    assert (tmp_path / "env.jsonl").read_bytes() == out["fast"].read_bytes()
