"""`coresc train` and `train --from` train on CoreSC labels only (issue 37): a label
outside the scheme is refused in one line naming the file, the sentence and the label;
a CoreSC code in another case (`res`) is normalised, with a note."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

QUICK = ["--c1", "0.1", "--c2", "0.1", "--max-iterations", "3", "--no-secondary"]


def _corpus(tmp_path: Path, fixtures: Path, old: str, new: str) -> Path:
    """The agreement fixture with every ``type="old"`` of p1 replaced by ``new``."""
    d = tmp_path / "corpus"
    shutil.copytree(fixtures / "agreement_a1", d)
    p1 = d / "p1_mode2.xml"
    p1.write_text(p1.read_text().replace(f'type="{old}"', f'type="{new}"'))
    return d


def _train(corpus, out, source: str | None) -> list[str]:
    return ["train", str(corpus), "-o", str(out), *QUICK, *(["--from", source] if source else [])]


@pytest.mark.parametrize("source", [None, "fast"])
def test_a_label_outside_the_scheme_is_refused(source, tmp_path, fixtures,
                                                coresc_cli) -> None:
    corpus = _corpus(tmp_path, fixtures, "Bac", "Zzz")
    rc, err = coresc_cli(_train(corpus, tmp_path / "m", source))
    assert rc == 2, err
    line = err.strip().splitlines()[-1]
    assert "p1_mode2.xml" in line and "sentence 1" in line and "'Zzz'" in line, err
    assert len([x for x in err.splitlines() if "error" in x]) == 1
    assert not (tmp_path / "m").exists()


@pytest.mark.parametrize("source", [None, "fast"])
def test_a_code_in_another_case_is_normalised(source, tmp_path, fixtures,
                                              coresc_cli) -> None:
    corpus = _corpus(tmp_path, fixtures, "Bac", "bac")
    rc, err = coresc_cli(_train(corpus, tmp_path / "m", source))
    assert rc == 0, err
    assert "'bac'" in err and "'Bac'" in err and "note" in err, err
    labels = json.loads((tmp_path / "m" / "meta.json").read_text())["labels"]
    assert "bac" not in labels and "Bac" in labels
