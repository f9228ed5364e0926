"""`coresc train` and `coresc evaluate` on another label scheme: CSAbstruct train -> dev.

Runs the real command lines (fresh processes): trains on CSAbstruct's train split with
the experiment config `csabstruct`'s settings (c1 0.1, c2 1.0, 150 iterations, default
features), then evaluates on its dev split, and prints the accuracy and macro-F1 with
their 95% intervals, the sentences and papers scored, and the training's wall and CPU
seconds (the machine's load average before, as other jobs share the cores). The
experiment runner's figure for the same split (`coresc experiment csabstruct`) is in
docs/benchmarks.md beside it.

examples:
  python benchmarks/other_scheme.py
  python benchmarks/other_scheme.py --data ../shared/data/csabstruct --timeout 900
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from coresc.config import data_dir  # noqa: E402

#: The experiment config `csabstruct`'s model settings (coresc/configs/csabstruct.yaml).
SETTINGS = ["--c1", "0.1", "--c2", "1.0", "--max-iterations", "150"]


def _coresc(argv: list[str], timeout: float) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "coresc", *argv], capture_output=True,
                          text=True, timeout=timeout)
    if done.returncode:
        raise SystemExit(f"coresc {' '.join(argv)}: failed: "
                         f"{(done.stderr.strip().splitlines() or ['?'])[-1]}")
    return done


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(data_dir() / "csabstruct"),
                    help="folder holding train.jsonl and dev.jsonl")
    ap.add_argument("--timeout", type=float, default=900, help="seconds per command")
    args = ap.parse_args(argv)
    train, dev = Path(args.data) / "train.jsonl", Path(args.data) / "dev.jsonl"
    with tempfile.TemporaryDirectory(prefix="coresc-scheme-") as tmp:
        model, scores = Path(tmp) / "model", Path(tmp) / "scores.json"
        load = os.getloadavg()[0]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.monotonic()
        note = _coresc(["train", str(train), "-o", str(model), *SETTINGS], args.timeout)
        took = time.monotonic() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        _coresc(["evaluate", "--model", str(model), str(dev), "--json", str(scores)],
                args.timeout)
        result = json.loads(scores.read_text())
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    prim = result["primary"]
    print(next((line for line in note.stderr.splitlines() if "note" in line), "no note"))
    print(f"coresc train {train} {' '.join(SETTINGS)}; coresc evaluate on {dev}")
    print(f"accuracy {100 * prim['accuracy']:.1f}% "
          f"[{100 * prim['accuracy_ci'][0]:.1f}, {100 * prim['accuracy_ci'][1]:.1f}]  "
          f"macro-F1 {prim['macro_f1']:.3f} "
          f"[{prim['macro_f1_ci'][0]:.3f}, {prim['macro_f1_ci'][1]:.3f}]  "
          f"{result['n_sentences']} sentences, {result['n_papers']} papers")
    print(f"training: {took:.0f} s wall, {cpu:.0f} s CPU, load average before {load:.2f}; "
          f"{os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())
