"""experiments/train_default_model.py writes where it is told, by default into the current
folder: never into the installed package's bundled models."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
QUICK = ["--c1", "0.1", "--c2", "0.1", "--max-iterations", "5"]


def _script():
    spec = importlib.util.spec_from_file_location(
        "train_default_model", ROOT / "experiments" / "train_default_model.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """Two tiny gold papers in each of the two corpora the script reads."""
    root = tmp_path / "data"
    for corpus, fixture, name in (("art-corpus", "io_art_small.xml", "artsmall"),
                                  ("cra-corpus", "io_mode2_small.xml", "m2small")):
        (root / corpus).mkdir(parents=True)
        text = (FIXTURES / fixture).read_text(encoding="utf-8")
        for i in (1, 2):
            (root / corpus / f"p{i}.xml").write_text(text.replace(name, f"{name}{i}"),
                                                     encoding="utf-8")
    return root


def test_default_output_is_in_the_current_folder(data, tmp_path, monkeypatch) -> None:
    script = _script()
    bundled = tmp_path / "installed" / "coresc" / "models"  # where the package's models are
    bundled.mkdir(parents=True)
    monkeypatch.setattr(script, "BUNDLED_DIR", bundled)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    assert script.main(["--data", str(data), *QUICK]) == 0
    assert list(bundled.iterdir()) == []
    meta = json.loads((work / "fast-model" / "meta.json").read_text(encoding="utf-8"))
    assert meta["corpora"] == ["art-corpus (gold, 2 papers)", "cra-corpus (gold, 2 papers)"]
    assert script.main(["--data", str(data), "--without-art", *QUICK]) == 0
    assert (work / "fast-cra-model" / "meta.json").is_file() and list(bundled.iterdir()) == []


def test_out_names_the_model_folder(data, tmp_path) -> None:
    out = tmp_path / "elsewhere" / "my-model"
    assert _script().main(["--data", str(data), "-o", str(out), *QUICK]) == 0
    meta = json.loads((out / "meta.json").read_text(encoding="utf-8"))
    assert meta["command"].endswith(f"-o {out} {' '.join(QUICK)}")
