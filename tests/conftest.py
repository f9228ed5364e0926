"""Shared fixtures: where the real corpora are, and the small hand-written fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

from coresc.config import data_dir

FIXTURES = Path(__file__).parent / "fixtures"


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
