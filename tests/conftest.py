"""Shared fixtures: where the real corpora are, and the small hand-written fixtures."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from coresc.config import data_dir

FIXTURES = Path(__file__).parent / "fixtures"

# Most tests exercise reading, batching and writing, not the labels: they run on the fast
# bundled model (20 times faster than the default, `accurate`) unless CORESC_MODEL is set
# already. Tests of the default itself remove it (the `default_model` fixture), and the
# installed-package tests run without it.
os.environ.setdefault("CORESC_MODEL", "fast")


@pytest.fixture
def default_model(monkeypatch) -> pytest.MonkeyPatch:
    """No CORESC_MODEL: commands and the API use the bundled default model (the
    monkeypatch is returned, to set it again within a test)."""
    monkeypatch.delenv("CORESC_MODEL", raising=False)
    return monkeypatch


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data``; tests that need it skip where it is absent (CI always has it)."""
    path = data_dir()
    if not (path / "art-corpus").is_dir():
        pytest.skip(f"shared data not found at {path}")
    return path


@pytest.fixture(scope="session")
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture
def coresc_cli(capsys):
    """``coresc ARGV`` in-process, as a callable: (exit code, stderr); argparse's exit
    counts as a return."""
    from coresc import cli

    def call(argv: list[str]) -> tuple[int, str]:
        try:
            rc = cli.main(argv)
        except SystemExit as exc:
            rc = exc.code
        return rc, capsys.readouterr().err

    return call
