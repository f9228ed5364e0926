"""coresc select: expected errors from calibrated scores, the greedy diverse choice, the
command's output."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers import need

from coresc import cli
from coresc.document import Paper, Prediction
from coresc.errors import UsageError
from coresc.readers import read_file
from coresc.selection import (
    Candidate,
    expected_errors,
    greedy_diverse,
    select_papers,
    similarity_matrix,
    unreviewed,
    weak_label_scores,
)

TEXTS = {
    "rats": "Introduction\n\nWe weighed the rats every day. The rats gained weight.\n",
    "rats2": "Introduction\n\nWe weighed the rats every day. The rats gained weight. "
             "The rats slept.\n",
    "stars": "Methods\n\nThe telescope observed distant stars. Spectra were recorded at "
             "night. Galaxies redshift. Quasars shine. Nebulae glow.\n",
}


class FakeModel:
    """Ranks every sentence with one fixed calibrated primary score per paper."""

    def __init__(self, score_of: dict[str, float]) -> None:
        self.score_of = score_of

    def rank(self, papers):
        return [[[Prediction("Res", self.score_of[p.id])] for _ in p.sentences()]
                for p in papers]


@pytest.fixture()
def papers(tmp_path: Path) -> list[Paper]:
    out = []
    for name, text in TEXTS.items():
        path = tmp_path / f"{name}.txt"
        path.write_text(text)
        out += read_file(path)
    return out


def test_expected_errors_sum_one_minus_primary_score(papers) -> None:
    model = FakeModel({"rats": 0.9, "rats2": 0.5, "stars": 0.75})
    got = expected_errors(model, papers)
    n = [len(list(p.sentences())) for p in papers]
    assert [e for e, _ in got] == pytest.approx([0.1 * n[0], 0.5 * n[1], 0.25 * n[2]])
    assert [k for _, k in got] == n


def test_total_and_rate_rank_differently(papers) -> None:
    # stars: many sentences, moderately sure; rats2: fewer sentences, very unsure
    model = FakeModel({"rats": 0.95, "rats2": 0.3, "stars": 0.5})
    n = {p.id: len(list(p.sentences())) for p in papers}
    assert 0.5 * n["stars"] > 0.7 * n["rats2"]  # the fixture's premise
    total = select_papers(model, papers, 1, "total", diversity=0)
    rate = select_papers(model, papers, 1, "rate", diversity=0)
    assert total[0].paper.id == "stars" and rate[0].paper.id == "rats2"


def test_diversity_passes_over_a_near_duplicate(papers) -> None:
    model = FakeModel({"rats": 0.3, "rats2": 0.3, "stars": 0.75})
    plain = [c.paper.id for c in select_papers(model, papers, 2, "rate", diversity=0)]
    diverse = [c.paper.id for c in select_papers(model, papers, 2, "rate", diversity=1)]
    assert set(plain) == {"rats", "rats2"}
    assert diverse[0] in ("rats", "rats2") and diverse[1] == "stars"


def test_greedy_is_deterministic_and_stops_at_the_pool() -> None:
    pool = [Candidate(i, Paper(id=str(i)), 1.0, 1, utility=1.0) for i in range(3)]
    sim = np.eye(3)
    got = greedy_diverse(pool, sim, budget=10, diversity=0.5)
    assert [c.index for c in got] == [0, 1, 2]  # ties: the order given
    assert all(c.similarity == 0.0 for c in got)


def test_similarity_matrix_is_cosine(papers) -> None:
    sim = similarity_matrix(papers)
    assert sim.shape == (3, 3) and np.allclose(np.diag(sim), 1.0)
    assert sim[0, 1] > 0.5 > sim[0, 2]


def test_unreviewed_skips_gold_and_excluded(fixtures: Path, papers) -> None:
    gold = read_file(fixtures / "io_art_small.xml")
    assert unreviewed(gold + papers, {"rats"}) == papers[1:]


def test_bad_settings_are_usage_errors(papers) -> None:
    model = FakeModel({"rats": 0.5, "rats2": 0.5, "stars": 0.5})
    for kwargs in ({"budget": 0}, {"budget": 1, "utility": "x"},
                   {"budget": 1, "diversity": 2.0}):
        with pytest.raises(UsageError):
            select_papers(model, papers, **kwargs)


def test_command_prints_and_writes_the_list(papers, tmp_path: Path, capsys) -> None:
    out = tmp_path / "sub" / "next.txt"
    rc = cli.main(["select", str(tmp_path), "--model", "fast", "--budget", "2",
                   "-o", str(out), "--exclude", str(tmp_path / "rats.txt")])
    captured = capsys.readouterr()
    assert rc == 0
    lines = captured.out.splitlines()
    assert len(lines) == 2 and out.read_text().splitlines() == lines
    assert str(tmp_path / "rats.txt") not in lines
    assert set(lines) == {str(tmp_path / "rats2.txt"), str(tmp_path / "stars.txt")}
    assert "whole pool" in captured.err  # budget 2 = the 2 papers left


def test_command_refuses_a_pool_of_reviewed_papers(fixtures: Path, capsys) -> None:
    rc = cli.main(["select", str(fixtures / "io_art_small.xml"), "--model", "fast",
                   "--budget", "1"])
    err = capsys.readouterr().err
    assert rc == 2 and "no unreviewed paper" in err and err.count("\n") == 1


def test_an_empty_review_folder_excludes_nothing(papers, tmp_path: Path, capsys) -> None:
    (tmp_path / "reviewed").mkdir()
    rc = cli.main(["select", str(tmp_path / "rats.txt"), "--model", "fast", "--budget", "1",
                   "--exclude", str(tmp_path / "reviewed")])
    assert rc == 0 and capsys.readouterr().out == f"{tmp_path / 'rats.txt'}\n"
    rc = cli.main(["select", str(tmp_path / "rats.txt"), "--model", "fast", "--budget", "1",
                   "--exclude", str(tmp_path / "nowhere")])
    err = capsys.readouterr().err
    assert rc == 2 and "nowhere" in err and err.count("\n") == 1


def test_a_bad_pdf_is_skipped_in_one_line_and_the_rest_chosen(papers, tmp_path: Path,
                                                               capsys) -> None:
    """Issue 53: one damaged PDF stopped select for the whole folder (exit 2), where
    annotate and review go on past it. Exit 1, as annotate's: some inputs failed."""
    need("pypdfium2", "the embedded PDF reader needs pypdfium2 (the pdf extra)")
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4\n1 0 obj garbage")
    rc = cli.main(["select", str(tmp_path), "--model", "fast", "--budget", "1"])
    captured = capsys.readouterr()
    assert rc == 1
    assert captured.out.splitlines()[0] in {str(tmp_path / f"{n}.txt") for n in TEXTS}
    errors = [line for line in captured.err.splitlines() if "error" in line]
    assert errors == [line for line in errors if "broken.pdf:" in line] and len(errors) == 1
    assert "Traceback" not in captured.err


def _said(capsys) -> list[str]:
    """select's lines on standard error (not the PDF reader's once-a-run notice)."""
    return [line for line in capsys.readouterr().err.splitlines()
            if line.startswith("coresc select:")]


def test_select_fails_when_no_input_can_be_read(tmp_path: Path, capsys) -> None:
    need("pypdfium2", "the embedded PDF reader needs pypdfium2 (the pdf extra)")
    for name in ("broken.pdf", "broken2.pdf"):
        (tmp_path / name).write_bytes(b"%PDF-1.4\n1 0 obj garbage")
    rc = cli.main(["select", str(tmp_path), "--model", "fast", "--budget", "1"])
    err = _said(capsys)
    assert rc == 2 and len(err) == 3 and "no paper could be read (2 input(s)" in err[-1]
    assert "broken.pdf:" in err[0] and "broken2.pdf:" in err[1]
    rc = cli.main(["select", str(tmp_path / "broken.pdf"), "--model", "fast", "--budget", "1"])
    err = _said(capsys)
    assert rc == 2 and len(err) == 1 and "broken.pdf: is damaged" in err[0]


class MarginalModel(FakeModel):
    """Also gives every sentence of a paper the same marginals over Hyp, Res, Met."""

    labels_ = ("Hyp", "Res", "Met")

    def __init__(self, score_of: dict[str, float], marg_of: dict[str, list[float]]) -> None:
        super().__init__(score_of)
        self.marg_of = marg_of

    def marginals(self, papers):
        return [np.tile(self.marg_of[p.id], (len(list(p.sentences())), 1)) for p in papers]

    def rank_with_marginals(self, papers):
        return self.rank(papers), self.marginals(papers)


def test_weak_spends_the_budget_on_uncertainty_about_rare_labels(papers) -> None:
    # stars: long and unsure between two common labels; rats2: unsure about the rare Hyp
    model = MarginalModel({"rats": 0.95, "rats2": 0.6, "stars": 0.5},
                          {"rats": [0.0, 1.0, 0.0], "rats2": [0.3, 0.7, 0.0],
                           "stars": [0.0, 0.5, 0.5]})
    assert select_papers(model, papers, 1, "total", diversity=0)[0].paper.id == "stars"
    weak = select_papers(model, papers, 3, "weak", diversity=0)
    assert [c.paper.id for c in weak] == ["rats2", "stars", "rats"]
    assert weak[-1].utility == 0.0  # sure of every label


def test_weak_label_scores_of_an_empty_pool_are_zero() -> None:
    model = MarginalModel({}, {"e": [0.5, 0.5, 0.0]})
    assert weak_label_scores(model, [Paper(id="e")]) == [0.0]


def test_help_describes_the_default_utility() -> None:
    """`coresc select --help` ranks as the option's default does (it described 'total')."""
    from coresc.commands import select as command

    default = cli.build_parser().parse_args(["select", "p", "--budget", "1"]).utility
    assert f"'{default}' (the default)" in " ".join(command.__doc__.split())
