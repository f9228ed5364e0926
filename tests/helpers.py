"""What more than one test module uses: invented papers (as objects and as files), the
command line in-process and as a child process, a coresc server's requests, a port that
refuses connections, waiting for a condition, and an optional dependency CI must have.

Fixtures shared the same way live in conftest.py.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from coresc.document import Label, Paper, Paragraph, Prediction, Section, Sentence

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).parent / "fixtures"
#: The bundled example paper (data/example-paper.xml).
EXAMPLE = ROOT / "data" / "example-paper.xml"


# ------------------------------------------------------------------ optional dependencies


def need(module: str, reason: str | None = None) -> ModuleType:
    """``module`` imported; without it the test skips, except in CI (``CI`` set), where it
    fails: CI installs every extra, and there a skip would hide a failure."""
    try:
        return importlib.import_module(module)
    except ImportError:
        message = reason or f"needs {module}"
        if os.environ.get("CI"):
            pytest.fail(f"{message} (CI installs it: see .ci/run)", pytrace=False)
        pytest.skip(message, allow_module_level=True)


# ------------------------------------------------------------------ invented papers

#: Feature groups a small classifier trains on in seconds.
GROUPS = ("location", "section", "ngrams", "cues", "zone", "context")

TEMPLATES = {
    "Bac": ["Previous studies have shown that {x} is common [1].",
            "It is well known that {x} affects growth (Smith et al., 2001)."],
    "Goa": ["To determine whether {x} matters, we used mice."],
    "Exp": ["Cells were incubated with {x} for 2 h.", "Samples were washed and {x} added."],
    "Res": ["The level of {x} increased by 20%.", "Treatment with {x} reduced tumours."],
    "Con": ["These results suggest that {x} may be important."],
}
WORDS = ["oestradiol", "tamoxifen", "insulin", "cyanide", "nafenopin", "testosterone"]


def labelled_paper(i: int, rng: random.Random) -> Paper:
    """Paper ``p{i}``: four sections of gold-labelled sentences (two with a second label)
    that a classifier learns from six copies, and one unlabelled sentence."""
    def sent(k, code, extra=()):
        text = rng.choice(TEMPLATES[code]).format(x=rng.choice(WORDS))
        return Sentence(sid=str(k), text=text, gold=[Label(code)] + [Label(e) for e in extra])

    k = iter(range(1, 100))
    intro = [sent(next(k), "Bac") for _ in range(3)] + [sent(next(k), "Goa", ["Exp"])]
    methods = [sent(next(k), "Exp") for _ in range(4)]
    results = [sent(next(k), "Res") for _ in range(3)] + [sent(next(k), "Con", ["Res"])]
    unlabelled = Sentence(sid=str(next(k)), text="We thank the funders.")
    return Paper(id=f"p{i}", sections=[
        Section("Introduction", "introduction", 1, None, [Paragraph(intro)]),
        Section("Methods", "methods", 1, None, [Paragraph(methods)]),
        Section("Results", "results", 1, None, [Paragraph(results)]),
        Section("Acknowledgements", "acknowledgements", 1, None, [Paragraph([unlabelled])]),
    ])


EVIL = '<script>window.__pwned = 1</script> & "quoted" <img src=x onerror="window.__pwned=2">'


def sentence(sid, text, gold=(), pred=(), zone="body") -> Sentence:
    """A sentence with gold labels (codes) and predictions ((label, score) pairs)."""
    return Sentence(sid=str(sid), text=text, zone=zone, gold=[Label(g) for g in gold],
                    pred=[Prediction(lab, sc) for lab, sc in pred])


def html_paper(pid: str = "html-fixture") -> Paper:
    """An invented paper: title, abstract, nested sections, a caption, labels of all kinds,
    and markup in its text (:data:`EVIL`) that a page must show, never run."""
    return Paper(id=pid, title="Cats & <dogs> in catalysis", source_format="test", sections=[
        Section("Title", "title", depth=0, paragraphs=[Paragraph([
            sentence(1, "Cats & <dogs> in catalysis", gold=["Obj"], zone="title")])]),
        Section("Abstract", "abstract", depth=0, paragraphs=[Paragraph([
            sentence(2, "Catalysis matters.", gold=["Bac"], pred=[("Bac", 0.91), ("Mot", 0.05)],
               zone="abstract"),
            sentence(3, "We test cats.", gold=["Goa", "Obj"], pred=[("Met", 0.61), ("Goa", 0.3)],
               zone="abstract")])]),
        Section("Methods", "methods", depth=1, paragraphs=[]),
        Section("Samples <i>", "methods", depth=2, parent=2, paragraphs=[
            Paragraph([sentence(4, "Samples were taken.", gold=["Exp"], pred=[("Exp", 0.8)]),
                       sentence(5, EVIL, gold=["Met"], pred=[("Met", 0.7), ("Exp", 0.2),
                                                       ("Obs", 0.1)])]),
            Paragraph([sentence(6, "Figure 1. A cat.", gold=["Obs"], pred=[("Res", 0.55)],
                          zone="caption")])]),
        Section("", "other", depth=1, paragraphs=[Paragraph([
            sentence(7, "An unlabelled sentence."),
            sentence(8, "Gold only, two labels.", gold=["Con", "Res"])])]),
    ])


#: Each sentence's model labels (ranked, with scores) in :func:`review_paper`.
MODEL = [[("Bac", 0.9)], [("Met", 0.55), ("Exp", 0.3)], [("Res", 0.35)], [("Con", 0.8)],
         [("Obs", 0.45), ("Res", 0.4)], [("Hyp", 0.2)], [("Bac", 0.7)], [("Res", 0.95)]]


def review_paper(pid: str = "paper-1") -> Paper:
    """A paper as coresc review gets it: eight sentences with the model's labels
    (:data:`MODEL`), no gold."""
    sentences = [Sentence(str(j + 1), f"Sentence number {j} says thing {j}.",
                          pred=[Prediction(lab, sc) for lab, sc in ranked])
                 for j, ranked in enumerate(MODEL)]
    return Paper(pid, "A paper", "text", f"{pid}.txt", [
        Section("Introduction", "introduction", 1, None, [Paragraph(sentences[:4])]),
        Section("Results", "results", 1, None, [Paragraph(sentences[4:])])])


def never(papers) -> None:
    """The annotate function of a review store whose papers carry predictions already."""
    raise AssertionError("papers with predictions are not annotated again")


def store_for(folder: Path, annotator: str = "alice", papers=None):
    """A review store of ``annotator`` under ``folder`` (one :func:`review_paper`)."""
    from coresc.review.store import open_store

    return open_store(folder / annotator, annotator, papers or [review_paper()], "fast",
                      never, print)


def two_reviews(out: Path) -> None:
    """alice and bob review paper-1: they agree on 0 and 1, disagree on 2 and 4, only
    alice labels 3, neither labels 5 to 7."""
    alice, bob = store_for(out, "alice"), store_for(out, "bob")
    for store, labels in ((alice, [["Bac"], ["Met"], ["Res"], ["Con"], ["Obs", "Res"]]),
                          (bob, [["Bac"], ["Met"], ["Hyp"], None, ["Res"]])):
        for j, chosen in enumerate(labels):
            if chosen is not None:
                store.decide(0, j, chosen)


def gold_of(path: Path) -> list[list[str]]:
    """The gold labels of each sentence of the paper in ``path``."""
    from coresc.readers import read_file

    return [s.gold_codes for s in read_file(path)[0].sentences()]


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


def text_papers(folder: Path, n: int, n_paragraphs: int = 3) -> list[Path]:
    """``n`` invented text papers ``p000.txt`` ... in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n):
        path = folder / f"p{i:03d}.txt"
        path.write_text(paper_text(i, n_paragraphs), encoding="utf-8")
        paths.append(path)
    return paths


def tiny_experiment(name: str) -> dict:
    """An experiment config that runs in seconds: CRA in two folds, a few feature groups,
    five CRF iterations (give ``max_papers`` too)."""
    return {"name": name, "corpora": {"cra": "cra-corpus"},
            "folds": {"kind": "kfold", "corpus": "cra", "k": 2},
            "features": ["location", "section", "ngrams", "zone"],
            "model": {"c1": 0.05, "c2": 0.01, "max_iterations": 5, "secondary": False,
                      "verbose": False}}


#: A minimal PDF (no text layer): what the fake GROBID is sent.
TINY_PDF = (b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
            b"2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\n"
            b"trailer << /Root 1 0 R >>\n%%EOF\n")


def pdf_pairs(folder: Path) -> Path:
    """``folder`` with what the fake GROBID serves: ``small.pdf`` and ``other.pdf``, each
    beside the TEI GROBID would make of it (tests/fixtures' small TEI files)."""
    folder.mkdir(parents=True, exist_ok=True)
    for stem, tei, comment in (("small", "tei_grobid_small.xml", b"small"),
                               ("other", "tei_sentences.xml", b"other")):
        (folder / f"{stem}.pdf").write_bytes(TINY_PDF + b"%" + comment + b"\n")
        (folder / f"{stem}.tei.xml").write_bytes((FIXTURES / tei).read_bytes())
    return folder


# ------------------------------------------------------------------ the command line


def run_cli(argv: list[str], capsys) -> tuple[int, str, str]:
    """``coresc ARGV`` in-process: (exit code, stdout, stderr); argparse's exit counts as
    a return, any other exception propagates, and a traceback on stderr fails the test."""
    from coresc import cli

    try:
        rc = cli.main(argv)
    except SystemExit as exc:
        rc = exc.code
    out, err = capsys.readouterr()
    assert "Traceback" not in err, err
    return rc, out, err


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


#: The input a :func:`dying_source_task` worker dies on (its file name).
DIES_ON = "p003.txt"


def dying_source_task(source):
    """``coresc.batch.work.source_task``, except that the worker process handed
    :data:`DIES_ON` dies at once, as one killed by the kernel (module level: a pool
    pickles its task by name)."""
    from coresc.batch.work import source_task

    if Path(source.name).name == DIES_ON:
        os._exit(9)
    return source_task(source)


def tree_bytes(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (relative name -> bytes), manifests left out."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and "manifest" not in p.name}


# ------------------------------------------------------------------ servers and waiting


@contextlib.contextmanager
def refused_port() -> Iterator[int]:
    """A loopback port that refuses connections for as long as the block runs: bound, so
    no other process can take it, and never listening (a closed port may be reused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        yield s.getsockname()[1]


def wait_for(condition: Callable[[], Any], timeout: float = 30.0, what: str = "") -> Any:
    """Poll ``condition`` until it returns something true (returned); the timeout only
    bounds a hang, it is no speed limit."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting{' for ' + what if what else ''}")


TOKEN = "s3cret-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def call(server, path: str, data: bytes | None = None, headers: dict | None = None,
         auth: bool = True, method: str | None = None) -> tuple[int, dict, bytes]:
    """(status, headers, body) of one request to a coresc server; errors are answers too."""
    req = urllib.request.Request(server.url + path.lstrip("/"), data=data, method=method,
                                 headers={**(AUTH if auth else {}), **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def health(server) -> dict:
    return json.loads(call(server, "health", auth=False)[2])


def form(data: bytes, filename: str, field: str = "file",
         ctype: str = "application/octet-stream") -> tuple[bytes, dict]:
    """A multipart/form-data body with one file."""
    boundary = uuid.uuid4().hex
    body = (f'--{boundary}\r\nContent-Disposition: form-data; name="{field}"; '
            f'filename="{filename}"\r\nContent-Type: {ctype}\r\n\r\n').encode() + data + \
        f"\r\n--{boundary}--\r\n".encode()
    return body, {"Content-Type": f"multipart/form-data; boundary={boundary}"}


def cli_bytes(capsysbinary, *args: str) -> bytes:
    """What ``coresc annotate ARGS -q`` writes to standard output."""
    from coresc.cli import main

    assert main(["annotate", *args, "-q"]) == 0
    return capsysbinary.readouterr().out


def error_of(answer: tuple[int, dict, bytes]) -> str:
    """The message of a server's refusal (its JSON body carries the status too)."""
    status, _, body = answer
    record = json.loads(body)
    assert record["status"] == status
    return record["error"]


def console_errors(log: list[dict]) -> list[dict]:
    """The errors among a browser's console messages."""
    return [m for m in log if m.get("level") in ("SEVERE", "ERROR")]
