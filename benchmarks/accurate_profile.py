"""Where `accurate`'s time and memory go, and what issue 41 changed (docs/benchmarks.md).

Every figure is given beside the bundled `fast` model's, measured in the same run, since
this 2-core machine is shared: ratios to `fast` and CPU seconds (getrusage) stand for a
quiet core where wall seconds do not. The load average is printed with each table.

* ``profile``: in this process, a breakdown of annotating one paper
  (``jats/elife-02833-v2.xml``, the model loaded cold) and a batch (the first 20 OA-STM
  source papers): model loading (reading and hashing files, the CRF, the one-vs-rest
  layer, onnxruntime's session), reading the XML, features, tokenising, the encoder's
  onnxruntime runs (with the share of padding in what they ran, and the word pieces read
  only as context: the heading before each window and the sentence before its first),
  the CRF, the rest. Run it with ``PYTHONPATH`` on another copy of the code for that
  code's breakdown.
* ``targets``: issue 41's table from the CLI, each command a fresh process: batch CPU
  seconds and peak memory of ``coresc annotate PAPERS --jobs 1 --to jsonl``, one cold
  paper's wall time and peak memory (``coresc annotate PAPER -o OUT.xml``), for each
  model, in turns, median of ``--rounds``. ``--baseline DIR`` runs the same commands
  on the code in DIR too (a copy made with ``git archive COMMIT coresc | tar -x -C DIR``).
* ``jobs``: wall and CPU seconds of ``--jobs 1`` and ``--jobs 2`` on ``--papers``
  OA-STM papers, each of ``--models``, in turns; ``--one-core`` runs ``--jobs 1`` on
  one core, so that the speed-up is that of two workers over one.
* ``equal``: labels and raw scores (``Prediction.score``, not the rounded JSONL) of
  ``--baseline DIR``'s code and this one's on ``--papers`` OA-STM papers and the eLife
  paper, with `accurate`: the labels must be the same and the scores within 1e-5.
* ``encoder``: the encoder alone (``predict_paper`` over ``--papers`` OA-STM papers,
  read and loaded first), CPU and wall seconds, on one thread and on onnxruntime's
  default (a thread a core), for ``--baseline DIR``'s code and this one, in turns.
* ``ops``: onnxruntime's own profile of the encoder on the cold paper, time per
  operator, on a session with onnxruntime's default options and on coresc's
  (:func:`coresc.model.encoder.open_session`: its options, and the fusions it leaves
  out), one thread.
* ``fusions``: the int8 encoder exported with every fusion of onnxruntime's transformer
  optimiser (before) and with residual + layer norm and the GELUs' biases apart (now,
  :data:`coresc.model.encoder.UNFUSED`), CPU seconds over the cold paper on one
  thread, and one window's ``SkipLayerNormalization`` against ``Add`` + ``LayerNorm``
  (needs the ``train`` extra and the base weights).
* ``int8``: the encoder with int8 weights (onnxruntime's dynamic quantisation) against
  float32 on the same papers, one thread: CPU seconds and how far the outputs move
  (needs the ``onnx`` package, in the train extra). For a float bundled encoder only (the
  one before issue 41's new model); ``benchmarks/int8_error.py`` compares the exports of
  one fine-tuned encoder.

    python benchmarks/accurate_profile.py profile
    python benchmarks/accurate_profile.py targets --rounds 3 --baseline /tmp/i41base
    python benchmarks/accurate_profile.py jobs --rounds 2 --baseline /tmp/i41base
    python benchmarks/accurate_profile.py jobs --rounds 3 --papers 108 --models fast \
        --baseline /tmp/i41base
    python benchmarks/accurate_profile.py jobs --rounds 2 --models accurate,fast --one-core
    python benchmarks/accurate_profile.py equal --papers 20 --baseline /tmp/i41base
    python benchmarks/accurate_profile.py encoder --papers 5 --rounds 3 --baseline /tmp/i41base
    python benchmarks/accurate_profile.py ops
    python benchmarks/accurate_profile.py fusions --rounds 5
    python benchmarks/accurate_profile.py int8 --papers 4
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path

from coresc.config import data_dir

ROOT = Path(__file__).resolve().parent.parent
COLD_PAPER = "jats/elife-02833-v2.xml"


def batch_papers(n: int = 20) -> list[Path]:
    return sorted((data_dir() / "oa-stm" / "source-xml").glob("*.xml"))[:n]


def load() -> str:
    return open("/proc/loadavg").read().split()[0] if Path("/proc/loadavg").exists() else "?"


def cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


# ---------------------------------------------------------------- profile (in process)


class Clock:
    """CPU seconds per named step, from wrappers put around functions; a step's own
    time, less the steps run inside it."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.tokens = {"ran": 0, "real": 0}
        self._inner: list[float] = []  # per open step, time of the steps inside it

    def wrap(self, owner, name: str, step: str) -> None:
        func = getattr(owner, name)

        def timed(*args, **kwargs):
            self._inner.append(0.0)
            t = cpu()
            try:
                return func(*args, **kwargs)
            finally:
                spent = cpu() - t
                self.seconds[step] += spent - self._inner.pop()
                if self._inner:
                    self._inner[-1] += spent

        setattr(owner, name, timed)

    @contextmanager
    def step(self, name: str):
        t = cpu()
        yield
        self.seconds[name] += cpu() - t


def _instrument(clock: Clock) -> None:
    import numpy as np

    from coresc.model import analyses, classifier, encoder, persist, storage

    clock.wrap(analyses, "analyse", "tokens and POS tags")
    clock.wrap(classifier, "paper_features", "features (n-grams, verbs, ...)")
    clock.wrap(encoder, "paper_units", "encoder: tokenising (word pieces, windows)")
    clock.wrap(classifier, "crf_tag", "CRF")
    clock.wrap(classifier, "ovr_scores", "secondary labels (one-vs-rest)")
    clock.wrap(persist, "read_recorded", "load: reading and hashing files")
    clock.wrap(storage, "open_tagger", "load: opening the CRF")
    clock.wrap(storage, "load_ovr", "load: one-vs-rest weights")
    clock.wrap(encoder.OnnxEncoder, "__init__", "load: onnxruntime session, tokenizer")
    run = encoder.OnnxEncoder._run

    def counted(self, ids, mask, types, pool):
        clock.tokens["ran"] += int(ids.size)
        clock.tokens["real"] += int(np.asarray(mask).sum())
        return run(self, ids, mask, types, pool)

    # runs go side by side in threads (CPU seconds are the process's): timed as a whole
    encoder.OnnxEncoder._run = counted
    clock.wrap(encoder.OnnxEncoder, "predict_units", "encoder: onnxruntime runs")


def _context_tokens(model, papers) -> tuple[int, int]:
    """(word pieces read, word pieces inside a scored sentence's span) of the papers."""
    from coresc.model.encoder import paper_units

    enc = model._encoder
    read = scored = 0
    for paper in papers:
        units, _ = paper_units(enc.tokenizer, paper, enc.settings)
        read += sum(len(u[0]) for u in units)
        scored += sum(b - a for u in units for a, b in u[2])
    return read, scored


def profile(args) -> None:
    clock = Clock()
    t = cpu()
    from coresc.model import CoreSCClassifier
    from coresc.model.storage import resolve_model
    from coresc.readers import read_file
    clock.seconds["imports (coresc, numpy, scipy)"] = cpu() - t
    _instrument(clock)
    t = cpu()
    import onnxruntime  # noqa: F401
    import tokenizers  # noqa: F401
    clock.seconds["imports (onnxruntime, tokenizers)"] = cpu() - t
    print(f"load average {load()} at the start; CPU seconds of this process (threads: "
          f"{args.threads}, 0 = onnxruntime's default)")
    for what, paths in (("one cold paper", [data_dir() / COLD_PAPER]),
                        ("batch of 20 OA-STM papers", batch_papers(args.papers))):
        rows = {}
        for name in ("accurate", "fast"):
            clock.seconds = defaultdict(float, {k: v for k, v in clock.seconds.items()
                                                if k.startswith("imports")})
            clock.tokens = {"ran": 0, "real": 0}
            t = cpu()
            model = CoreSCClassifier.load(resolve_model(name), threads=args.threads)
            clock.seconds["load: the rest"] = cpu() - t - sum(
                v for k, v in clock.seconds.items() if k.startswith("load:"))
            papers = []
            with clock.step("reading XML"):
                for p in paths:
                    papers.extend(read_file(p))
            t = cpu()
            for paper in papers:
                model.annotate([paper])
            total = cpu() - t
            inner = sum(v for k, v in clock.seconds.items()
                        if not k.startswith(("imports", "load", "reading")))
            clock.seconds["the rest (decoding, calibration, ...)"] = total - inner
            rows[name] = dict(clock.seconds)
            if name == "accurate":
                read, scored = _context_tokens(model, papers)
                tok = dict(clock.tokens)
        n = sum(len(p.sentences()) for p in papers)
        _print_profile(what, n, rows, tok, read, scored)
    t = cpu()
    d = resolve_model("accurate")
    for f in d.iterdir():
        if f.is_file():
            hashlib.sha256(f.read_bytes()).hexdigest()
    print(f"\nreading and hashing every file of accurate/ "
          f"({sum(f.stat().st_size for f in d.iterdir()) / 1e6:.1f} MB): {cpu() - t:.3f} CPU s")


def _print_profile(what, n, rows, tok, read, scored) -> None:
    acc, fast = rows["accurate"], rows["fast"]
    ta, tf = sum(acc.values()), sum(fast.values())
    print(f"\n{what}: {n} sentences, load average {load()}")
    print("| step | accurate CPU s | share | fast CPU s |")
    print("| --- | ---: | ---: | ---: |")
    for step in sorted(set(acc) | set(fast), key=lambda k: -acc.get(k, 0)):
        a, f = acc.get(step, 0.0), fast.get(step, 0.0)
        print(f"| {step} | {a:.3f} | {100 * a / ta:.1f}% | {f:.3f} |")
    print(f"| **all** | **{ta:.2f}** | | **{tf:.2f}** (accurate / fast {ta / tf:.1f}x) |")
    pad = 1 - tok["real"] / max(tok["ran"], 1)
    print(f"encoder input: {tok['ran']:,} word pieces run, of which padding {pad:.1%}; "
          f"{read:,} read, of which {read - scored:,} ({(read - scored) / read:.1%}) "
          f"only as context (heading, separators, the sentence before a window)")


# ---------------------------------------------------------------- targets, jobs (CLI)


def _env(code: Path | None) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(code or ROOT)
    env.pop("CORESC_MODEL", None)
    return env


#: Where the commands run: ``python -m`` and ``-c`` put their working folder before
#: PYTHONPATH, so a command run in this checkout would import this code whatever
#: PYTHONPATH names.
ELSEWHERE = tempfile.gettempdir()


def command(argv: list[str], code: Path | None = None,
            cores: set[int] | None = None) -> dict[str, float]:
    """Wall and CPU seconds and peak memory (MB) of one fresh ``coresc`` process (with
    its worker processes' CPU, not their memory), on ``cores`` (None: all)."""
    t0 = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    pin = None if cores is None else (lambda: os.sched_setaffinity(0, cores))
    proc = subprocess.Popen([sys.executable, "-m", "coresc", *argv], env=_env(code),
                            cwd=ELSEWHERE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            preexec_fn=pin)
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode()
    proc.stderr.close()
    if status != 0:
        raise SystemExit(f"failed: coresc {' '.join(argv)}\n{err}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return {"wall": wall, "cpu": total, "peak": ru.ru_maxrss / 1024}


def _codes(args) -> dict[str, Path | None]:
    """The code to run by name: ``--baseline``'s (if given), then this one."""
    codes: dict[str, Path | None] = {"this code": None}
    return {"baseline": Path(args.baseline), **codes} if args.baseline else codes


def _turns(args, models: list[str]):
    """``(code name, code, model)`` in turns, ``--rounds`` times."""
    for _ in range(args.rounds):
        for code_name, code in _codes(args).items():
            for model in models:
                yield code_name, code, model


def targets(args) -> None:
    papers = [str(p) for p in batch_papers(args.papers)]
    cold = str(data_dir() / COLD_PAPER)
    codes = _codes(args)
    res: dict = defaultdict(list)
    loads = [load()]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        for code_name, code, model in _turns(args, ["accurate", "fast"]):
            res[code_name, model, "batch"].append(command(
                ["annotate", *papers, "--jobs", "1", "--to", "jsonl", "--model",
                 model, "-o", str(out) + ".jsonl"], code))
            res[code_name, model, "cold"].append(command(
                ["annotate", cold, "--model", model, "-o", str(out) + ".xml"], code))
            loads.append(load())
    med = {k: {m: statistics.median(r[m] for r in v) for m in v[0]} for k, v in res.items()}
    print(f"{len(papers)} OA-STM papers (--jobs 1 --to jsonl) and {COLD_PAPER} cold; median "
          f"of {args.rounds}; load average {', '.join(loads)}")
    print("| code | batch CPU s accurate / fast | ratio | cold wall s accurate / fast | ratio "
          "| accurate peak MB batch / cold | fast peak MB batch / cold |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for code_name in codes:
        a_b, f_b = med[code_name, "accurate", "batch"], med[code_name, "fast", "batch"]
        a_c, f_c = med[code_name, "accurate", "cold"], med[code_name, "fast", "cold"]
        print(f"| {code_name} | {a_b['cpu']:.1f} / {f_b['cpu']:.1f} | "
              f"{a_b['cpu'] / f_b['cpu']:.1f}x | {a_c['wall']:.2f} / {f_c['wall']:.2f} | "
              f"{a_c['wall'] / f_c['wall']:.2f}x | {a_b['peak']:.0f} / {a_c['peak']:.0f} | "
              f"{f_b['peak']:.0f} / {f_c['peak']:.0f} |")
    print("cold CPU s accurate / fast: " + "; ".join(
        f"{c}: {med[c, 'accurate', 'cold']['cpu']:.2f} / {med[c, 'fast', 'cold']['cpu']:.2f}"
        for c in codes))


def jobs(args) -> None:
    papers = [str(p) for p in batch_papers(args.papers)]
    codes = _codes(args)
    res: dict = defaultdict(list)
    loads = [load()]
    with tempfile.TemporaryDirectory() as tmp:
        for code_name, code, model in _turns(args, args.models.split(",")):
            for n in (1, 2):
                one_core = {min(os.sched_getaffinity(0))} if n == 1 and args.one_core \
                    else None
                res[code_name, model, n].append(command(
                    ["annotate", *papers, "--jobs", str(n), "--to", "jsonl", "--model",
                     model, "-o", str(Path(tmp) / "out.jsonl")], code, one_core))
            loads.append(load())
    print(f"{len(papers)} OA-STM papers, `coresc annotate PAPERS --jobs N --to jsonl -o OUT` "
          f"(whole command, start-up included{'; --jobs 1 on one core' * args.one_core});"
          f" median of {args.rounds}; load average {', '.join(loads)}")
    print("| code | model | --jobs 1 wall s (CPU s) | --jobs 2 wall s (CPU s) | speed-up |")
    print("| --- | --- | ---: | ---: | ---: |")
    for code_name in codes:
        for model in args.models.split(","):
            one, two = ([statistics.median(r[m] for r in res[code_name, model, n])
                         for m in ("wall", "cpu")] for n in (1, 2))
            print(f"| {code_name} | {model} | {one[0]:.1f} ({one[1]:.1f}) | "
                  f"{two[0]:.1f} ({two[1]:.1f}) | {one[0] / two[0]:.2f}x |")


# ---------------------------------------------------------------- equal (old vs new)

_DUMP = """
import json, sys
from coresc.model import CoreSCClassifier
from coresc.model.storage import resolve_model
from coresc.readers import read_file
model = CoreSCClassifier.load(resolve_model("accurate"), threads=1)
out = []
for path in sys.argv[1:]:
    for paper in read_file(path):
        model.annotate([paper])
        out.append([[[p.label, p.score] for p in s.pred] for s in paper.sentences()])
json.dump(out, sys.stdout)
"""
_WHICH = "import coresc; print('the code in', coresc.__file__, file=sys.stderr)\n"


def dump_predictions(paths: list[str], code: Path | None) -> list:
    res = subprocess.run([sys.executable, "-c", _DUMP + _WHICH, *paths], env=_env(code),
                         cwd=ELSEWHERE, capture_output=True, text=True, check=True)
    print(f"predictions of {res.stderr.strip()}")
    return json.loads(res.stdout)


def compare_predictions(old: list, new: list) -> tuple[int, int, float]:
    """(sentences, sentences whose labels differ, largest score difference)."""
    n = differ = 0
    worst = 0.0
    for p_old, p_new in zip(old, new, strict=True):
        for s_old, s_new in zip(p_old, p_new, strict=True):
            n += 1
            if [x[0] for x in s_old] != [x[0] for x in s_new]:
                differ += 1
                continue
            worst = max([worst, *(abs(a[1] - b[1]) for a, b in zip(s_old, s_new, strict=True))])
    return n, differ, worst


def equal(args) -> None:
    if not args.baseline:
        raise SystemExit("equal needs --baseline DIR (the old code)")
    paths = [str(data_dir() / COLD_PAPER)] + [str(p) for p in batch_papers(args.papers)]
    old = dump_predictions(paths, Path(args.baseline))
    new = dump_predictions(paths, None)
    n, differ, worst = compare_predictions(old, new)
    print(f"{len(paths)} papers, {n} sentences: labels differ on {differ}; largest score "
          f"difference {worst:.2e} ({'within' if worst <= 1e-5 and not differ else 'NOT'} "
          f"1e-5, same labels)")


# ---------------------------------------------------------------- encoder (subprocesses)

_ENCODER = """
import json, resource, sys, time
from coresc.model import CoreSCClassifier
from coresc.model.storage import resolve_model
from coresc.readers import read_file
threads, paths = int(sys.argv[1]), sys.argv[2:]
papers = [p for x in paths for p in read_file(x)]
enc = CoreSCClassifier.load(resolve_model("accurate"), threads=threads)._encoder
cpu = lambda: sum(resource.getrusage(resource.RUSAGE_SELF)[:2])
t, w = cpu(), time.perf_counter()
for paper in papers:
    enc.predict_paper(paper)
print(json.dumps({"cpu": cpu() - t, "wall": time.perf_counter() - w,
                  "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def encoder(args) -> None:
    if not args.baseline:
        raise SystemExit("encoder needs --baseline DIR (the old code)")
    paths = [str(p) for p in batch_papers(args.papers)]
    codes = _codes(args)
    res: dict = defaultdict(list)
    loads = [load()]
    for name, code, threads in _turns(args, [1, 0]):
        out = subprocess.run([sys.executable, "-c", _ENCODER, str(threads), *paths],
                             env=_env(code), cwd=ELSEWHERE, capture_output=True, text=True,
                             check=True)
        res[name, threads].append(json.loads(out.stdout))
        loads.append(load())
    print(f"the encoder alone on {len(paths)} OA-STM papers; median of {args.rounds}; load average "
          f"{', '.join(loads)}")
    print("| code | threads | CPU s | wall s | peak MB |")
    print("| --- | --- | ---: | ---: | ---: |")
    for threads in (1, 0):
        for name in codes:
            m = {k: statistics.median(r[k] for r in res[name, threads])
                 for k in ("cpu", "wall", "peak")}
            print(f"| {name} | {threads or 'default (a core each)'} | {m['cpu']:.2f} | "
                  f"{m['wall']:.2f} | {m['peak']:.0f} |")


# ---------------------------------------------------------------- ops


def ops(args) -> None:
    import onnxruntime as ort

    from coresc.model import CoreSCClassifier
    from coresc.model.encoder import UNFUSED_AT_LOAD, session_options
    from coresc.model.storage import resolve_model
    from coresc.readers import read_file

    papers = read_file(data_dir() / COLD_PAPER)
    enc = CoreSCClassifier.load(resolve_model("accurate"), threads=1)._encoder
    plain = ort.SessionOptions()
    plain.intra_op_num_threads = plain.inter_op_num_threads = 1
    shares = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, options, off in (("default", plain, []),
                                   ("coresc", session_options(ort, 1), list(UNFUSED_AT_LOAD))):
            options.enable_profiling = True
            options.profile_file_prefix = str(Path(tmp) / "prof")
            enc.session = ort.InferenceSession(str(resolve_model("accurate") / "encoder.onnx"),
                                               options, providers=["CPUExecutionProvider"],
                                               disabled_optimizers=off)
            for paper in papers:
                enc.predict_paper(paper)
            per_op: dict[str, float] = defaultdict(float)
            for e in json.loads(Path(enc.session.end_profiling()).read_text()):
                if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
                    per_op[e["args"]["op_name"]] += e["dur"] / 1e6
            shares[name] = per_op
    print(f"{COLD_PAPER}, the encoder on one thread, onnxruntime's profile; load average "
          f"{load()}")
    print("| operator | default options: s | share | coresc's: s | share |")
    print("| --- | ---: | ---: | ---: | ---: |")
    a, b = shares["default"], shares["coresc"]
    ta, tb = sum(a.values()), sum(b.values())
    for op in sorted(set(a) | set(b), key=lambda o: -a.get(o, 0.0)):
        x, y = a.get(op, 0.0), b.get(op, 0.0)
        if max(x, y) >= 0.001:
            print(f"| {op} | {x:.3f} | {100 * x / ta:.1f}% | {y:.3f} | {100 * y / tb:.1f}% |")
    print(f"| all | {ta:.3f} | | {tb:.3f} | |")


# ---------------------------------------------------------------- fusions


def _residual_norm(fused: bool) -> bytes:
    """x + bias + skip, then a layer norm, over one window (256 x 384): as onnxruntime's
    ``SkipLayerNormalization`` or as an ``Add`` pair and a ``LayerNormalization``."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    weights = [numpy_helper.from_array(rng.random(384, dtype=np.float32), n)
               for n in ("bias", "gamma", "beta")]
    io = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, 256, 384]) for n in "xsy"]
    if fused:
        nodes = [helper.make_node("SkipLayerNormalization", ["x", "s", "gamma", "beta", "bias"],
                                  ["y"], domain="com.microsoft", epsilon=1e-12)]
    else:
        nodes = [helper.make_node("Add", ["x", "bias"], ["xb"]),
                 helper.make_node("Add", ["xb", "s"], ["t"]),
                 helper.make_node("LayerNormalization", ["t", "gamma", "beta"], ["y"],
                                  axis=-1, epsilon=1e-12)]
    model = helper.make_model(helper.make_graph(nodes, "g", io[:2], io[2:], weights),
                              opset_imports=[helper.make_opsetid("", 17),
                                             helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 8
    return model.SerializeToString()


def _timed_runs(session, feeds, rounds: int) -> float:
    """CPU seconds of one pass over ``feeds``, the least of ``rounds``."""
    for feed in feeds[:2]:
        session.run(None, feed)
    best = float("inf")
    for _ in range(rounds):
        t = cpu()
        for feed in feeds:
            session.run(None, feed)
        best = min(best, cpu() - t)
    return best


def fusions(args) -> None:
    """The int8 encoder exported with onnxruntime's fusions as before issue 41's last
    step and as now (encoder.UNFUSED left apart, and not redone at load), over the cold
    paper's windows, one thread; base weights with an untrained head (speed does not
    depend on the values); and one window's residual + layer norm both ways."""
    import numpy as np
    import onnxruntime as ort

    from coresc.model.encoder import (
        UNFUSED,
        UNFUSED_AT_LOAD,
        EncoderSettings,
        pad_units,
        paper_units,
        session_options,
    )
    from coresc.model.finetune import export
    from coresc.model.finetune.base import read_base
    from coresc.model.finetune.oof import tokenizer_for
    from coresc.model.finetune.train import build
    from coresc.readers import read_file

    base = read_base("all-MiniLM-L6-v2")
    s = EncoderSettings(layers=3, train_layers=2, context="window", overlap=0, quantize=True)
    plain = export.plain_onnx(base, s, 11, build(base, s, 11).state_dict())
    paper = read_file(data_dir() / COLD_PAPER)[0]
    units, _ = paper_units(tokenizer_for(base, s), paper, s)
    feeds = [dict(zip(("ids", "mask", "types", "pool"), pad_units([u]), strict=True))
             for u in units]
    print(f"{COLD_PAPER}: {len(feeds)} windows, the int8 encoder on one thread, CPU s "
          f"(least of {args.rounds}); onnxruntime {ort.__version__}; load average {load()}")
    print("| export | at load | CPU s | largest probability difference |")
    print("| --- | --- | ---: | ---: |")
    ref = None
    for name, unfused, off in (("every fusion (before)", (), []),
                               ("encoder.UNFUSED apart (now)", tuple(UNFUSED),
                                list(UNFUSED_AT_LOAD))):
        data = export.quantize_int8(export.fuse(plain, base.config, unfused))
        session = ort.InferenceSession(data, session_options(ort, 1),
                                       providers=["CPUExecutionProvider"],
                                       disabled_optimizers=off)
        out = [session.run(None, f)[0] for f in feeds]
        ref = out if ref is None else ref
        diff = max(float(np.abs(a - b).max()) for a, b in zip(out, ref, strict=True))
        print(f"| {name} | {'fusions left out: ' + ', '.join(off) if off else 'default'} | "
              f"{_timed_runs(session, feeds, args.rounds):.3f} | {diff:.4f} |", flush=True)
    rng = np.random.default_rng(1)
    feed = {n: rng.random((1, 256, 384), dtype=np.float32) for n in ("x", "s")}
    print("\none window's residual + layer norm (256 x 384), 200 runs, one thread:")
    for fused in (True, False):
        session = ort.InferenceSession(_residual_norm(fused), session_options(ort, 1),
                                       providers=["CPUExecutionProvider"],
                                       disabled_optimizers=list(UNFUSED_AT_LOAD))
        seconds = _timed_runs(session, [feed] * 200, args.rounds) / 200
        print(f"- {'SkipLayerNormalization' if fused else 'Add, Add, LayerNormalization'}: "
              f"{seconds * 1e6:.0f} microseconds a run")


# ---------------------------------------------------------------- int8


def int8(args) -> None:
    import numpy as np
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from coresc.model import CoreSCClassifier
    from coresc.model.storage import resolve_model
    from coresc.readers import read_file

    d = resolve_model("accurate")
    papers = [p for x in batch_papers(args.papers) for p in read_file(x)]
    model = CoreSCClassifier.load(d, threads=1)
    enc = model._encoder
    if enc.settings.quantize:  # the bundled encoder since issue 41's new model
        raise SystemExit("int8: the bundled accurate encoder is int8 already; compare "
                         "exports of one fine-tuned encoder with benchmarks/int8_error.py")
    files = model._encoder_loaded_files
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp) / "f32.onnx", Path(tmp) / "int8.onnx"
        src.write_bytes(_float_weights(files["encoder.onnx"]))
        quantize_dynamic(str(src), str(dst), weight_type=QuantType.QInt8,
                         extra_options={"DefaultTensorType": 1})  # float: fused ops' outputs
        q = dst.read_bytes()
    from coresc.model.encoder import OnnxEncoder
    encoders = {"float32": enc, "int8": OnnxEncoder(q, files["tokenizer.json"].decode(),
                                                    enc.info, threads=1)}
    probs, seconds = {}, defaultdict(list)
    for _ in range(args.rounds):
        for name, e in encoders.items():
            t = cpu()
            probs[name] = np.vstack([e.predict_paper(p) for p in papers])
            seconds[name].append(cpu() - t)
    labels = {}
    for name, e in encoders.items():
        model._encoder = e
        model.annotate(papers)
        labels[name] = [[pr.label for pr in s.pred] for p in papers for s in p.sentences()]
    same = sum(a == b for a, b in zip(labels["float32"], labels["int8"], strict=True))
    n = len(labels["int8"])
    f32, i8 = (statistics.median(seconds[k]) for k in ("float32", "int8"))
    print(f"{len(papers)} OA-STM papers, {n} sentences, one thread, median of {args.rounds}; "
          f"load average {load()}; CPU flags: {_cpu_flags()}")
    print(f"encoder CPU s: float32 {f32:.2f}, int8 {i8:.2f} ({f32 / i8:.2f}x); ONNX MB "
          f"{len(files['encoder.onnx']) / 1e6:.1f} / {len(q) / 1e6:.1f}; largest probability "
          f"difference {np.abs(probs['float32'] - probs['int8']).max():.3f}; labels the same "
          f"on {same} of {n} sentences ({same / n:.1%})")


def _float_weights(data: bytes) -> bytes:
    """The exported graph with its stored weights as float32 initializers: the bundled
    file keeps them as float16 behind ``Cast`` nodes and the word embeddings as int8
    behind ``DequantizeLinear``, which the quantiser would otherwise leave as they are
    (it quantises matrix products whose weight is an initializer)."""
    import numpy as np
    import onnx
    from onnx import numpy_helper

    model = onnx.load_from_string(data)
    graph = model.graph
    inits = {t.name: t for t in graph.initializer}
    for node in list(graph.node):
        if not node.input or node.input[0] not in inits:
            continue
        if node.op_type == "Cast":
            value = numpy_helper.to_array(inits[node.input[0]]).astype(np.float32)
        elif node.op_type == "DequantizeLinear":
            q, scale = (numpy_helper.to_array(inits[n]) for n in node.input[:2])
            value = q.astype(np.float32) * scale[:, None]
        else:
            continue
        graph.node.remove(node)
        graph.initializer.append(numpy_helper.from_array(value, node.output[0]))
    return model.SerializeToString()


def _cpu_flags() -> str:
    try:
        flags = next(line for line in open("/proc/cpuinfo") if line.startswith("flags"))
    except (OSError, StopIteration):
        return "?"
    wanted = ("avx2", "avx512f", "avx512_vnni", "avx_vnni", "amx_int8")
    return " ".join(f for f in wanted if f" {f}" in flags) or "none of avx2/avx512/vnni"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=("profile", "targets", "jobs", "equal", "encoder", "ops",
                                     "fusions", "int8"))
    ap.add_argument("--papers", type=int, default=20, help="OA-STM papers (default 20)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1,
                    help="profile: the encoder's onnxruntime threads (0: its default)")
    ap.add_argument("--baseline", help="a copy of the old code (its folder holds coresc/)")
    ap.add_argument("--models", default="accurate,fast", help="jobs: the models to run")
    ap.add_argument("--one-core", action="store_true",
                    help="jobs: run --jobs 1 on one core (its encoder then has one thread)")
    args = ap.parse_args()
    {"profile": profile, "targets": targets, "jobs": jobs, "equal": equal,
     "encoder": encoder, "ops": ops, "fusions": fusions, "int8": int8}[args.mode](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
