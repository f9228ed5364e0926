"""Hostile model folders (issue 42, items 13 and 16-19): what the loader makes of them.

1. Every edit of ``tests/hostile.py``'s ``HOSTILE_MODEL_EDITS`` applied to a copy of the
   bundled ``fast`` model, then ``coresc annotate`` with it in a fresh process: counts
   exits that are crashes (a signal), tracebacks, silent runs (exit 0) and one-line
   refusals (exit 2, one error line naming the copy).
2. ``--garbles`` random garbles of the fast model's ``crf.crfsuite`` (200 bytes anywhere,
   offsets and ids inside its sections, moved slices), each opened and used to tag a
   paper in a forked child twice: by crfsuite directly, and after ``check_crf``. Counts
   the crashes of each.
3. What the checks cost at load: ``check_crf``, the schema and the records of the fast
   and accurate models (best of ``--repeat``), and whole loads by this checkout and by
   ``--code``'s (best of three rounds of ``--repeat``, alternating).

    python benchmarks/hostile_models.py
    python benchmarks/hostile_models.py --garbles 2000 --code ../old-checkout
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from hostile import (  # noqa: E402
    HOSTILE_MODEL_EDITS,
    PYTHON_ERROR,
    REFUSED,
    TAGGED,
    garble_crf,
    tag_in_child,
)

from coresc.model import CoreSCClassifier  # noqa: E402
from coresc.model.crffile import check_crf  # noqa: E402
from coresc.model.integrity import read_recorded  # noqa: E402
from coresc.model.storage import BUNDLED_DIR, read_meta  # noqa: E402
from coresc.readers import read_file  # noqa: E402


def edits(tmp: Path, code: Path) -> Counter:
    text = tmp / "p.txt"
    text.write_text("Introduction\n\nWe measured the weight of the rats. It rose.\n")
    env = {**os.environ, "PYTHONPATH": str(code)}
    out: Counter = Counter()
    for i, (name, damage) in enumerate(HOSTILE_MODEL_EDITS.items()):
        d = tmp / f"m{i}"
        shutil.copytree(BUNDLED_DIR / "fast", d)
        damage(d)
        done = subprocess.run([sys.executable, "-m", "coresc", "annotate", str(text),
                               "--model", str(d)], capture_output=True, text=True, env=env,
                              cwd=tmp)  # not this checkout: `-m` imports from the cwd
        errors = [x for x in done.stderr.splitlines() if "error" in x]
        if done.returncode < 0:
            kind = "crash"
        elif "Traceback" in done.stderr:
            kind = "traceback"
        elif done.returncode == 0:
            kind = "silent (exit 0)"
        elif done.returncode == 2 and len(errors) == 1 and str(d) in errors[0]:
            kind = "one line"
        else:
            kind = f"other (exit {done.returncode})"
        out[kind] += 1
        print(f"  {name:40} {kind}")
    return out


def garbles(n: int) -> dict[str, Counter]:
    model = CoreSCClassifier.load(BUNDLED_DIR / "fast")
    paper = read_file(ROOT / "tests" / "fixtures" / "io_art_small.xml")
    x = model.featurize(paper, model.domains_)[0]
    labels = list(model.labels_)
    ends = {"crfsuite alone": Counter(), "after check_crf": Counter()}
    names = {TAGGED: "tagged", REFUSED: "refused by the check", PYTHON_ERROR: "Python error",
             None: "hang"}
    for seed in range(n):
        data = garble_crf(model._crf_bytes, seed)
        for counts, checked in zip(ends.values(), (False, True), strict=True):
            counts[names.get(tag_in_child(data, x, labels, checked), "crash")] += 1
    return ends


_LOAD = """
import sys, time
from coresc.model import CoreSCClassifier
best = 1e9
for _ in range({repeat}):
    t = time.perf_counter()
    CoreSCClassifier.load(sys.argv[1])
    best = min(best, time.perf_counter() - t)
print(best)
"""


def _load_time(code: Path, d: Path, repeat: int) -> float:
    """Best of ``repeat`` loads of model ``d`` by the coresc of checkout ``code``."""
    done = subprocess.run([sys.executable, "-c", _LOAD.format(repeat=repeat), str(d)],
                          capture_output=True, text=True, check=True, cwd=d,
                          env={**os.environ, "PYTHONPATH": str(code)})
    return float(done.stdout)


def costs(repeat: int, code: Path) -> None:
    for name in ("fast", "accurate"):
        d = BUNDLED_DIR / name
        if not (d / "config.json").is_file():
            continue
        meta = read_meta(d)
        best = {"schema (read_meta)": 1e9, "records (read_recorded)": 1e9, "check_crf": 1e9}
        for _ in range(repeat):
            t = time.perf_counter()
            read_meta(d)
            best["schema (read_meta)"] = min(best["schema (read_meta)"],
                                             time.perf_counter() - t)
            t = time.perf_counter()
            files = read_recorded(d, meta["files"])
            best["records (read_recorded)"] = min(best["records (read_recorded)"],
                                                  time.perf_counter() - t)
            t = time.perf_counter()
            check_crf(d / "crf.crfsuite", files["crf.crfsuite"], meta["labels"])
            best["check_crf"] = min(best["check_crf"], time.perf_counter() - t)
        # whole loads alternate between the two checkouts, so both meet the same load
        loads: dict[Path, float] = {}
        for _ in range(3):
            for where in dict.fromkeys((ROOT, code)):
                loads[where] = min(loads.get(where, 1e9), _load_time(where, d, repeat))
        print(f"  {name}: " + ", ".join(f"{k} {1000 * v:.0f} ms" for k, v in best.items())
              + "; whole load " + ", ".join(f"{1000 * v:.0f} ms ({w})" for w, v in loads.items()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--garbles", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--code", type=Path, default=ROOT,
                        help="the checkout whose `coresc annotate` meets the edits (another "
                             "one, e.g. a worktree of an older commit, for a before figure)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        print(f"{len(HOSTILE_MODEL_EDITS)} hostile edits of the fast model, "
              f"`coresc annotate` ({args.code}) with each:")
        print(f"  totals: {dict(edits(Path(tmp), args.code))}")
    print(f"{args.garbles} garbled crf.crfsuite files, tagging a paper in a child:")
    for title, counts in garbles(args.garbles).items():
        print(f"  {title}: {dict(counts)}")
    print(f"load-time checks (best of {args.repeat}):")
    costs(args.repeat, args.code)
    return 0


if __name__ == "__main__":
    sys.exit(main())
