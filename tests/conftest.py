"""Shared fixtures: where the real corpora are, the small hand-written fixtures, the
command line in-process, a headless browser. Shared helpers that are not fixtures are in
helpers.py."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from helpers import FIXTURES, run_cli

from coresc.config import data_dir

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
    """``../shared/data`` (or ``$CORESC_DATA``); tests that read it skip where it is absent,
    except in CI (``CI`` set: ``.ci/run`` refuses to start without it)."""
    path = data_dir()
    if not (path / "art-corpus").is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"shared data not found at {path}", pytrace=False)
        pytest.skip(f"shared data not found at {path}")
    return path


@pytest.fixture(scope="session")
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture
def coresc_cli(capsys):
    """``coresc ARGV`` in-process, as a callable: (exit code, stderr); argparse's exit
    counts as a return (:func:`helpers.run_cli`)."""
    def call(argv: list[str]) -> tuple[int, str]:
        rc, _, err = run_cli(argv, capsys)
        return rc, err

    return call


CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage", "--window-size=1200,1400",
)


def _find(*names: str) -> str | None:
    for name in names:
        found = shutil.which(name) or (f"/usr/bin/{name}" if Path(f"/usr/bin/{name}").exists()
                                        else None)
        if found:
            return found
    return None


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium through selenium (Debian packages chromium + chromium-driver).
    Skipped when one is missing, except in CI (``CI`` set, as ``.ci/run`` sets it), where
    a missing browser fails the tests: CI installs it."""
    chromium, driver_path = _find("chromium", "chromium-browser"), _find("chromedriver")
    webdriver = None
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pass
    missing = [n for n, ok in (("chromium", chromium), ("chromedriver", driver_path),
                               ("selenium", webdriver)) if not ok]
    if missing:
        message = f"headless browser tests need {', '.join(missing)}"
        if os.environ.get("CI"):
            pytest.fail(message + " (CI must install them: see .ci/run)")
        pytest.skip(message)
    profile = tempfile.mkdtemp(prefix="coresc-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # an explicit driver path: selenium must not try to download one (no network)
    drv = webdriver.Chrome(service=Service(driver_path), options=options)
    drv.set_page_load_timeout(60)
    try:
        yield drv
    finally:
        drv.quit()
        shutil.rmtree(profile, ignore_errors=True)
