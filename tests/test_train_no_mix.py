"""`coresc train --from MODEL --no-mix` switches adaptation's per-label mixing off from
the command line (issue 42, item 11), and the model card says which was used."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

QUICK = ["--c1", "0.5", "--c2", "5", "--max-iterations", "20"]


@pytest.fixture(scope="module")
def adapted(fixtures, tmp_path_factory) -> dict[str, Path]:
    from coresc.cli import main

    out = {}
    for name, extra in (("mixed", []), ("plain", ["--no-mix"])):
        out[name] = tmp_path_factory.mktemp(name) / "m"
        argv = ["train", str(fixtures / "agreement_a1"), "--from", "fast", "-o",
                str(out[name]), *QUICK, *extra]
        assert main(argv) == 0
    return out


def _files(model: Path) -> tuple[dict, dict, str]:
    return (json.loads((model / "meta.json").read_text()),
            json.loads((model / "config.json").read_text()),
            (model / "MODEL_CARD.md").read_text())


def test_no_mix_trains_without_mixing_and_the_card_says_so(adapted) -> None:
    meta, config, card = _files(adapted["plain"])
    assert config["source"]["mix"] is False and meta["source_mix"] == {}
    assert "switched off (`coresc train --from ... --no-mix`)" in card
    assert "this model's weight" not in card
    assert "--no-mix" in meta["command"]


def test_by_default_the_labels_are_mixed_and_the_card_gives_the_weights(adapted) -> None:
    meta, config, card = _files(adapted["mixed"])
    assert config["source"]["mix"] is True and meta["source_mix"]
    assert "this model's weight" in card and "switched off" not in card
    assert "--no-mix" not in meta["command"]


def test_no_mix_without_from_is_refused(fixtures, tmp_path, coresc_cli) -> None:
    rc, err = coresc_cli(["train", str(fixtures / "agreement_a1"), "-o", str(tmp_path / "m"),
                          "--no-mix"])
    assert rc == 2 and "--from" in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "m").exists()
