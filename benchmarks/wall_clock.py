"""How long the things take whose time the tests once bounded (issue 44 moved the numbers
here: on a loaded machine a wall-clock limit in a test fails for no fault of the code).

Each figure is the median wall-clock time of ``--runs`` runs, in seconds:

* ``mlflow-refused``: the MLflow reachability probe against a port that refuses;
* ``mlflow-silent``: the probe (timeout 0.5 s) against a server that accepts and never
  answers;
* ``mlflow-cli``: ``coresc experiment cra-3fold --max-papers 3`` with the tracking
  server refusing (reading 3 papers, then the probe's one line);
* ``grobid-timeout``: reading a PDF with a GROBID client whose timeout is 0.3 s, the
  server (tests/fake_grobid.py) never answering in time;
* ``tiny-experiment``: tests/helpers.py's tiny experiment (CRA, 4 papers, 2 folds) twice,
  with 2 jobs and then 1, into a fresh local MLflow store;
* ``gold-round-trip``: every ART and CRA gold paper read, written as mode2 with its gold
  labels, and read back.

The splitter's speed is benchmarks/splitter.py's, the API's memory over repeated passes
benchmarks/api_memory.py's, and the encoder's memory on a runaway sentence
benchmarks/robustness_scaling.py's (``--peak sentence 4 --model accurate``).

    python benchmarks/wall_clock.py                 # every figure, 3 runs each
    python benchmarks/wall_clock.py --only grobid-timeout mlflow-silent --runs 5
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from fake_grobid import FakeGrobid  # noqa: E402
from helpers import pdf_pairs, refused_port, tiny_experiment  # noqa: E402

from coresc.config import data_dir  # noqa: E402
from coresc.errors import CorescError  # noqa: E402


def mlflow_refused() -> None:
    from coresc.tracking import check_reachable

    with refused_port() as port, contextlib.suppress(CorescError):
        check_reachable(f"http://127.0.0.1:{port}")


def mlflow_silent() -> None:
    from coresc.tracking import check_reachable

    with socket.socket() as srv:
        srv.bind(("127.0.0.1", 0))
        srv.listen(5)
        with contextlib.suppress(CorescError):
            check_reachable(f"http://127.0.0.1:{srv.getsockname()[1]}", timeout=0.5)


def mlflow_cli() -> None:
    from coresc.cli import main

    with refused_port() as port, contextlib.redirect_stderr(io.StringIO()):
        os.environ["MLFLOW_TRACKING_URI"] = f"http://127.0.0.1:{port}"
        try:
            assert main(["experiment", "cra-3fold", "--max-papers", "3"]) == 2
        finally:
            del os.environ["MLFLOW_TRACKING_URI"]


def grobid_timeout() -> None:
    from coresc.readers import read_file
    from coresc.readers.grobid import GrobidClient

    with tempfile.TemporaryDirectory() as tmp:
        pairs = pdf_pairs(Path(tmp))
        with FakeGrobid(pairs, "slow:600") as server, contextlib.suppress(CorescError):
            read_file(pairs / "small.pdf", grobid=GrobidClient(server.url, timeout=0.3))


def tiny_experiments() -> None:
    from coresc.experiments import run_experiment
    from coresc.tracking import TrackingSettings

    with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stderr(io.StringIO()):
        store = TrackingSettings(f"sqlite:///{tmp}/mlflow.db", "bench",
                                 (Path(tmp) / "artifacts").as_uri())
        run_experiment(tiny_experiment("tiny"), jobs=2, settings=store, max_papers=4)
        run_experiment(tiny_experiment("tiny"), jobs=1, settings=store, max_papers=4,
                       log_models=False)


def gold_round_trip() -> None:
    from coresc.readers import iter_input_files, read_file
    from coresc.readers.presplit import read_presplit
    from coresc.writers.mode2 import render_mode2
    from coresc.xmlsafe import parse_xml

    data = data_dir()
    for f in iter_input_files([data / "art-corpus", data / "cra-corpus"]):
        [paper] = read_file(f)
        read_presplit(f.name, parse_xml(f.name, render_mode2(paper, labels="gold")))


FIGURES: dict[str, tuple[Callable[[], None], bool]] = {  # name: (run, needs the data)
    "mlflow-refused": (mlflow_refused, False),
    "mlflow-silent": (mlflow_silent, False),
    "mlflow-cli": (mlflow_cli, True),
    "grobid-timeout": (grobid_timeout, False),
    "tiny-experiment": (tiny_experiments, True),
    "gold-round-trip": (gold_round_trip, True),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=FIGURES, default=list(FIGURES))
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    has_data = (data_dir() / "art-corpus").is_dir()
    print(f"{'figure':<16} {'median s':>9} {'min s':>7} {'max s':>7}  runs")
    for name in args.only:
        run, needs_data = FIGURES[name]
        if needs_data and not has_data:
            print(f"{name:<16} skipped: no shared data at {data_dir()}")
            continue
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
        print(f"{name:<16} {statistics.median(times):9.2f} {min(times):7.2f} "
              f"{max(times):7.2f}  {args.runs}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
