"""Every example in README.md, ARCHITECTURE.md, CONTRIBUTING.md and docs/*.md runs here,
as written.

Each fenced block of commands (``sh`` or ``python``) is preceded by a marker comment:

* ``<!-- run -->``: executed. Shell blocks go through ``bash -e -o pipefail`` with the
  ``coresc`` of this interpreter's environment first on PATH, Python blocks saved as a
  script and run by this interpreter (``python example.py``, as a reader would: the
  worker processes Dask starts import the script again). The blocks of one page run in
  order in one sandbox folder (below), so a later block may use what an earlier one
  wrote. A ``text`` block marked
  ``<!-- output -->`` right after a run block must equal that block's standard output,
  and ``check && echo WORDS`` must print WORDS (``bash -e`` goes on when ``check`` fails).
* ``<!-- run: serves -->``: one command that serves until Ctrl-C (``coresc review``,
  ``coresc serve``). It runs in its place among the page's run blocks, on a free port
  (``--port 0`` is added, so that tests side by side do not collide); once it prints its
  address, the address must answer a page, and Ctrl-C must stop it cleanly (exit 0 or
  130, no traceback).
* ``<!-- run: installed -->``: the front page's install command. The install itself is
  what ``tests/test_installed.py`` does; here the command after ``pip install .`` runs.
* ``<!-- run: ci -->``: the test command; ``.ci/run`` must run exactly it.
* ``<!-- check: REASON -->``: cannot run in the suite, and REASON says why (whole-corpus
  training, experiments, a cluster, a server that runs until stopped). Every ``coresc``
  line must parse with the command line's own parser, and every path it names under
  ``data/`` or ``../shared/`` must exist; Python blocks must compile.

A block of commands without a marker, or a check without its reason, fails the test, so
no example is left out silently. Blocks are found line by line, indented ones (in a list
item) included.

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
FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<lang>\w*)")
MARKER = re.compile(r"^[ \t]*<!-- (?P<marker>[^>]*?) -->[ \t]*$")


@dataclass
class Block:
    page: str
    lang: str
    marker: str  # "" where the block has none
    body: str
    output: str | None = None  # the <!-- output --> block that follows it


def fenced(text: str, page: str) -> list[tuple[str, str, str]]:
    """Every fenced block of a page as (the marker on the line just before it, or "";
    its language; its body), indented ones (inside a list item) included, their indent
    taken off. A fence left open fails: everything after it would be read out of step."""
    lines = text.splitlines(keepends=True)
    found, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        marker = MARKER.match(lines[i - 1]) if i else None
        end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == "```"), None)
        assert end is not None, f"{page}:{i + 1}: a fenced block that never closes"
        indent = m["indent"]
        body = "".join(ln[len(indent):] if ln.startswith(indent) else ln
                       for ln in lines[i + 1:end])
        found.append((marker["marker"] if marker else "", m["lang"], body))
        i = end + 1
    return found


def blocks(page: Path) -> list[Block]:
    found: list[Block] = []
    for marker, lang, body in fenced(page.read_text(encoding="utf-8"), page.name):
        if marker == "output" and found:
            found[-1].output = body
        elif lang in COMMAND_LANGS:
            found.append(Block(page.name, lang, marker, body))
    return found


def example_pages() -> list[Path]:
    return [p for p in PAGES if p.name not in NOT_EXAMPLES]


def all_blocks() -> list[Block]:
    return [b for p in example_pages() for b in blocks(p)]


def test_blocks_in_list_items_are_read_and_keep_the_rest_in_step() -> None:
    text = ("* a list item:\n\n  ```json\n  {\"a\": 1}\n  ```\n\n"
            "<!-- run -->\n```sh\ncoresc model-info\n```\n\n"
            "<!-- check: why -->\n```python\nimport coresc\n```\n")
    assert fenced(text, "t.md") == [("", "json", '{"a": 1}\n'),
                                     ("run", "sh", "coresc model-info\n"),
                                     ("check: why", "python", "import coresc\n")]
    with pytest.raises(AssertionError, match="t.md:1: a fenced block that never closes"):
        fenced("```sh\ncoresc model-info\n", "t.md")


def test_every_example_has_a_marker() -> None:
    unmarked = [(b.page, b.body.splitlines()[0]) for b in all_blocks()
                if not (b.marker in ("run", "run: installed", "run: ci", "run: serves")
                        or (b.marker.startswith("check: ") and b.marker[7:].strip()))]
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


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "CORESC_MODEL"}  # the default model
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


#: How long a serving example may take to print its address (it labels its papers first).
SERVE_START_S = 300
_ADDRESS = re.compile(r" on (http://\S+/) ")


def serve_block(block: Block, work: Path) -> None:
    """Start a ``run: serves`` block's command, wait for its address, fetch it, stop it
    with Ctrl-C (SIGINT) and check that it ended cleanly."""
    import queue
    import signal
    import threading
    import urllib.request

    [line] = [x for x in block.body.splitlines() if x.strip() and not x.startswith("#")]
    argv = [*shlex.split(line, comments=True), "--port", "0"]
    proc = subprocess.Popen(argv, cwd=work, env=_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        for out in proc.stderr:
            lines.put(out)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    said: list[str] = []
    try:
        while True:
            got = lines.get(timeout=SERVE_START_S)
            assert got is not None, f"{block.page}: {line}\n{''.join(said)[-3000:]}"
            said.append(got)
            found = _ADDRESS.search(got)
            if found:
                break
        with urllib.request.urlopen(found[1], timeout=60) as answer:
            assert answer.status == 200 and b"<html" in answer.read(1 << 20).lower()
    finally:
        proc.send_signal(signal.SIGINT)
        rc = proc.wait(timeout=60)
    while (got := lines.get(timeout=60)) is not None:
        said.append(got)
    # 130: the command line's own answer to Ctrl-C (one line, "interrupted")
    assert rc in (0, 130), f"{block.page}: {line}: exit {rc}\n{''.join(said)[-3000:]}"
    assert "Traceback" not in "".join(said), "".join(said)


def run_block(block: Block, work: Path) -> str:
    env = _env()
    body = block.body
    if block.marker == "run: installed":
        body = body.split("pip install . && ", 1)[1]
    if block.lang == "python":  # saved and run as a script, as a reader would
        script = work / "example.py"
        script.write_text(body, encoding="utf-8")
        cmd = [sys.executable, script.name]
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
            # `check && echo done`: bash -e does not stop when `check` fails, so the
            # promised words are what shows that it passed
            for said in re.findall(r"&& echo ([^#\n|;&]+?)\s*(?:#.*)?$", block.body, re.M):
                assert " ".join(shlex.split(said)) in out, (page.name, said, out[-2000:])
        elif block.marker == "run: serves":
            serve_block(block, work)


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
