"""The docs site (mkdocs.yml) loads nothing from other hosts: it reads whole offline."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import need

ROOT = Path(__file__).resolve().parents[1]
#: A page's own assets (stylesheets, scripts, images, fonts) fetched from another host;
#: plain links (<a href>) are the reader's choice and are left alone.
EXTERNAL_ASSET = re.compile(
    r"<(?:link|script|img|iframe|source|audio|video)\b[^>]*\b(?:src|href)=[\"']?(?:https?:)?//"
    r"|url\(\s*[\"']?(?:https?:)?//|@import\s+[\"']?(?:url\()?[\"']?(?:https?:)?//"
    r"|fonts\.googleapis|fonts\.gstatic", re.I)


def test_theme_uses_no_web_fonts() -> None:
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    # Material loads Roboto from Google Fonts unless font is false
    assert config["theme"].get("font", None) is False


@pytest.mark.slow
def test_built_site_fetches_nothing_from_other_hosts(tmp_path: Path) -> None:
    need("material", "the docs extra: pip install '.[docs]'")  # CI builds the site only here
    site = tmp_path / "site"
    res = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                          str(site)], cwd=ROOT, capture_output=True, text=True, timeout=600,
                         env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert res.returncode == 0, res.stderr[-3000:]
    files = [p for p in site.rglob("*") if p.suffix in (".html", ".css", ".js")]
    assert any(p.name == "index.html" for p in files)
    found = [(str(p.relative_to(site)), m[0]) for p in files
             for m in EXTERNAL_ASSET.finditer(p.read_text(encoding="utf-8", errors="replace"))]
    assert not found, found[:10]
