"""Small invented papers for the batch and API tests, and a way to run the CLI."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

SENTENCES = (
    "Biofilms protect soil bacteria against metals.",
    "Little is known about how copper changes their growth.",
    "We asked whether copper slows biofilm maturation.",
    "Cells were grown in minimal medium at 30 degrees for two days.",
    "Biofilm mass was measured by crystal violet staining.",
    "Copper reduced biofilm mass by half after one day.",
    "Alginate genes were repressed in the presence of copper.",
    "These results suggest that copper acts through alginate synthesis.",
    "Our model predicts slower maturation at higher copper levels.",
    "Future work will test other metals.",
)


def paper_text(i: int, n_paragraphs: int = 3) -> str:
    """An invented paper (title, three sections); ``i`` varies it."""
    body = []
    for k, heading in enumerate(("Introduction", "Methods", "Results")):
        body.append(heading)
        for p in range(n_paragraphs):
            start = (i + k + p) % len(SENTENCES)
            body.append(" ".join(SENTENCES[(start + j) % len(SENTENCES)] for j in range(4)))
    return f"Copper and biofilms, study {i}\n\n" + "\n\n".join(body) + "\n"


def make_papers(folder: Path, n: int, n_paragraphs: int = 3) -> list[Path]:
    """``n`` invented text papers ``p000.txt`` ... in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n):
        path = folder / f"p{i:03d}.txt"
        path.write_text(paper_text(i, n_paragraphs), encoding="utf-8")
        paths.append(path)
    return paths


def coresc_process(args: list[str], cwd: Path | None = None, **kw) -> subprocess.Popen:
    """``python -m coresc ARGS`` as a child process (stdout/stderr piped), with Ctrl-C's
    signal at its default even where the test run itself ignores it (a shell's background
    job does), as it is for a user at a terminal."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    kw.setdefault("preexec_fn", _default_sigint)
    return subprocess.Popen([sys.executable, "-m", "coresc", *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def tree_bytes(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (relative name -> bytes), manifests left out."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and "manifest" not in p.name}
