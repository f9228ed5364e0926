"""Every verb, given bad arguments or missing an optional extra, ends in one clear line.

Never a traceback: each case runs the command line in-process, and anything but a normal
return or argparse's exit fails the test (as a traceback would end the real command).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from coresc import cli
from coresc.extras import EXTRAS, MissingExtra, missing_module_error, require


def run(argv: list[str], capsys) -> tuple[int, str]:
    """``coresc ARGV`` in-process: (exit code, stderr). Other exceptions propagate."""
    try:
        rc = cli.main(argv)
    except SystemExit as exc:  # argparse: one error line, exit 2
        rc = exc.code
    err = capsys.readouterr().err
    assert "Traceback" not in err, err
    return rc, err


@pytest.fixture()
def files(tmp_path: Path, fixtures: Path) -> dict[str, str]:
    text = tmp_path / "p.txt"
    text.write_text("Introduction\n\nWe measured the weight of the rats. It rose.\n")
    return {"gold": str(fixtures / "io_art_small.xml"), "text": str(text),
            "missing": str(tmp_path / "no-such-file.xml"), "out": str(tmp_path / "out"),
            "a1": str(fixtures / "agreement_a1"), "a2": str(fixtures / "agreement_a2"),
            "bad": str(fixtures / "io_malformed.xml"),
            "store": f"sqlite:///{tmp_path / 'store' / 'mlflow.db'}",
            "copy": str(_copy(fixtures / "agreement_a1", tmp_path / "gold")),
            "zzz": str(_copy(fixtures / "agreement_a1", tmp_path / "zzz", "Bac", "Zzz"))}


def _copy(src: Path, dst: Path, old: str = "", new: str = "") -> Path:
    """A copy of a fixture folder (tests that could overwrite it use the copy), with
    ``type="old"`` labels made ``new``."""
    dst.mkdir()
    for f in src.iterdir():
        (dst / f.name).write_text(f.read_text().replace(f'type="{old}"', f'type="{new}"')
                                  if old else f.read_text())
    return dst / "p1_mode2.xml"


#: Per verb, argument lists that must fail with a one-line error (exit code 1 or 2).
BAD = {
    "convert": [["{missing}"], ["{bad}"], ["{gold}", "--to", "pdf"], ["{gold}", "-o", ""]],
    "train": [["{missing}", "-o", "{out}"], ["{gold}", "-o", "{out}", "--c1", "0.1"],
              ["{gold}", "-o", "{out}", "--max-iterations", "0"],
              ["{gold}", "-o", "{out}", "--features", "telepathy"], ["{gold}", "-o", ""],
              ["{gold}", "-o", "{out}", "--from", "{missing}"],
              ["{text}", "-o", "{out}", "--from", "fast"],
              ["{gold}", "-o", "{out}", "--from", "fast", "--encoder"],
              # issue 37: a bad target refused before the corpus is read; labels
              ["{gold}", "-o", "{text}"], ["{gold}", "-o", "/proc/x"],
              ["{gold}", "-o", "{text}/sub"], ["{gold}", "--from", "fast", "-o", "{text}"],
              ["{zzz}", "-o", "{out}", "--c1", "0.1", "--c2", "0.1"],
              # issue 42: NaN passed the `< 0` test that refuses -1
              ["{gold}", "-o", "{out}", "--from", "fast", "--c1", "nan", "--c2", "nan"],
              ["{gold}", "-o", "{out}", "--c1", "inf", "--c2", "0.1"],
              ["{gold}", "-o", "{out}", "--encoder", "--encoder-epochs", "nan"]],
    "annotate": [["{missing}"], ["{text}", "--min-score", "2"],
                 ["{text}", "--min-score", "nan"], ["{text}", "--model", "{missing}"],
                 ["{text}", "--domain", "art"], ["{text}", "-o", ""]],
    "evaluate": [["{missing}"], ["{text}"], ["{gold}", "--model", "{missing}"],
                 ["{gold}", "--json", " "]],
    "compare": [["fast", "{missing}", "{a1}"], ["fast", "fast", "{text}"],
                ["fast", "fast", "{gold}"], ["{a2}", "fast", "{a1}"], ["fast"],
                # issue 37: an input overwritten; -o ""
                ["fast", "fast", "{copy}", "--json", "{copy}"],
                ["fast", "fast", "{a1}", "--json", ""]],
    "experiment": [["no-such-experiment"], ["cra-3fold", "--jobs", "0"],
                   ["cra-3fold", "--max-papers", "0"], ["{gold}"]],
    "report": [["never-ran", "--tracking-uri", "{store}"], ["never-ran", "-o", ""]],
    "agreement": [["{a1}"], ["{a1}", "{missing}"]],
    "consensus": [["{a1}", "-o", "{out}"], ["{a1}", "{missing}", "-o", "{out}"],
                  ["{a1}", "{a2}", "-o", ""]],
    "view": [["{missing}", "-o", "{out}"], ["{gold}", "-o", ""]],
    "model-info": [["{missing}"], ["{a1}"]],
    "select": [["{missing}", "--budget", "2"], ["{text}", "--budget", "0"],
               ["{gold}", "--budget", "2"], ["{text}", "--budget", "2", "--diversity", "nan"],
               ["{text}", "--budget", "2", "--model", "{missing}"],
               # issue 37: the pool's own paper as -o; empty and blank names
               ["{text}", "--budget", "1", "-o", "{text}"], ["{text}", "--budget", "1", "-o", ""],
               ["{text}", "--budget", "1", "-o", " "], ["{text}", "--budget=-3"]],
    "serve": [["--workers", "0"], ["--port", "70000"], ["--max-size", "-1"],
              ["--max-size", "nan"], ["--timeout", "inf"],
              ["--model", "{missing}", "--port", "0"]],
    "review": [["{text}", "-o", "{out}"], ["{text}", "--annotator", "a b", "-o", "{out}"],
               ["{text}", "--annotator", "a", "-o", "{out}", "--host", "0.0.0.0"],
               ["{text}", "--annotator", "a", "-o", "{out}", "--port", "70000"],
               ["{missing}", "--annotator", "a", "-o", "{out}", "--port", "0"],
               ["{bad}", "--annotator", "a", "-o", "{out}", "--port", "0"],
               ["{text}", "--annotator", "a", "-o", "{gold}", "--port", "0"],
               ["{text}", "--annotator", "a", "-o", "/proc", "--port", "0"],
               ["{text}", "--annotator", "a", "-o", "{out}", "--model", "{missing}",
                "--port", "0"],
               ["{text}", "--annotator", "a", "-o", "", "--port", "0"]],
}


def test_every_verb_has_bad_argument_cases() -> None:
    assert set(BAD) == set(cli.COMMANDS)


@pytest.mark.parametrize("verb", cli.COMMANDS)
def test_bad_arguments_give_one_line(verb: str, files, capsys) -> None:
    for case in [["--no-such-option"], *BAD[verb]]:
        argv = [verb, *(a.format(**files) for a in case)]
        rc, err = run(argv, capsys)
        assert rc in (1, 2), (argv, rc, err)
        last = err.strip().splitlines()[-1]
        assert last.startswith("coresc") and "error" in last, (argv, err)
    if verb == "serve":
        return  # without arguments it serves (on port 8000) until stopped
    if verb == "review":
        assert not list(Path(files["out"]).rglob("lock"))  # every refusal let go of it
    rc, err = run([verb], capsys)  # no arguments at all
    assert rc in (0, 2), (verb, err)


@pytest.mark.parametrize("verb", cli.COMMANDS)
def test_a_usage_error_is_one_line_naming_the_help(verb: str, capsys) -> None:
    for case in (["--no-such-option"], ["--port", "x"] if verb in ("serve", "review")
                 else ["--model"] if verb != "experiment" else ["x", "--jobs", "two"]):
        rc, err = run([verb, *case], capsys)
        assert rc == 2 and len(err.strip().splitlines()) == 1, (verb, case, err)
        assert err.startswith(f"coresc {verb}: error: ") and f"coresc {verb} --help" in err


def test_bare_coresc_lists_the_verbs(capsys) -> None:
    rc, err = run([], capsys)
    assert rc == 2 and "usage: coresc" in err and all(v in err for v in cli.COMMANDS)


#: Per verb, a valid call; with the extras blocked, the verbs that need one exit 2 saying
#: which to install, the others still work.
GOOD = {
    "convert": ["{gold}", "--to", "jsonl", "-o", "{out}.jsonl"],
    "train": ["{gold}", "-o", "{out}", "--c1", "0.1", "--c2", "0.1", "--max-iterations", "3"],
    "annotate": ["{text}", "--to", "tsv", "-o", "{out}.tsv"],
    "evaluate": ["{gold}"],
    "compare": ["fast", "fast", "{a1}"],
    "experiment": ["cra-3fold", "--check"],
    "report": ["cra-3fold", "--tracking-uri", "{store}"],
    "agreement": ["{a1}", "{a2}"],
    "consensus": ["{a1}", "{a2}", "-o", "{out}"],
    "view": ["{gold}", "-o", "{out}.html"],
    "model-info": [],
    "serve": ["--model", "fast", "--port", "0"],
    "select": ["{text}", "--model", "fast", "--budget", "1"],
    "review": ["{text}", "--annotator", "a", "-o", "{out}", "--port", "0"],
}
NEEDS_EXTRA = {"experiment": "experiments", "report": "experiments", "serve": "serve",
               "review": "serve"}


@pytest.mark.parametrize("verb", cli.COMMANDS)
def test_missing_extra_one_line_naming_it(verb: str, files, capsys, monkeypatch) -> None:
    for module in (m for modules in EXTRAS.values() for m in modules):
        monkeypatch.setitem(sys.modules, module, None)  # `pip install coresc` without extras
    rc, err = run([verb, *(a.format(**files) for a in GOOD[verb])], capsys)
    if verb in NEEDS_EXTRA:
        assert rc == 2 and err.count("\n") == 1, err
        assert f"pip install 'coresc[{NEEDS_EXTRA[verb]}]'" in err
        assert not Path(files["store"][len("sqlite:///"):]).parent.exists()
    else:
        assert rc == 0, err


def test_require_and_missing_module_messages(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "yaml", None)
    with pytest.raises(MissingExtra, match=r"missing: pyyaml\); install them with: "
                                           r"pip install 'coresc\[experiments\]'"):
        require("experiments")
    exc = missing_module_error(ModuleNotFoundError("No module named 'matplotlib.pyplot'",
                                                   name="matplotlib.pyplot"))
    assert "coresc[experiments]" in str(exc) and "matplotlib" in str(exc)
    other = missing_module_error(ModuleNotFoundError("x", name="lxml"))
    assert "'lxml' is missing" in str(other) and "reinstall" in str(other)


def test_extras_match_pyproject() -> None:
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    declared = project["project"]["optional-dependencies"]
    from coresc.extras import PACKAGE_NAMES
    for extra, modules in EXTRAS.items():
        names = {d.split(">")[0].split("=")[0].split("[")[0].strip().lower()
                 for d in declared[extra]}
        assert {PACKAGE_NAMES.get(m, m) for m in modules} == names


def test_experiment_check_needs_no_mlflow(shared_data, capsys, monkeypatch) -> None:
    """--check validates configs and folds and trains nothing: MLflow and matplotlib may be
    missing (only PyYAML, to read the config, is needed)."""
    for module in ("mlflow", "matplotlib"):
        monkeypatch.setitem(sys.modules, module, None)
    rc = cli.main(["experiment", "cra-3fold", "--check", "--max-papers", "3"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert out.startswith("cra-3fold: ok, 3 fold(s)"), out
    monkeypatch.setitem(sys.modules, "yaml", None)  # without PyYAML: the one line
    rc, err = run(["experiment", "cra-3fold", "--check"], capsys)
    assert rc == 2 and "missing: pyyaml" in err and err.count("\n") == 1, err
