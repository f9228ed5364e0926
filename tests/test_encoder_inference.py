"""The bundled encoder's inference made cheaper without changing what it outputs (issue
41): batches of one unit length (no padding), int8 word embeddings dequantised once per
session instead of every run, no spinning threads, runs side by side on one thread each,
cores shared out among workers.

The reference is the way inference ran before, on a session with onnxruntime's default
options: units sorted by length in batches of 32 sentences padded to the longest
(:func:`unit_batches`) for a float encoder; each unit alone for an int8 one, whose
activations are quantised with one scale a run (:meth:`OnnxEncoder.predict_units`).
Labels must be the same and scores equal to 1e-5.
"""

from __future__ import annotations

import copy
import json
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coresc.model import CoreSCClassifier
from coresc.model.encoder import (
    UNFUSED_AT_LOAD,
    open_session,
    pad_units,
    paper_units,
    run_units,
    same_length,
    scatter,
    session_options,
    unit_batches,
)
from coresc.model.storage import BUNDLED_DIR
from coresc.readers import read_file

ort = pytest.importorskip("onnxruntime")
ACCURATE = BUNDLED_DIR / "accurate"


@pytest.fixture(scope="module")
def accurate() -> CoreSCClassifier:
    return CoreSCClassifier.load(ACCURATE, threads=1)


def reference_probs(model: CoreSCClassifier, paper) -> np.ndarray:
    """The encoder's probabilities as inference computed them before issue 41."""
    enc = model._encoder
    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    # the fusions left out are the graph's, not inference's: without them onnxruntime
    # would fuse another graph than the one the model's CRF learnt from
    session = ort.InferenceSession(model._encoder_loaded_files["encoder.onnx"], options,
                                   providers=["CPUExecutionProvider"],
                                   disabled_optimizers=list(UNFUSED_AT_LOAD))
    units, where = paper_units(enc.tokenizer, paper, enc.settings)
    offsets = np.cumsum([0] + [len(u[2]) for u in units])
    flat = np.zeros((int(offsets[-1]), len(enc.labels)), dtype=np.float32)
    for rows in unit_batches(units, 1 if enc.settings.quantize else 32):
        ids, mask, types, pool = pad_units([units[i] for i in rows])
        probs = session.run(None, {"ids": ids, "mask": mask, "types": types,
                                   "pool": pool})[0]
        for r, i in enumerate(rows):
            flat[offsets[i]:offsets[i] + len(units[i][2])] = probs[r, :len(units[i][2])]
    return scatter(flat, where, len(paper.sentences()))


def _predictions(paper) -> list[list[tuple[str, float]]]:
    return [[(p.label, p.score) for p in s.pred] for s in paper.sentences()]


def _assert_same(old, new) -> None:
    assert [[lab for lab, _ in s] for s in old] == [[lab for lab, _ in s] for s in new]
    worst = max(abs(a - b) for so, sn in zip(old, new, strict=True)
                for (_, a), (_, b) in zip(so, sn, strict=True))
    assert worst <= 1e-5


def _small_papers(fixtures, shared_dir) -> list:
    papers = read_file(fixtures / "jats_small.xml")
    small = shared_dir / "jats" / "elife06003.xml"  # 79 sentences
    if small.is_file():
        papers += read_file(small)
    return papers


def test_outputs_are_those_of_the_old_inference(accurate, fixtures) -> None:
    from coresc.config import data_dir

    for paper in _small_papers(fixtures, data_dir()):
        old_paper = copy.deepcopy(paper)
        expected = reference_probs(accurate, old_paper)
        probs = accurate._encoder.predict_paper(paper)
        assert probs.shape == expected.shape
        assert np.abs(probs - expected).max() <= 1e-5
        accurate.annotate([paper])
        encoder = accurate._encoder
        try:  # the whole model, its encoder answering as before
            accurate._encoder = copy.copy(encoder)
            accurate._encoder.predict_paper = lambda p: reference_probs(accurate, p)
            accurate.annotate([old_paper])
        finally:
            accurate._encoder = encoder
        _assert_same(_predictions(old_paper), _predictions(paper))


units_st = st.lists(st.tuples(st.integers(1, 12), st.integers(1, 5)), max_size=60)


@settings(max_examples=200, deadline=None)
@given(units_st, st.integers(1, 8))
def test_batches_hold_units_of_one_length(shape, per_batch) -> None:
    units = [([0] * n, [0] * n, [(0, 1)] * spans) for n, spans in shape]
    batches = same_length(units, per_batch)
    assert sorted(i for b in batches for i in b) == list(range(len(units)))
    for b in batches:
        assert len({len(units[i][0]) for i in b}) == 1  # nothing padded
        assert len(b) == 1 or sum(len(units[i][2]) for i in b[:-1]) < per_batch


def _kernels(tmp_path, options, model: bytes, feed) -> set[str]:
    """The operators a session runs (from onnxruntime's profile of two runs)."""
    options.enable_profiling = True
    options.profile_file_prefix = str(tmp_path / "prof")
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    for _ in range(2):
        session.run(None, feed)
    events = json.loads(open(session.end_profiling()).read())
    return {e["args"]["op_name"] for e in events
            if e.get("cat") == "Node" and e["name"].endswith("_kernel_time")}


def _int8_table_graph() -> bytes:
    """Word ids -> rows of an int8 table with a scale per row, the way the exporter
    stores a float encoder's word embeddings (:func:`~coresc.model.finetune.export.compact`)."""
    pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    table = numpy_helper.from_array(rng.integers(-127, 128, (30522, 8), dtype=np.int8), "t8")
    scale = numpy_helper.from_array(rng.random(30522, dtype=np.float32), "scale")
    graph = helper.make_graph(
        [helper.make_node("DequantizeLinear", ["t8", "scale"], ["table"], axis=0),
         helper.make_node("Gather", ["table", "ids"], ["rows"])],
        "embeddings", [helper.make_tensor_value_info("ids", TensorProto.INT64, [None])],
        [helper.make_tensor_value_info("rows", TensorProto.FLOAT, [None, 8])],
        initializer=[table, scale])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model.SerializeToString()


def test_the_word_embeddings_are_dequantised_once_not_every_run(tmp_path) -> None:
    model = _int8_table_graph()
    feed = {"ids": np.array([101, 2023, 102], dtype=np.int64)}
    plain = ort.SessionOptions()
    plain.intra_op_num_threads = 1
    assert "DequantizeLinear" in _kernels(tmp_path, plain, model, feed)
    assert "DequantizeLinear" not in _kernels(tmp_path, session_options(ort, 1), model, feed)
    expected = ort.InferenceSession(model, plain, providers=["CPUExecutionProvider"])
    folded = ort.InferenceSession(model, session_options(ort, 1),
                                  providers=["CPUExecutionProvider"])
    assert np.array_equal(expected.run(None, feed)[0], folded.run(None, feed)[0])


def test_a_sentence_scores_the_same_whatever_else_the_paper_holds(accurate, fixtures) -> None:
    """A paper's units are read in runs of several (a float encoder) or alone (an int8
    one, whose activations share one quantisation scale a run): either way a unit's
    probabilities do not depend on the other units, so the CRF is trained on the numbers
    it is later given."""
    enc = accurate._encoder
    paper = read_file(fixtures / "jats_small.xml")[0]
    units, _ = paper_units(enc.tokenizer, paper, enc.settings)
    together = enc.predict_units(units)
    offsets = np.cumsum([0] + [len(u[2]) for u in units])
    for i, unit in enumerate(units):
        alone = enc.predict_units([unit])
        assert np.abs(alone - together[offsets[i]:offsets[i + 1]]).max() <= 1e-5


def _residual_norm_graph() -> bytes:
    """x + bias + skip, then a layer norm: the subgraph onnxruntime fuses into
    ``SkipLayerNormalization``."""
    pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    weights = [numpy_helper.from_array(rng.random(8, dtype=np.float32), n)
               for n in ("bias", "gamma", "beta")]
    io = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, 4, 8]) for n in "xsy"]
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "bias"], ["xb"]),
         helper.make_node("Add", ["xb", "s"], ["t"]),
         helper.make_node("LayerNormalization", ["t", "gamma", "beta"], ["y"], axis=-1,
                          epsilon=1e-12)],
        "residual", io[:2], io[2:], weights)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model.SerializeToString()


def test_sessions_keep_residual_and_layer_norm_apart(tmp_path, monkeypatch) -> None:
    """onnxruntime's SkipLayerNormalization was 5.6 times slower than what it fuses; it
    ignores a fusion name it does not know, so the names must be checked here."""
    import onnx

    data, path = _residual_norm_graph(), tmp_path / "optimised.onnx"
    real = ort.InferenceSession

    def dumping(model, options, **kwargs):  # writes the graph as the session runs it
        options.optimized_model_filepath = str(path)
        return real(model, options, **kwargs)

    monkeypatch.setattr(ort, "InferenceSession", dumping)
    ort.InferenceSession(data, session_options(ort, 1), providers=["CPUExecutionProvider"])
    fused = {n.op_type for n in onnx.load(str(path)).graph.node}
    assert "SkipLayerNormalization" in fused  # what onnxruntime does by default
    open_session(ort, data, 1)
    kept = {n.op_type for n in onnx.load(str(path)).graph.node}
    assert "SkipLayerNormalization" not in kept and "LayerNormalization" in kept


def test_several_threads_wait_without_spinning() -> None:
    spin = "session.intra_op.allow_spinning"
    assert session_options(ort, 2).get_session_config_entry(spin) == "0"
    assert session_options(ort, 1).intra_op_num_threads == 1  # no pool: nothing to spin


def test_all_cores_means_those_the_process_may_use(monkeypatch) -> None:
    # onnxruntime's own default counted the machine's cores and pinned a thread to
    # each, so `taskset -c 0 coresc annotate ...` still ran on two
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {5}, raising=False)
    assert session_options(ort, 0).intra_op_num_threads == 1
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1, 2}, raising=False)
    assert session_options(ort, 0).intra_op_num_threads == 3


@pytest.mark.parametrize(("cores", "workers", "threads"),
                         [(2, 1, 2), (2, 2, 1), (2, 3, 1), (16, 2, 8), (16, 5, 3),
                          (16, 16, 1), (1, 4, 1)])
def test_worker_threads_share_out_the_cores(monkeypatch, cores, workers, threads) -> None:
    from coresc.pipeline import worker_threads

    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: set(range(cores)),
                        raising=False)
    assert worker_threads(workers) == threads


def test_a_worker_runs_the_encoder_on_its_share_of_threads() -> None:
    from coresc.batch.work import _WORKER, Job, init_worker

    model = CoreSCClassifier.load(ACCURATE, threads=1)  # as a process that forks loads it
    session = model._encoder.session
    init_worker(Job(threads=1), model)
    assert _WORKER["model"]._encoder.session is session
    assert _WORKER["model"]._encoder.workers == 1
    init_worker(Job(threads=2), model)
    assert _WORKER["model"]._encoder.session is session  # not reopened: no pool in it
    assert _WORKER["model"]._encoder.workers == 2
    assert session.get_session_options().intra_op_num_threads == 1


def test_runs_side_by_side_give_what_runs_in_turn_give(accurate, fixtures) -> None:
    paper = read_file(fixtures / "jats_small.xml")[0]
    enc = accurate._encoder
    units, _ = paper_units(enc.tokenizer, paper, enc.settings)
    assert len(units) > 1
    alone = run_units(units, enc._run, len(enc.labels), 1, workers=1)
    for workers in (2, 3, 8):
        assert np.array_equal(run_units(units, enc._run, len(enc.labels), 1, workers),
                              alone)


def test_runs_go_side_by_side_on_as_many_threads_as_workers() -> None:
    import threading
    import time

    lock, running, most = threading.Lock(), [0], [0]

    def run(ids, mask, types, pool):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.02)
        with lock:
            running[0] -= 1
        return np.full((ids.shape[0], pool.shape[1], 2), float(ids[0, 0]), np.float32)

    units = [([i, 1], [0, 0], [(0, 2)]) for i in range(8)]
    out = run_units(units, run, 2, 1, workers=3)
    assert most[0] == 3
    assert out[:, 0].tolist() == list(range(8))  # each unit's row in its place
    most[0] = 0
    run_units(units, run, 2, 1, workers=1)
    assert most[0] == 1
