"""Every example in README.md, ARCHITECTURE.md, CONTRIBUTING.md and docs/*.md runs here,
as written.

Each fenced block of commands (``sh`` or ``python``) is preceded by a marker comment:

* ``<!-- run -->``: executed. Shell blocks go through ``bash -e -o pipefail`` with the
  ``coresc`` of this interpreter's environment first on PATH, Python blocks through this
  interpreter. The blocks of one page run in order in one sandbox folder (below), so a
  later block may use what an earlier one wrote. A ``text`` block marked
  ``<!-- output -->`` right after a run block must equal that block's standard output.
* ``<!-- run: installed -->``: the front page's install command. The install itself is
  what ``tests/test_installed.py`` does; here the command after ``pip install .`` runs.
* ``<!-- run: ci -->``: the test command; ``.ci/run`` must run exactly it.
* ``<!-- check: REASON -->``: too slow to run in the suite (whole-corpus training,
  experiments, a cluster). Every ``coresc`` line must parse with the command line's own
  parser, and every path it names under ``data/`` or ``../shared/`` must exist; Python
  blocks must compile.

A block of commands without a marker fails the test, so no example is left out silently.

The sandbox: an empty folder where ``data/`` and ``tests/`` are the project's,
``../shared`` is the real shared data, ``paper.nxml`` is a real JATS article from
``../shared/data/jats``, ``papers/`` holds it and a second paper under a name of its own
(the bundled example's text, so no page can count on ``papers/`` holding a file whose
name the reader does not know), and ``new-cancer-paper.xml`` is a paper of the CRA
corpus. Whatever else a block reads, an earlier block of its page must write. Commands
use the bundled default model, as a user's would.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from coresc.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", ROOT / "ARCHITECTURE.md", ROOT / "CONTRIBUTING.md",
         *sorted((ROOT / "docs").glob("*.md"))]
#: benchmarks.md holds the commands that reproduce measured numbers (minutes to hours
#: each); those are the benchmark scripts' business, not examples.
NOT_EXAMPLES = {"benchmarks.md"}
COMMAND_LANGS = {"sh", "bash", "console", "python"}
BLOCK = re.compile(r"(?:<!-- (?P<marker>[^>]*?) -->\n)?```(?P<lang>\w*)[^\n]*\n(?P<body>.*?)^```",
                   re.S | re.M)


@dataclass
class Block:
    page: str
    lang: str
    marker: str  # "" where the block has none
    body: str
    output: str | None = None  # the <!-- output --> block that follows it


def blocks(page: Path) -> list[Block]:
    found: list[Block] = []
    for m in BLOCK.finditer(page.read_text(encoding="utf-8")):
        lang, marker, body = m["lang"], m["marker"], m["body"]
        if marker == "output" and found:
            found[-1].output = body
        elif lang in COMMAND_LANGS:
            found.append(Block(page.name, lang, marker or "", body))
    return found


def example_pages() -> list[Path]:
    return [p for p in PAGES if p.name not in NOT_EXAMPLES]


def all_blocks() -> list[Block]:
    return [b for p in example_pages() for b in blocks(p)]


def test_every_example_has_a_marker() -> None:
    unmarked = [(b.page, b.body.splitlines()[0]) for b in all_blocks()
                if not (b.marker in ("run", "run: installed", "run: ci")
                        or b.marker.startswith("check: "))]
    assert not unmarked, unmarked
    assert sum(b.marker == "run" for b in all_blocks()) >= 10


def test_ci_runs_the_documented_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    for b in all_blocks():
        if b.marker == "run: ci":
            install, test = b.body.strip().split(" && ")[-2:]
            assert install.replace("pip install", "pip install --quiet") in ci
            assert f"\n{test}\n" in ci


def _coresc_lines(body: str) -> list[list[str]]:
    out = []
    for line in body.splitlines():
        for part in line.split(" && "):
            words = shlex.split(part, comments=True)
            if words and words[0] == "coresc":
                out.append(words[1:])
    return out


def _checked() -> list[Block]:
    return [b for b in all_blocks() if b.marker.startswith("check")]


@pytest.mark.parametrize("block", _checked(),
                         ids=lambda b: f"{b.page}:{b.body.splitlines()[0][:40]}")
def test_checked_examples_parse(block: Block) -> None:
    if block.lang == "python":
        compile(block.body, block.page, "exec")
        return
    parser = build_parser()
    for argv in _coresc_lines(block.body):
        parser.parse_args(argv)  # argparse exits (fails the test) on an unknown option
        for word in argv:
            if word.startswith("data/"):
                assert (ROOT / word).exists(), (block.page, word)


def test_checked_examples_name_real_shared_data(shared_data: Path) -> None:
    named = [(b.page, word) for b in _checked() if b.lang != "python"
             for argv in _coresc_lines(b.body) for word in argv
             if word.startswith("../shared/")]
    assert named
    missing = [(page, word) for page, word in named
               if not (shared_data.parent / word.removeprefix("../shared/")).exists()]
    assert not missing, missing


def sandbox(tmp: Path, shared_data: Path) -> Path:
    work = tmp / "project"
    work.mkdir()
    (work / "data").symlink_to(ROOT / "data")
    (work / "tests").symlink_to(ROOT / "tests")
    (tmp / "shared").symlink_to(shared_data.parent)
    shutil.copy(shared_data / "jats" / "1472-6831-8-11.nxml", work / "paper.nxml")
    (work / "papers").mkdir()
    shutil.copy(work / "paper.nxml", work / "papers" / "1472-6831-8-11.nxml")
    # a user's own paper: any name but the bundled example's (see the module docstring)
    shutil.copy(ROOT / "data" / "example-paper.xml", work / "papers" / "my-paper.xml")
    shutil.copy(shared_data / "cra-corpus" / "12937189_mode2_annotated.xml",
                work / "new-cancer-paper.xml")
    return work


def run_block(block: Block, work: Path) -> str:
    env = {k: v for k, v in os.environ.items() if k != "CORESC_MODEL"}  # the default model
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    body = block.body
    if block.marker == "run: installed":
        body = body.split("pip install . && ", 1)[1]
    if block.lang == "python":
        cmd = [sys.executable, "-c", body]
    else:
        cmd = ["bash", "-e", "-o", "pipefail", "-c", body]
    res = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, f"{block.page}:\n{body}\n{res.stderr[-3000:]}"
    assert "Traceback" not in res.stderr, res.stderr
    return res.stdout


@pytest.mark.slow
@pytest.mark.parametrize("page", [p for p in example_pages()
                                  if any(b.marker.startswith("run:") or b.marker == "run"
                                         for b in blocks(p) if b.marker != "run: ci")],
                         ids=lambda p: p.name)
def test_page_examples_run(page: Path, shared_data: Path, tmp_path: Path) -> None:
    work = sandbox(tmp_path, shared_data)
    for block in blocks(page):
        if block.marker in ("run", "run: installed"):
            out = run_block(block, work)
            if block.output is not None:
                assert out == block.output, (page.name, out)


def test_tei_example_is_real_output(shared_data: Path, tmp_path: Path, default_model) -> None:
    """The TEI line on the formats page is what coresc writes for that sentence."""
    from coresc.cli import main

    shown = re.search(r'```xml\n(<s n="2"[^>]*>)', (ROOT / "docs" / "formats.md").read_text())
    assert main(["annotate", str(shared_data / "tei" / "N18-3011.tei.xml"),
                 "-o", str(tmp_path), "-q"]) == 0
    written = (tmp_path / "N18-3011.xml").read_text(encoding="utf-8")
    assert shown[1] in written
    scores = [float(x) for x in re.search(r'coresc:score="([^"]*)"', shown[1])[1].split()]
    assert scores == sorted(scores, reverse=True)
