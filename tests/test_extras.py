"""README's test command stays light: the test extra pulls no torch (a CUDA build is GBs),
the encoder tests skip without it and say how to add it, and CI still runs them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CPU_TORCH = "pip install torch --index-url https://download.pytorch.org/whl/cpu"


def _extras() -> dict[str, list[str]]:
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return project["optional-dependencies"]


def _requirements(extra: str, extras: dict[str, list[str]]) -> set[str]:
    """The distribution names ``coresc[extra]`` installs, through coresc[...] references."""
    names: set[str] = set()
    for req in extras[extra]:
        name = re.match(r"[A-Za-z0-9_.-]+", req)[0].lower()
        if name == "coresc":
            for inner in re.search(r"\[(.*)\]", req)[1].split(","):
                names |= _requirements(inner.strip(), extras)
        else:
            names.add(name)
    return names


def test_test_extra_pulls_no_torch() -> None:
    extras = _extras()
    assert "torch" in _requirements("train", extras)
    assert not {"torch", "safetensors", "onnx"} & _requirements("test", extras)


def test_ci_adds_the_train_extra_before_the_tests() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    train = ci.index("'.[train]'")
    assert ci.index("pip install --quiet '.[test]'") < train < ci.index("\npython -m pytest\n")
    assert 'python -c "import torch' in ci[train:]  # a skip in CI would hide a failure


def test_encoder_tests_skip_without_torch_and_say_how() -> None:
    blocked = ("import sys; sys.modules['torch'] = None; import pytest; "
               "raise SystemExit(pytest.main(['tests/test_encoder.py', '-q', '-rs', "
               "'-p', 'no:cacheprovider']))")
    # outside CI: there a missing torch fails the encoder tests (helpers.need) on purpose
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    res = subprocess.run([sys.executable, "-c", blocked], cwd=ROOT, capture_output=True,
                         text=True, timeout=300, env=env)
    # exit code 5: no test ran (the whole module skipped)
    assert res.returncode == 5 and "1 skipped" in res.stdout, res.stdout[-2000:]
    assert CPU_TORCH in res.stdout and "'.[test,train]'" in res.stdout
    contributing = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert CPU_TORCH in contributing and "'.[test,train" in contributing


def test_getting_started_lists_every_extra_and_what_test_holds() -> None:
    """The extras table names each extra of pyproject.toml once; the `test` row names the
    extras it pulls in (and says `train` is not one) and every other package it adds."""
    extras = _extras()
    page = (ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `([\w-]+)` \| [^|]+ \| ([^|]+) \|$", page, re.M))
    assert set(rows) == set(extras), sorted(rows)
    test_row = rows["test"].lower()
    inner = re.search(r"coresc\[([^]]*)\]", " ".join(extras["test"]))[1].split(",")
    for extra in extras:
        assert (f"`{extra}`" in test_row) == (extra in inner or extra == "train"), extra
    assert "not `train`" in test_row
    for req in extras["test"]:
        name = re.match(r"[A-Za-z0-9_.-]+", req)[0].lower()
        assert name == "coresc" or name in test_row, name
