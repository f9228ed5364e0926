"""The exported encoder run by onnxruntime on the CPU: :class:`OnnxEncoder`, and the
session it runs in (its threads, and the fusions it leaves out)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...document import Paper
from ...errors import CorescError
from .batches import run_units, scatter
from .inputs import Unit, paper_units
from .settings import EncoderSettings


class OnnxEncoder:
    """The exported encoder: ``predict_paper(paper)`` -> array (sentences x labels).

    Parameters
    ----------
    onnx : the ``encoder.onnx`` bytes.
    tokenizer : the ``tokenizer.json`` text.
    info : the ``encoder.json`` mapping (``labels``, ``settings``).
    threads : how many cores the encoder may use (0 = every usable core); a process of
        several workers gives each its share (:func:`coresc.pipeline.worker_threads`).
        The session runs each operator on one thread, and ``threads`` runs of a paper
        go at once (:func:`run_units`): on two cores, two windows side by side cost 7%
        more CPU seconds than one after the other, one window split over two threads
        19% more, its threads waiting for each other at every operator
        (docs/benchmarks.md, issue 41).
    """

    #: At most this many sentences a run (of units of one length: :func:`same_length`).
    BATCH = 32

    def __init__(self, onnx: bytes, tokenizer: str, info: dict[str, Any],
                 threads: int = 0) -> None:
        ort, tokenizers = _import_runtime()
        self.info = info
        self.labels: list[str] = list(info["labels"])
        self.settings = EncoderSettings.from_dict(info["settings"])
        self.tokenizer = tokenizers.Tokenizer.from_str(tokenizer)
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(self.settings.max_tokens)
        self.workers = threads or usable_cores()
        # onnxruntime's sessions are safe to run from several threads at once
        self.session = open_session(ort, onnx, 1)

        # encoders exported before windows pool inside the graph and take no ``pool``
        self._pooled = "pool" in {i.name for i in self.session.get_inputs()}

    def set_threads(self, threads: int) -> None:
        """Use ``threads`` cores from now on (0 = every usable core)."""
        self.workers = threads or usable_cores()

    def predict_paper(self, paper: Paper) -> np.ndarray:
        """Label probabilities of the paper's sentences (sentences x ``labels``)."""
        units, where = paper_units(self.tokenizer, paper, self.settings)
        flat = self.predict_units(units)
        if not np.isfinite(flat).all():  # weights that are not numbers would pass the CRF
            raise CorescError("the model's sentence encoder (encoder.onnx) gives numbers "
                              "that are not finite: its weights are damaged")
        return scatter(flat, where, len(paper.sentences()))

    def predict_units(self, units: Sequence[Unit]) -> np.ndarray:
        """Probabilities (spans x ``labels``, units and their spans in order).

        An int8 encoder (``quantize``) quantises each run's activations with one scale
        for the whole run, so a unit's probabilities would depend on the units run with
        it (by up to 0.06, enough to change a label in a hundred): it runs each unit
        alone, and gives a sentence the same probabilities whatever else is read with
        it, in training and in use alike.
        """
        per_run = 1 if self.settings.quantize else self.BATCH
        return run_units(units, self._run, len(self.labels), per_run, self.workers)

    def _run(self, ids: np.ndarray, mask: np.ndarray, types: np.ndarray,
             pool: np.ndarray) -> np.ndarray:
        feed = {"ids": ids, "mask": mask, "types": types}
        if self._pooled:
            return self.session.run(None, {**feed, "pool": pool})[0]
        return self.session.run(None, feed)[0][:, None, :]


def usable_cores() -> int:
    """The cores this process may run on (its affinity: ``taskset``, a container's or
    a scheduler's CPU set), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def session_options(ort, threads: int):
    """onnxruntime's session options for ``threads`` intra-op threads (0: one a core
    this process may use, :func:`usable_cores`).

    * 0 is resolved here, not left to onnxruntime: its own default counts the machine's
      physical cores whatever the process's CPU set, and pins a thread to each, so a
      run confined to one core (``taskset -c 0``, a batch scheduler's allocation) still
      ran on two.

    * ``session.disable_quant_qdq``: the exported graph stores the word embeddings as
      int8 with a scale (``DequantizeLinear``), which onnxruntime otherwise keeps as a
      node, dequantising all 30,522 x 384 of them on every run (8% of the encoder's
      operator time at one window a run); without its int8 (QDQ) handling it folds the
      node into a float table once, at session start. The same float32 values either
      way, so the same outputs.
    * no spinning when there are several threads: a thread that has finished its share
      of an operator waits for the others by spinning, which on a shared machine burns
      the CPU another process needed (29% more CPU seconds for the same papers under
      load; docs/benchmarks.md, issue 41).
    """
    threads = threads or usable_cores()
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.add_session_config_entry("session.disable_quant_qdq", "1")
    if threads != 1:
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return options


#: The fusions of onnxruntime's transformer optimiser an export leaves out
#: (:func:`coresc.model.finetune.export.fuse`), each named as the export names it (an
#: attribute of ``FusionOptions``) and as a session does (the optimiser onnxruntime would
#: otherwise run at load to fuse it back). onnxruntime's fused ``SkipLayerNormalization``
#: kernel took 5.6 times as long as the ``Add``s and the ``LayerNormalization`` it
#: replaces (19% of the int8 encoder's time, onnxruntime 1.32), and a bias fused into
#: ``BiasGelu`` cannot go into the int8 product before it: without the two, the int8
#: encoder runs 17% faster (docs/benchmarks.md, issue 41).
UNFUSED = {"enable_skip_layer_norm": "SkipLayerNormFusion",
           "enable_bias_gelu": "BiasGeluFusion"}

#: What a session leaves out. (onnxruntime ignores a name it does not know: a test checks.)
UNFUSED_AT_LOAD = tuple(UNFUSED.values())


def open_session(ort, onnx: bytes, threads: int):
    """An onnxruntime session of ``onnx`` on the CPU: :func:`session_options`, without
    the fusions :data:`UNFUSED_AT_LOAD` names."""
    return ort.InferenceSession(onnx, session_options(ort, threads),
                                providers=["CPUExecutionProvider"],
                                disabled_optimizers=list(UNFUSED_AT_LOAD))


def _import_runtime():
    try:
        import onnxruntime
        import tokenizers
    except ImportError as exc:
        raise CorescError(f"this model has a sentence encoder, which needs {exc.name}: "
                          f"pip install onnxruntime tokenizers") from None
    return onnxruntime, tokenizers
