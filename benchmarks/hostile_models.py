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
   and accurate models (best of ``--repeat``).

    python benchmarks/hostile_models.py
    python benchmarks/hostile_models.py --garbles 2000 --code ../old-checkout
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from hostile import HOSTILE_MODEL_EDITS  # noqa: E402

from coresc.model import CoreSCClassifier  # noqa: E402
from coresc.model.crf import crf_tag, open_tagger  # noqa: E402
from coresc.model.crffile import check_crf  # noqa: E402
from coresc.model.integrity import ModelError, read_recorded  # noqa: E402
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


def _garble(data: bytes, seed: int) -> bytes:
    rng = random.Random(seed)
    sections = struct.unpack_from("<4sI4s9I", data)[7:]
    garbled = bytearray(data)
    if seed % 3 == 0:
        for _ in range(200):
            garbled[rng.randrange(len(garbled))] = rng.randrange(256)
    elif seed % 3 == 1:
        start = rng.choice(sections)
        for _ in range(rng.randint(1, 20)):
            struct.pack_into("<I", garbled, start + 4 * rng.randrange(3000),
                             rng.choice([0, 2 ** 32 - 1, rng.randrange(2 ** 32),
                                         rng.randrange(len(data))]))
    else:
        n = rng.randint(4, 400)
        src, dst = rng.randrange(len(data) - n), rng.randrange(len(data) - n)
        garbled[dst:dst + n] = data[src:src + n]
    return bytes(garbled)


def _child(data: bytes, x, labels, checked: bool) -> None:
    if checked:
        try:
            check_crf(Path("crf.crfsuite"), data, labels)
        except ModelError:
            os._exit(3)
    try:
        crf_tag(open_tagger(data), x, labels)
    except Exception:
        os._exit(5)
    os._exit(0)


def garbles(n: int) -> dict[str, Counter]:
    model = CoreSCClassifier.load(BUNDLED_DIR / "fast")
    paper = read_file(ROOT / "tests" / "fixtures" / "io_art_small.xml")
    x = model.featurize(paper, model.domains_)[0]
    labels = list(model.labels_)
    context = multiprocessing.get_context("fork")
    ends = {"crfsuite alone": Counter(), "after check_crf": Counter()}
    names = {0: "tagged", 3: "refused by the check", 5: "Python error", None: "hang"}
    for seed in range(n):
        data = _garble(model._crf_bytes, seed)
        for counts, checked in zip(ends.values(), (False, True), strict=True):
            child = context.Process(target=_child, args=(data, x, labels, checked))
            child.start()
            child.join(120)
            if child.exitcode is None:
                child.kill()
            counts[names.get(child.exitcode, "crash")] += 1
    return ends


def costs(repeat: int) -> None:
    for name in ("fast", "accurate"):
        d = BUNDLED_DIR / name
        if not (d / "config.json").is_file():
            continue
        meta = read_meta(d)
        best = {"schema (read_meta)": 1e9, "records (read_recorded)": 1e9,
                "check_crf": 1e9, "whole load": 1e9}
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
            t = time.perf_counter()
            CoreSCClassifier.load(d)
            best["whole load"] = min(best["whole load"], time.perf_counter() - t)
        print(f"  {name}: " + ", ".join(f"{k} {1000 * v:.0f} ms" for k, v in best.items()))


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
    costs(args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
