"""The sentence encoder's settings, the features it adds to the CRF, the inputs it reads,
the bundled models' names and the train command's encoder flags: none needs torch (the
fine-tuning itself is tests/test_encoder.py's, which skips without the train extra)."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from helpers import labelled_paper

from coresc.model.encoder import EncoderSettings, encoder_features, encoder_inputs


@pytest.fixture(scope="module")
def papers():
    rng = random.Random(3)
    return [labelled_paper(i, rng) for i in range(6)]


@pytest.mark.parametrize("bad, words", [
    ({"layers": 0}, "encoder layers must be a whole number >= 1, not 0"),
    ({"train_layers": 3, "layers": 2}, "encoder train_layers (3) cannot exceed layers (2)"),
    ({"context": "paragraph"}, "encoder context must be one of sentence, heading, window, "
                               "not 'paragraph'"),
    ({"epochs": 0}, "encoder epochs must be a finite number > 0, not 0"),
    ({"inner_folds": 1}, "encoder inner_folds must be a whole number >= 2, not 1"),
    ({"quantize": "yes"}, "encoder quantize must be true or false, not 'yes'"),
    ({"warmup": 1.0}, "encoder warmup must be in [0, 1)"),
    ({"colour": "red"}, "unknown encoder setting(s) colour; known: base, "),
    ({"layers": 2.5}, "encoder layers must be a whole number >= 1, not 2.5"),
    ({"feature_scale": 0}, "encoder feature_scale must be a finite number > 0, not 0"),
    ({"feature_scale": -2.0}, "encoder feature_scale must be a finite number > 0, not -2.0")])
def test_settings_reject_bad_values(bad, words):
    with pytest.raises(ValueError) as err:
        EncoderSettings.from_dict(bad)
    assert str(err.value).startswith(words), str(err.value)


def test_settings_round_trip():
    s = EncoderSettings(layers=3, train_layers=1, context="sentence")
    assert EncoderSettings.from_dict(s.to_dict()) == s


def test_encoder_features_see_neighbours_within_the_paper():
    probs = np.array([[0.9, 0.1], [0.2, 0.8], [0.5, 0.5]])
    f = encoder_features(probs, ["A", "B"], neighbours=1)
    assert f[0] == {"enc=A": 0.9, "enc=B": 0.1, "enc+1=A": 0.2, "enc+1=B": 0.8}
    assert f[1]["enc-1=A"] == 0.9 and f[1]["enc+1=B"] == 0.5 and f[1]["enc=B"] == 0.8
    assert "enc+1=A" not in f[2]
    assert encoder_features(probs, ["A", "B"], neighbours=0)[1] == {"enc=A": 0.2, "enc=B": 0.8}


def test_encoder_features_scale_every_probability():
    probs = np.array([[0.9, 0.1], [0.25, 0.75]])
    f = encoder_features(probs, ["A", "B"], neighbours=1, scale=4.0)
    assert f[0] == {"enc=A": 3.6, "enc=B": 0.4, "enc+1=A": 1.0, "enc+1=B": 3.0}
    assert f[1]["enc-1=A"] == pytest.approx(3.6)


def test_encoder_inputs_pair_heading_with_sentence(papers):
    inputs = encoder_inputs(papers[0], "heading")
    assert len(inputs) == len(papers[0])
    assert inputs[0][1] == "Introduction" and inputs[-1][1] == "Acknowledgements"
    assert all(h is None for _, h in encoder_inputs(papers[0], "sentence"))


def test_bundled_model_names_resolve_and_a_missing_tier_says_how_to_train_it(tmp_path,
                                                                            monkeypatch) -> None:
    from coresc.model import storage

    monkeypatch.delenv(storage.MODEL_ENV, raising=False)
    assert storage.resolve_model(None) == storage.DEFAULT_MODEL_DIR == \
        storage.BUNDLED_DIR / "accurate"
    assert storage.resolve_model("fast") == storage.BUNDLED_DIR / "fast"
    monkeypatch.setenv(storage.MODEL_ENV, "fast")  # the machine's choice of default
    assert storage.resolve_model(None) == storage.BUNDLED_DIR / "fast"
    monkeypatch.setenv(storage.MODEL_ENV, str(tmp_path / "nowhere"))
    assert storage.resolve_model(None) == tmp_path / "nowhere"  # loading it says what's wrong
    monkeypatch.delenv(storage.MODEL_ENV)
    monkeypatch.setattr(storage, "BUNDLED_DIR", tmp_path)  # an installation without it
    with pytest.raises(storage.ModelError, match="--tier accurate"):
        storage.resolve_model("accurate")
    mine = tmp_path / "work" / "accurate"  # a user's own folder of that name wins
    mine.mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "work")
    assert storage.resolve_model("accurate") == Path("accurate")



def test_train_flags_give_the_encoder_settings():
    import argparse

    from coresc.commands import train as train_cmd
    from coresc.errors import UsageError

    parser = argparse.ArgumentParser()
    train_cmd.add_arguments(parser)
    args = parser.parse_args(["corpus", "-o", "m", "--encoder", "--encoder-context", "window",
                              "--encoder-feature-scale", "3", "--encoder-epochs", "1"])
    given = train_cmd.encoder_settings(args)
    assert given == {"context": "window", "feature_scale": 3.0, "epochs": 1.0}
    assert EncoderSettings.from_dict(given).window_tokens == EncoderSettings().window_tokens
    assert "--encoder-feature-scale 3.0" in train_cmd.command_line(args)
    assert train_cmd.encoder_settings(parser.parse_args(["corpus", "-o", "m"])) is None
    with pytest.raises(UsageError, match="^--encoder-\\* and --base-encoder options need "
                                         "--encoder$"):
        train_cmd.encoder_settings(parser.parse_args(
            ["corpus", "-o", "m", "--encoder-feature-scale", "3"]))


def test_train_takes_the_bundled_accurate_encoders_settings():
    """Issue 41: `coresc train --encoder` can ask for what the bundled accurate model's
    encoder has (192-piece windows without overlap, int8 weights, one epoch), and says so
    in its command."""
    import argparse
    import json

    from coresc.commands import train as train_cmd
    from coresc.model.storage import BUNDLED_DIR

    parser = argparse.ArgumentParser()
    train_cmd.add_arguments(parser)
    args = parser.parse_args(["corpus", "-o", "m", "--encoder", "--encoder-context", "window",
                              "--encoder-overlap", "0", "--encoder-window-tokens", "192",
                              "--encoder-quantize", "--encoder-epochs", "1"])
    given = train_cmd.encoder_settings(args)
    assert given == {"context": "window", "overlap": 0, "window_tokens": 192,
                     "quantize": True, "epochs": 1.0}
    meta = json.loads((BUNDLED_DIR / "accurate" / "meta.json").read_text())
    assert EncoderSettings.from_dict(given) == EncoderSettings.from_dict(
        meta["encoder"]["settings"])
    assert "--encoder-overlap 0" in train_cmd.command_line(args)
    assert "--encoder-window-tokens 192" in train_cmd.command_line(args)
