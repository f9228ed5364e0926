"""The public Python API: coresc.load / Tagger / pipe / read, and the memory it keeps."""

from __future__ import annotations

import gc
import re
import subprocess
import sys
import weakref
from pathlib import Path

import pytest
from batch_helpers import make_papers, paper_text

import coresc
from coresc.config import PROJECT_ROOT
from coresc.errors import InputError, UsageError

EXAMPLE = PROJECT_ROOT / "data" / "example-paper.xml"


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
    paths = make_papers(tmp_path / "in", 5)
    items = [paths[0], paper_text(7), coresc.read(paths[1]), *map(str, paths[2:])]
    one = list(tagger.pipe(items, jobs=1))
    two = list(tagger.pipe(items, jobs=2))
    assert [p.id for p in two] == ["p000", "text", "p001", "p002", "p003", "p004"]
    assert [pred_codes(p) for p in one] == [pred_codes(p) for p in two]
    assert two[2] is items[2]  # a Paper comes back annotated in place


def test_annotated_papers_are_not_kept_by_the_model(tagger):
    from coresc.model import analyses

    paper = coresc.read(EXAMPLE)
    tagger(paper)
    ref = weakref.ref(paper)
    del paper
    gc.collect()
    assert ref() is None and len(analyses.ANALYSES) == 0


def _rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        pages = int(fh.read().split()[1])
    import os

    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="needs Linux /proc")
def test_memory_does_not_grow_over_repeated_passes(tagger, shared_data):
    """Five passes over the 10 JATS papers: memory after the last is that after the second.

    Before the fix every pass kept its papers (trees included) in a module-level cache:
    about 10 MB more per pass here (three passes over the 108 Elsevier papers grew
    538 MB -> 1,324 MB).
    """
    files = sorted((shared_data / "jats").glob("*.*xml"))
    rss = []
    for _ in range(5):
        for paper in tagger.pipe(files):
            assert paper.sentences()[0].pred
        gc.collect()
        rss.append(_rss_mb())
    assert rss[-1] - rss[1] < 4.0, rss
