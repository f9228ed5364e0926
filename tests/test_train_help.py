"""`coresc train --help` on c1/c2: with both given, CV chooses nothing, yet the inner folds
still run on that one pair (the biases, secondary layer and calibration need their
out-of-fold predictions), and the help says so."""

from __future__ import annotations

import json
from pathlib import Path

from coresc import cli
from coresc.commands import train as command


def test_both_penalties_given_inner_folds_on_that_pair_as_the_help_says(
        fixtures: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    text = (fixtures / "io_art_small.xml").read_text(encoding="utf-8")
    for i in (1, 2, 3):
        (corpus / f"p{i}.xml").write_text(text.replace("artsmall", f"art{i}"),
                                          encoding="utf-8")
    out = tmp_path / "model"
    assert cli.main(["train", str(corpus), "-o", str(out), "--c1", "0.2", "--c2", "0.3",
                     "--max-iterations", "5"]) == 0
    meta = json.loads((out / "meta.json").read_text(encoding="utf-8"))
    assert (meta["c1"], meta["c2"]) == (0.2, 0.3)
    assert list(meta["inner_cv_accuracy"]) == ["c1=0.2,c2=0.3"]  # inner folds, one pair
    doc = " ".join(command.__doc__.split())
    assert "unless both are given. The inner folds are trained either way" in doc
