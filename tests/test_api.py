"""The public Python API: coresc.load / Tagger / pipe / read, and the memory it keeps."""

from __future__ import annotations

import gc
import re
import subprocess
import sys
import warnings
import weakref

import pytest
from helpers import EXAMPLE, paper_text, text_papers

import coresc
from coresc.config import PROJECT_ROOT
from coresc.errors import InputError, UsageError


@pytest.fixture(scope="module")
def tagger() -> coresc.Tagger:
    return coresc.load()


def pred_codes(paper) -> list[list[tuple[str, float]]]:
    return [[(p.label, p.score) for p in s.pred] for s in paper.sentences()]


def test_api_page_example_runs():
    page = (PROJECT_ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", page, re.S).group(1)
    res = subprocess.run([sys.executable, "-c", code], cwd=PROJECT_ROOT, capture_output=True,
                         text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert len(lines) == 6
    assert lines[0].split()[0] in coresc.load().labels
    assert lines[3].startswith("example-paper 33 [") and lines[4].startswith("text 2 [")


def test_help_says_what_load_takes_and_returns():
    doc = coresc.load.__doc__
    assert "model directory" in doc and "Returns" in doc and "Tagger" in doc
    assert coresc.load.__annotations__["return"] == "Tagger"


def test_import_is_cheap():
    code = "import coresc, sys; print(sorted(m for m in ('numpy', 'lxml', 'sklearn', " \
           "'coresc.model', 'tqdm') if m in sys.modules))"
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.stdout.strip() == "[]"


def test_path_text_and_paper(tagger, tmp_path):
    from_path = tagger(EXAMPLE)
    from_str = tagger(str(EXAMPLE))
    assert pred_codes(from_path) == pred_codes(from_str)
    assert all(1 <= len(s.pred) <= 3 for s in from_path.sentences())
    read = coresc.read(EXAMPLE)
    assert not any(s.pred for s in read.sentences())
    assert tagger(read) is read and pred_codes(read) == pred_codes(from_path)
    text = paper_text(3)
    from_text = tagger(text)
    assert from_text.source_path is None and from_text.id == "text"
    file = tmp_path / "p.txt"
    file.write_text(text)
    assert pred_codes(from_text) == pred_codes(tagger(file))


def test_bad_items(tagger, tmp_path):
    with pytest.raises(InputError, match="missing.nxml"):
        tagger("missing.nxml")  # looks like a path: not annotated as text
    with pytest.raises(TypeError):
        tagger(42)
    jsonl = tmp_path / "two.jsonl"
    jsonl.write_text('{"sentences": ["We measured it."]}\n{"sentences": ["It grew."]}\n')
    with pytest.raises(UsageError, match="pipe"):
        tagger(jsonl)
    assert [p.id for p in tagger.pipe([jsonl])] == ["two:1", "two:2"]


def test_pipe_with_workers_gives_the_same_papers_in_order(tagger, tmp_path):
    paths = text_papers(tmp_path / "in", 5)
    items = [paths[0], paper_text(7), coresc.read(paths[1]), *map(str, paths[2:])]
    one = list(tagger.pipe(items, jobs=1))
    two = list(tagger.pipe(items, jobs=2))
    assert [p.id for p in two] == ["p000", "text", "p001", "p002", "p003", "p004"]
    assert [pred_codes(p) for p in one] == [pred_codes(p) for p in two]
    assert two[2] is items[2]  # a Paper comes back annotated in place


@pytest.mark.parametrize("errors", ["raise", "skip"])
def test_pipe_yields_the_same_around_a_bad_item_whatever_the_jobs(tagger, tmp_path, errors):
    """Reading runs ahead of the workers: a bad third item must not stop the two before
    it from being yielded (issue 32), and with errors="skip" all the rest come too."""
    bad = tmp_path / "rand.bin"
    bad.write_bytes(bytes(range(256)) * 8)
    items = [paper_text(3), paper_text(4), bad, paper_text(5)]
    titles = [x.split("\n")[0] if isinstance(x, str) else None for x in items]

    def run(jobs: int) -> tuple[list[str], str | None]:
        got: list[str] = []
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", coresc.api.SkippedInput)
                for paper in tagger.pipe(items, jobs=jobs, errors=errors):
                    got.append(paper.sentences()[0].text)
        except InputError as exc:
            return got, str(exc)
        return got, None

    one, two = run(1), run(2)
    assert one == two
    if errors == "raise":
        assert one == ([titles[0], titles[1]], f"{bad}: binary file, not a paper (NUL bytes)")
    else:
        assert one == ([titles[0], titles[1], titles[3]], None)
        assert [e.path for e in tagger.skipped] == [str(bad)]


@pytest.mark.parametrize("x", ["data/example-paper", "papers/p1", "paper.tei", "E.coli",
                               "missing.nxml"])
def test_a_string_that_looks_like_a_missing_path_is_refused(tagger, x):
    """Never a one-sentence paper made of a mistyped path (issue 32)."""
    with pytest.raises(InputError, match=re.escape(f"{x}: no such file or folder")):
        tagger(x)
    with pytest.raises(InputError, match="no such file"):
        coresc.read(x)


def test_short_texts_without_a_path_shape_are_still_text(tagger):
    for text in ("Hello.", "We grew E. coli. It died.", "我们测量了速率。结果很好！"):
        assert tagger(text).id == "text"


def test_annotated_papers_are_not_kept_by_the_model(tagger):
    from coresc.model import analyses

    paper = coresc.read(EXAMPLE)
    tagger(paper)
    ref = weakref.ref(paper)
    del paper
    gc.collect()
    assert ref() is None and len(analyses.ANALYSES) == 0


def test_papers_from_pipe_are_not_kept(tagger, tmp_path, fixtures):
    """Every paper a pass of pipe yields is gone once the program drops it, pass after
    pass. Before the fix every pass kept its papers (trees included) in a module-level
    cache; the memory this cost is benchmarks/api_memory.py's to print."""
    from coresc.model import analyses

    files = [*text_papers(tmp_path, 3), fixtures / "jats_small.xml"]
    refs = []
    for _ in range(2):
        for paper in tagger.pipe(files):
            assert paper.sentences()[0].pred
            refs.append(weakref.ref(paper))
    del paper
    gc.collect()
    assert len(refs) == 8 and [r() for r in refs] == [None] * 8
    assert len(analyses.ANALYSES) == 0


def test_annotate_files_writes_what_the_command_line_writes(tmp_path):
    """Tagger.annotate_files: the tagger's model and domain, the options of
    coresc.batch.annotate_files; the bytes of `coresc annotate`."""
    from coresc.cli import main

    text_papers(tmp_path / "in", 3)
    tagger = coresc.load("fast", domain="cra-corpus")
    summary = tagger.annotate_files([tmp_path / "in"], str(tmp_path / "api.jsonl"),
                                    to="jsonl", progress="off")
    assert summary.done == 3 and not summary.failures
    for domain, name in (("cra-corpus", "cli.jsonl"), ("art-corpus", "other.jsonl")):
        assert main(["annotate", str(tmp_path / "in"), "--model", "fast", "--domain", domain,
                     "--to", "jsonl", "-o", str(tmp_path / name), "-q"]) == 0
    api = (tmp_path / "api.jsonl").read_bytes()
    assert api == (tmp_path / "cli.jsonl").read_bytes()
    assert api != (tmp_path / "other.jsonl").read_bytes()  # the domain was the tagger's


def test_annotate_files_needs_a_saved_model(tmp_path):
    in_memory = coresc.load(coresc.load("fast").model)
    with pytest.raises(UsageError, match="^annotate_files needs a saved model: save it and "
                                         "use coresc.load"):
        in_memory.annotate_files([tmp_path], str(tmp_path / "out"))
    assert not (tmp_path / "out").exists()
