"""experiments/encoder_cv.py's cross-fitting with an added corpus: no test paper is ever
read by an encoder trained on it, and the added corpus is spread over every group."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

EXPERIMENTS = Path(__file__).resolve().parents[1] / "experiments"


@pytest.fixture(scope="module")
def encoder_cv():
    sys.path.insert(0, str(EXPERIMENTS))
    try:
        yield importlib.import_module("encoder_cv")
    finally:
        sys.path.remove(str(EXPERIMENTS))


class Stub:
    """A paper as cross-fitting sees it: an id and a number of sentences."""

    def __init__(self, pid: str, n: int) -> None:
        self.id, self.n = pid, n

    def __len__(self) -> int:
        return self.n


def papers(prefix: str, sizes: list[int]) -> list[Stub]:
    return [Stub(f"{prefix}{i}", n) for i, n in enumerate(sizes)]


def test_added_corpus_is_spread_over_the_groups(encoder_cv):
    main = papers("cra", [3, 3, 3, 3, 3, 3])
    added = papers("art", [9, 5, 5, 4, 4, 4, 1])
    folds = [0, 0, 1, 1, 2, 2]
    every, groups = encoder_cv._with_added(main, folds, added)
    assert [p.id for p in every[:6]] == [p.id for p in main] and groups[:6] == folds
    sentences = [sum(p.n for p, g in zip(added, groups[6:], strict=True) if g == f)
                 for f in range(3)]
    assert all(sentences) and max(sentences) - min(sentences) <= max(p.n for p in added)
    for f in range(3):
        # encoder f trains on every paper outside group f, and reads group f only: the
        # main corpus's fold f (the test papers) is never in its training papers
        trained = {p.id for p, g in zip(every, groups, strict=True) if g != f}
        test = {p.id for p, g in zip(main, folds, strict=True) if g == f}
        assert not trained & test
        assert any(p.id.startswith("art") for p, g in zip(every, groups, strict=True)
                   if g == f)


def test_added_corpus_with_a_paper_of_the_same_id_is_refused(encoder_cv):
    with pytest.raises(SystemExit, match="same id|id of a paper"):
        encoder_cv._with_added(papers("x", [1, 1]), [0, 1], papers("x", [1]))
