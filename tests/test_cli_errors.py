"""Every verb, given bad arguments or missing an optional extra, ends in one clear line.

Never a traceback: each case runs the command line in-process, and anything but a normal
return or argparse's exit fails the test (as a traceback would end the real command).
"""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest
from helpers import coresc_process, run_cli

from coresc import cli
from coresc.extras import EXTRAS, MissingExtra, missing_module_error, require


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
              # issue 42: --no-mix needs --from; a list naming nothing readable
              ["{gold}", "-o", "{out}", "--no-mix"], ["-o", "{out}"],
              ["--from-list", "{missing}", "-o", "{out}"],
              ["--from-list", "{gold}", "-o", "{out}"],
              # issue 42: NaN passed the `< 0` test that refuses -1
              ["{gold}", "-o", "{out}", "--from", "fast", "--c1", "nan", "--c2", "nan"],
              ["{gold}", "-o", "{out}", "--c1", "inf", "--c2", "0.1"],
              ["{gold}", "-o", "{out}", "--encoder", "--encoder-epochs", "nan"]],
    "annotate": [["{missing}"], ["{text}", "--min-score", "2"],
                 ["{text}", "--min-score", "nan"], ["{text}", "--model", "{missing}"],
                 ["{text}", "--domain", "art"], ["{text}", "-o", ""],
                 # issue 51: a licence that is no code; a retraction policy not known
                 ["{text}", "--licence", "CC BY!"], ["{text}", "--licence", ","],
                 ["{text}", "--retracted", "maybe"],
                 # issue 52: --to pdf of a paper not read from a PDF; --labels unknown
                 ["{text}", "--to", "pdf", "-o", "{out}"],
                 ["{text}", "--to", "pdf", "-o", "{out}", "--labels", "Xyz"]],
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
               ["--from-list", "{text}", "--annotator", "a", "-o", "{out}", "--port", "0"],
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
        rc, _, err = run_cli(argv, capsys)
        assert rc in (1, 2), (argv, rc, err)
        # one error line, the last; before it at most progress and notes of work done
        # before the problem showed (a train reads its papers, a review skips a file)
        *before, last = err.strip().splitlines()
        assert last.startswith(f"coresc {verb}: error: "), (argv, err)
        assert all(line.startswith("[coresc] ") or (line.startswith(f"coresc {verb}: ")
                                                    and ": error: " not in line)
                   for line in before), (argv, err)
    if verb == "serve":
        return  # without arguments it serves (on port 8000) until stopped
    if verb == "review":
        assert not list(Path(files["out"]).rglob("lock"))  # every refusal let go of it
    rc, out, err = run_cli([verb], capsys)  # no arguments at all
    if verb == "model-info":  # the default model's card
        assert rc == 0 and err == "" and out.startswith("# "), (out[:200], err)
        return
    assert rc == 2 and err.startswith(f"coresc {verb}: error: the following arguments are "
                                      f"required: ") and err.count("\n") == 1, err
    assert err.endswith(f"(see: coresc {verb} --help)\n"), err


def test_a_bad_model_is_refused_before_select_says_anything(files, capsys) -> None:
    rc, _, err = run_cli(["select", files["text"], "--budget", "5", "--model",
                          files["missing"]], capsys)
    assert rc == 2 and err == (f"coresc select: error: {files['missing']}: model directory "
                               f"not found\n")


@pytest.mark.parametrize("verb", cli.COMMANDS)
def test_a_usage_error_is_one_line_naming_the_help(verb: str, capsys) -> None:
    for case in (["--no-such-option"], ["--port", "x"] if verb in ("serve", "review")
                 else ["--model"] if verb != "experiment" else ["x", "--jobs", "two"]):
        rc, _, err = run_cli([verb, *case], capsys)
        assert rc == 2 and len(err.strip().splitlines()) == 1, (verb, case, err)
        assert err.startswith(f"coresc {verb}: error: ") and f"coresc {verb} --help" in err


def test_bare_coresc_lists_the_verbs(capsys) -> None:
    rc, _, err = run_cli([], capsys)
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
    rc, _, err = run_cli([verb, *(a.format(**files) for a in GOOD[verb])], capsys)
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
    rc, _, err = run_cli(["experiment", "cra-3fold", "--check"], capsys)
    assert rc == 2 and "missing: pyyaml" in err and err.count("\n") == 1, err


@pytest.mark.parametrize("verb", ["serve", "review"])
def test_a_port_in_use_is_one_line(verb: str, files, tmp_path: Path) -> None:
    """Another program listens on the port: one line naming the address, exit 2, and
    (review) no lock left on the annotator's folder. A child process: were the port
    taken by mistake, the server would serve until stopped."""
    args = ["--model", "fast"] + ([] if verb == "serve" else
                                  [files["text"], "--annotator", "a", "-o", files["out"]])
    with socket.create_server(("127.0.0.1", 0)) as other:
        port = other.getsockname()[1]
        proc = coresc_process([verb, *args, "--port", str(port)], cwd=tmp_path)
        try:
            out, err = proc.communicate(timeout=300)
        finally:
            proc.kill()
    assert proc.returncode == 2 and out == "", (out, err)
    assert err == (f"coresc {verb}: error: cannot listen on 127.0.0.1:{port}: Address "
                   f"already in use (while attempting to bind on address ('127.0.0.1', "
                   f"{port}))\n")
    assert not list(tmp_path.rglob("lock"))


@pytest.mark.parametrize("env, value, words", [
    ("CORESC_MAX_INPUT_MB", "two", "expected a number"),
    ("CORESC_MAX_INPUT_MB", "0", "must be at least 0.001"),
    ("CORESC_MAX_INPUT_MB", "nan", "must be at least 0.001"),
    ("CORESC_MAX_INPUT_MB", "1e400", "expected a finite number"),
    ("CORESC_MAX_SENTENCE_WORDS", "9", "must be at least 10"),
    ("CORESC_MAX_SENTENCE_WORDS", "many", "expected a number"),
    ("CORESC_PAPER_TIMEOUT", "-1", "must be at least 0"),
    ("CORESC_PAPER_TIMEOUT", "inf", "expected a finite number"),  # was a traceback
])
def test_a_bad_limit_in_the_environment_is_one_line(env, value, words, files, capsys,
                                                    monkeypatch) -> None:
    monkeypatch.setenv(env, value)
    rc, _, err = run_cli(["annotate", files["text"], "-o", files["out"]], capsys)
    assert rc == 2 and err == f"coresc annotate: error: {env}={value!r}: {words}\n"
    assert not Path(files["out"]).exists()


def test_limits_given_as_options_are_checked_alike(files, capsys, monkeypatch) -> None:
    for option, value, words in (("--paper-timeout", "inf", "must be a finite number"),
                                 ("--max-input-mb", "-1", "must be at least 0.001")):
        rc, _, err = run_cli(["annotate", files["text"], option, value, "-o", files["out"]],
                             capsys)
        assert rc == 2 and err == f"coresc annotate: error: {option} {value}: {words}\n"
    # a finite limit longer than the system's timer can hold is as good as none
    monkeypatch.setenv("CORESC_PAPER_TIMEOUT", "1e300")
    rc, out, err = run_cli(["annotate", files["text"], "--to", "tsv", "-q"], capsys)
    assert rc == 0 and err == "" and out.startswith("paper\t")
