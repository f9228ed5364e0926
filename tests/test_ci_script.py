""".ci/run, CI's script: it refuses at once, in one line, to run without the shared data,
and it builds the docs site once (tests/test_docs_site.py builds it, in strict mode)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_without_the_shared_data_ci_stops_at_once_in_one_line(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    (clone / ".ci").mkdir(parents=True)
    shutil.copy(ROOT / ".ci" / "run", clone / ".ci" / "run")
    env = {k: v for k, v in os.environ.items() if k != "CORESC_DATA"}
    for data in (None, tmp_path / "empty"):  # no ../shared beside the clone; an empty one
        if data is not None:
            data.mkdir()
            env["CORESC_DATA"] = str(data)
        res = subprocess.run(["bash", str(clone / ".ci" / "run")], env=env, cwd=tmp_path,
                             capture_output=True, text=True, timeout=60)
        assert res.returncode == 1 and res.stdout == "", res
        [line] = res.stderr.splitlines()
        where = str(data) if data is not None else "../shared/data"
        assert line.startswith(f".ci/run: shared data not found at {where} "), line
        assert sorted(p.name for p in clone.iterdir()) == [".ci"]  # nothing installed


def test_the_docs_site_is_built_once() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    site_test = (ROOT / "tests" / "test_docs_site.py").read_text(encoding="utf-8")
    assert '"mkdocs", "build", "--strict"' in site_test
    assert "python -m pytest\n" in ci
    assert "mkdocs build" not in ci
