"""The package as users get it: built and installed for real (not editable), run from
another directory through the installed ``coresc`` entry point.

pytest imports the source tree, so it cannot see what a wheel leaves out (a config, the
model, its card). Here pip builds coresc from a copy of the project and installs it into
a private folder (``--target``, dependencies taken from this environment), and every
check runs that folder's ``coresc`` script with a working directory outside the project.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# What `pip install .` needs of the project; a copy keeps build/ and *.egg-info out of it.
SOURCES = ("coresc", "pyproject.toml", "README.md", "LICENSE")

BLOCK_EXTRAS = '''
import sys
class _Blocker:  # `pip install coresc` without the experiments extra
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"yaml", "mlflow", "matplotlib"}:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, _Blocker())
'''


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("installed")
    src = tmp / "src"
    src.mkdir()
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(path, src / name)
    site = tmp / "site"
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
         "--no-build-isolation", "--no-index", "--target", str(site), str(src)],
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    work = tmp / "elsewhere"  # a working directory with no project around it
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CORESC_DATA",
                                                            "MLFLOW_TRACKING_URI",
                                                            "CORESC_MODEL")}
    env.update(PYTHONPATH=str(site), PYTHONWARNINGS="ignore")
    return {"coresc": str(site / "bin" / "coresc"), "site": site, "work": work, "env": env}


def coresc(installed: dict, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    proc = subprocess.run([installed["coresc"], *args], cwd=installed["work"],
                          env={**installed["env"], **(env or {})}, capture_output=True,
                          text=True, timeout=300)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


@pytest.mark.slow
def test_runs_the_installed_copy(installed) -> None:
    proc = subprocess.run([sys.executable, "-c", "import coresc; print(coresc.__file__)"],
                          cwd=installed["work"], env=installed["env"], capture_output=True,
                          text=True, check=True)
    assert Path(proc.stdout.strip()).is_relative_to(installed["site"])
    shipped = {p.name for p in (installed["site"] / "coresc" / "configs").glob("*.yaml")}
    assert {p.name for p in (ROOT / "coresc" / "configs").glob("*.yaml")} == shipped


@pytest.mark.slow
def test_named_experiment_found_after_install(installed, tmp_path) -> None:
    # No corpora here: the config is found, then its corpus is not.
    proc = coresc(installed, "experiment", "cra-3fold", "--check",
                  env={"CORESC_DATA": str(tmp_path)})
    assert proc.returncode == 2 and "corpus 'cra' not found" in proc.stderr, proc.stderr
    proc = coresc(installed, "experiment", "no-such-config", "--check")
    assert proc.returncode == 2 and "cra-3fold" in proc.stderr  # the known names
    own = installed["work"] / "experiments"
    own.mkdir(exist_ok=True)
    (own / "cra-3fold.yaml").write_text("corpora: {mine: my-corpus}\n"
                                        "folds: {kind: kfold, corpus: mine, k: 2}\n")
    proc = coresc(installed, "experiment", "cra-3fold", "--check",
                  env={"CORESC_DATA": str(tmp_path)})
    shutil.rmtree(own)
    assert proc.returncode == 2 and "corpus 'mine' not found" in proc.stderr  # ./experiments first


@pytest.mark.slow
def test_named_experiment_checks_on_real_data(installed, shared_data) -> None:
    proc = coresc(installed, "experiment", "cra-3fold", "--check",
                  env={"CORESC_DATA": str(shared_data)})
    assert proc.returncode == 0 and "cra-3fold: ok, 3 fold(s)" in proc.stdout, proc.stderr


@pytest.mark.slow
def test_missing_extra_is_one_line(installed) -> None:
    blocker = installed["work"].parent / "blocker"
    blocker.mkdir(exist_ok=True)
    (blocker / "sitecustomize.py").write_text(BLOCK_EXTRAS)
    env = {"PYTHONPATH": f"{blocker}{os.pathsep}{installed['site']}"}
    for args in (["experiment", "cra-3fold", "--check"], ["report", "cra-3fold"]):
        proc = coresc(installed, *args, env=env)
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.count("\n") == 1
        assert "pip install 'coresc[experiments]'" in proc.stderr
    assert not (installed["work"] / "mlflow.db").exists()


@pytest.mark.slow
def test_bundled_model_and_card_after_install(installed) -> None:
    paper = installed["work"] / "p.txt"
    paper.write_text("Introduction\n\nWe measured the weight of the rats. It rose by 20%.\n")
    proc = coresc(installed, "annotate", str(paper), "--to", "tsv")
    assert proc.returncode == 0 and proc.stdout.startswith("paper\tsid\t"), proc.stderr
    assert "\tpred" in proc.stdout.splitlines()[0]
    assert proc.stdout == coresc(installed, "annotate", str(paper), "--to", "tsv",
                                 "--model", "accurate").stdout  # the default is accurate
    proc = coresc(installed, "model-info")
    assert proc.returncode == 0 and "# Model card" in proc.stdout
    assert "coresc model `accurate`" in proc.stdout
    assert "CC BY-NC 3.0" in proc.stdout
