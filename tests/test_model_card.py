"""Model cards: generated from the model directory and held-out runs, shown by model-info."""

from __future__ import annotations

import importlib.util
import json
import random
import shutil
from pathlib import Path

import pytest
from helpers import GROUPS, labelled_paper

from coresc.cli import main
from coresc.errors import UsageError
from coresc.model import DEFAULT_MODEL_DIR, CoreSCClassifier
from coresc.model.card import CARD_FILE, EVALUATION_FILE, card_markdown, write_card
from coresc.model.weakness import evaluation_from_predictions, weaknesses

ROOT = Path(__file__).resolve().parents[1]
ART_IDS = ["b303919f", "b304116f", "b306684c", "b308195h", "b310850c", "b312620j"]
CRA_IDS = ["10357790", "10753189"]


def _rec(gold, pred, score, zone="body", text="A sentence.", paper="p"):
    return {"corpus": "cra", "paper": paper, "sid": "1", "zone": zone, "text": text,
            "gold": gold, "pred": [{"label": pred, "score": score}]}


def test_weaknesses_from_held_out_records() -> None:
    records = [_rec(["Exp"], "Met", 0.9, text="Cells were lysed."),
               _rec(["Exp"], "Met", 0.4), _rec(["Exp"], "Exp", 0.8),
               _rec(["Met"], "Exp", 0.7), _rec(["Obs"], "Res", 0.6),
               _rec(["Res"], "Res", 0.9, zone="caption"),
               _rec(["Obs"], "Res", 0.95, zone="caption", text="Figure 1. " + "x" * 300)]
    w = weaknesses(records)
    assert w["n"] == 7
    cap = w["captions"]
    assert cap["n"] == 2 and cap["accuracy"] == 0.5 and cap["accuracy_elsewhere"] == 0.2
    assert cap["top_confusions"] == [["Obs", "Res", 1]]
    assert cap["examples"][0]["text"].endswith("…") and len(cap["examples"][0]["text"]) == 220
    exp_met, obs_res = w["confusions"]
    assert exp_met["Exp_as_Met"]["n"] == 2 and exp_met["Exp_as_Met"]["of"] == 3
    assert exp_met["Exp_as_Met"]["examples"][0]["text"] == "Cells were lysed."  # top score
    assert exp_met["Met_as_Exp"] == {"n": 1, "of": 1, "examples": [
        {"corpus": "cra", "paper": "p", "text": "A sentence.", "gold": ["Met"],
         "pred": "Exp", "score": 0.7}]}
    assert obs_res["Obs_as_Res"]["n"] == 2 and obs_res["Res_as_Obs"]["n"] == 0


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory) -> Path:
    rng = random.Random(2)
    papers = [labelled_paper(i, rng) for i in range(6)]
    for i, p in enumerate(papers):
        p.meta["corpus"] = "art" if i % 2 else "my-corpus"
        if i % 2:  # ART corpus papers, known by their ids (their text is invented here)
            p.id = ART_IDS[i]
    model = CoreSCClassifier(features=GROUPS, c1=0.5, c2=0.5, max_iterations=10,
                             verbose=False).fit(papers)
    model.meta_["command"] = "coresc train x -o y"
    return model.save(tmp_path_factory.mktemp("card") / "m")


def test_card_written_with_every_model(model_dir, capsys) -> None:
    card = (model_dir / CARD_FILE).read_text()
    assert card == card_markdown(model_dir)
    assert "| art | ART corpus" in card and "CC BY-NC 3.0" in card
    assert "**This model was trained on the ART corpus (3 of its 6 training papers)" in card
    assert "| my-corpus | papers of no corpus coresc knows | unknown: check" in card
    assert "3 of the 6 training papers are from no corpus coresc knows" in card
    assert "trained without the ART corpus" not in card
    assert "| Res | Result |" in card  # label distribution
    assert "No held-out evaluation is recorded" in card
    assert "Trained by: `coresc train x -o y`" in card
    assert "calibrated probability" in card
    assert main(["model-info", str(model_dir)]) == 0
    assert capsys.readouterr().out == card


def test_only_the_default_model_card_says_it_is_the_default(model_dir) -> None:
    """A user's model is used with --model; nothing may read as if it were the default."""
    mine = card_markdown(model_dir).splitlines()[2]
    assert "use it with `coresc annotate --model m/`" in mine
    assert "without `--model`, coresc uses its bundled default model, not this one" in mine
    assert "for the default model" not in mine
    fast = card_markdown(DEFAULT_MODEL_DIR.parent / "fast").splitlines()[2]
    assert "annotate --model fast`" in fast and "not this one" in fast
    default = card_markdown(DEFAULT_MODEL_DIR).splitlines()[2]
    assert "it is coresc's default model, so plain `coresc annotate` uses it" in default


def test_card_shows_held_out_runs_and_drops_stale_ones(model_dir) -> None:
    meta = json.loads((model_dir / "meta.json").read_text())
    records = [_rec(["Exp"], "Met", 0.9), _rec(["Res"], "Res", 0.8, zone="caption")]
    run = {"config": "cra-3fold", "run_id": "0123456789abcdef", "test": "cra", "train": "cra",
           "labels": "gold", "settings": ["inner_folds: 3 (model: 2)"],
           "metrics": {"accuracy": 0.709, "macro_f1": 0.544, "ece_primary": 0.013,
                       "n_sentences": 8447}}
    evaluation = evaluation_from_predictions([run], records)
    evaluation["model_trained"] = meta["trained"]
    (model_dir / EVALUATION_FILE).write_text(json.dumps(evaluation))
    card = card_markdown(model_dir)
    assert "| cra | cra | gold | 8447 | 70.9% | 0.544 | 0.013 | cra-3fold (`01234567`) | " \
           "inner_folds: 3 (model: 2) |" in card
    assert "**Exp vs Met**" in card and "1 of 1 Exp sentences labelled Met" in card
    assert "No held-out evaluation" not in card
    evaluation["runs"][0]["metrics"].update(accuracy_ci_low=0.693, accuracy_ci_high=0.726,
                                            n_papers=50)
    (model_dir / EVALUATION_FILE).write_text(json.dumps(evaluation))
    assert "| 8447 | 70.9% [69.3%, 72.6%] (50 papers) | 0.544 |" in card_markdown(model_dir)
    evaluation["model_trained"] = "an earlier training"
    (model_dir / EVALUATION_FILE).write_text(json.dumps(evaluation))
    assert "No held-out evaluation is recorded" in card_markdown(model_dir)
    write_card(model_dir)
    assert not (model_dir / EVALUATION_FILE).exists()


def _script():
    spec = importlib.util.spec_from_file_location("model_card", ROOT / "experiments" /
                                                  "model_card.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_model_card_script_from_real_runs(shared_data, tmp_path, monkeypatch) -> None:
    """A full (not partial) experiment on a small corpus, attached to a model's card."""
    from coresc import experiments as ex

    data = tmp_path / "data" / "small"
    data.mkdir(parents=True)
    for src in sorted((shared_data / "cra-corpus").glob("*.xml"))[:4]:
        (data / src.name).symlink_to(src)
    monkeypatch.setenv("CORESC_DATA", str(data.parent))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mlflow.yaml").write_text("tracking_uri: sqlite:///mlflow.db\n")
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    small = {"name": "small-2fold", "corpora": {"cra": "small"},
             "folds": {"kind": "kfold", "corpus": "cra", "k": 2},
             "features": ["location", "section", "ngrams", "zone"],
             "model": {"c1": 0.05, "c2": 0.01, "max_iterations": 5, "verbose": False}}
    ex.run_experiment(small, jobs=1, log_models=False)
    ex.run_experiment({**small, "name": "small-trial"}, jobs=1, log_models=False,
                      max_papers=2)
    papers = ex.read_corpora(ex.load_config(small))
    model = CoreSCClassifier(features=["location", "section", "ngrams", "zone"], c1=0.05,
                             c2=0.01, max_iterations=5, verbose=False)
    model_dir = model.fit(list(papers.values())).save(tmp_path / "m")
    script = _script()
    with pytest.raises(UsageError, match="partial run"):
        script.main(["small-trial", "--model", str(model_dir)])
    assert script.main(["small-2fold", "--model", str(model_dir)]) == 0
    evaluation = json.loads((model_dir / EVALUATION_FILE).read_text())
    [run] = evaluation["runs"]
    assert run["config"] == "small-2fold" and run["settings"] == []
    assert run["metrics"]["n_sentences"] > 0 and "ece_primary" in run["metrics"]
    assert evaluation["weaknesses"]["n"] == run["metrics"]["n_sentences"]
    card = (model_dir / CARD_FILE).read_text()
    assert "| cra | cra | gold |" in card and "small-2fold (`" in card
    assert "Held-out evaluation: `python experiments/model_card.py small-2fold" in card


def test_bundled_model_card_is_generated_not_typed() -> None:
    card = (DEFAULT_MODEL_DIR / CARD_FILE).read_text(encoding="utf-8")
    assert card == card_markdown(DEFAULT_MODEL_DIR)
    assert "CC BY-NC 3.0" in card and "**This model was trained on the ART corpus" in card
    assert "| art-corpus |" in card and "| cra-corpus |" in card
    assert "Trained by: `python experiments/train_default_model.py" in card


def _card_for(model_dir: Path, tmp_path: Path, papers: list[dict]) -> str:
    """The card of a copy of ``model_dir`` whose meta records ``papers`` as its training."""
    copy = tmp_path / "copy"
    shutil.copytree(model_dir, copy)
    meta = json.loads((copy / "meta.json").read_text())
    corpora: dict[str, dict[str, int]] = {}
    for p in papers:
        c = corpora.setdefault(p["corpus"], {"papers": 0, "sentences": 0, "labelled": 0})
        c["papers"] += 1
    meta["training_data"]["corpora"], meta["training_data"]["papers"] = corpora, papers
    (copy / "meta.json").write_text(json.dumps(meta))
    return card_markdown(copy)


def _p(pid: str, corpus: str, sha: str = "0" * 64) -> dict:
    return {"id": pid, "corpus": corpus, "sha256": sha}


def test_licence_comes_from_content_not_folder_names(model_dir, tmp_path) -> None:
    """Issue 32: ART papers read from a folder called ann1 are ART papers (CC BY-NC);
    papers in a folder called art that coresc does not know are not; "without the ART
    corpus" is said only when every paper is known."""
    from coresc.model.provenance import KNOWN_CORPORA_FILE

    art_hash = json.loads(KNOWN_CORPORA_FILE.read_text())["corpora"]["art"]["sha256"][0]
    card = _card_for(model_dir, tmp_path / "1", [_p("renamed", "ann1", art_hash + "0" * 48),
                                                  _p(ART_IDS[0], "ann1")])
    assert "**This model was trained on the ART corpus (2 of its 2 training papers)" in card
    assert "| ann1 | ART corpus (Liakata et al.)" in card and "licence unknown" not in card
    card = _card_for(model_dir, tmp_path / "2", [_p("x1", "art-corpus"), _p("x2", "art")])
    assert "trained on the ART corpus" not in card and "without the ART" not in card
    assert "2 of the 2 training papers are from no corpus coresc knows" in card
    assert "| art-corpus | papers of no corpus coresc knows |" in card
    card = _card_for(model_dir, tmp_path / "3", [_p(i, "mine") for i in CRA_IDS])
    assert "This model was trained without the ART corpus (no CC BY-NC data): coresc " \
           "recognises every one of its training papers." in card
    assert "Multi-CoreSC CRA corpus, cancer risk assessment papers (2 papers): research " \
           "use" in card
    card = _card_for(model_dir, tmp_path / "4", [_p(CRA_IDS[0], "mix"), _p("x", "mix")])
    assert "| mix | 1 CRA corpus, 1 unknown to coresc | research use (see the corpus " \
           "paper) (CRA corpus); unknown: check the data's terms (the rest) |" in card
    assert "without the ART" not in card and "1 of the 2 training papers" in card


def test_a_model_without_training_papers_claims_no_licence(model_dir, tmp_path) -> None:
    copy = tmp_path / "old"
    shutil.copytree(model_dir, copy)
    meta = json.loads((copy / "meta.json").read_text())
    del meta["training_data"]["papers"]
    (copy / "meta.json").write_text(json.dumps(meta))
    card = card_markdown(copy)
    assert "coresc cannot tell what this model was trained on" in card
    assert "without the ART" not in card and "trained on the ART" not in card
    assert "| art |  | unknown: the training papers are not recorded |" in card


def test_known_corpora_match_the_corpora(shared_data) -> None:
    """The shipped ids and hashes are those of the corpora as coresc reads them now (a
    reader that changes their text must rewrite them: experiments/known_corpora.py)."""
    spec = importlib.util.spec_from_file_location("known_corpora", ROOT / "experiments" /
                                                  "known_corpora.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--data", str(shared_data), "--check"]) == 0


@pytest.mark.slow
def test_model_trained_on_an_art_folder_says_cc_by_nc(shared_data, tmp_path, capsys) -> None:
    """The issue's own run: `coresc train .../art-corpus/ann1 -o quick-model/`."""
    out = tmp_path / "quick-model"
    assert main(["train", str(shared_data / "art-corpus" / "ann1"), "-o", str(out),
                 "--max-iterations", "5", "--c1", "0.05", "--c2", "0.01"]) == 0
    capsys.readouterr()
    assert main(["model-info", str(out)]) == 0
    card = capsys.readouterr().out
    assert "**This model was trained on the ART corpus (25 of its 25 training papers)" in card
    assert "without the ART corpus" not in card and "licence unknown" not in card

