"""Export a fine-tuned encoder to ONNX: what a model directory ships.

The graph takes ``ids``, ``mask`` and ``types`` (batch x tokens, int64) and ``pool``
(batch x spans x tokens, float32: each sentence's averaging weights over its word
pieces) and gives label probabilities (batch x spans x labels). Three steps:

1. ``torch.onnx.export`` of the network with a softmax on top;
2. onnxruntime's transformer optimiser fuses attention into one operator; the residual
   additions, layer norms and GELUs stay apart (:data:`coresc.model.encoder.UNFUSED`);
3. storage: by default the word-embedding table is kept as int8 with one scale per row
   and the other large weights as float16, each behind a ``DequantizeLinear`` / ``Cast``
   node on the initializer, which onnxruntime folds back to float32 when it loads the
   file; the arithmetic stays float32 and the file is about a third of the size. With
   ``quantize`` the weights are instead dynamically quantised to int8 with a scale per
   output channel (onnxruntime.quantization), and the matrix products run in int8: about
   twice as fast on a processor with VNNI, no slower on one without (docs/benchmarks.md).
"""

from __future__ import annotations

import io
import tempfile
from collections.abc import Iterable
from pathlib import Path

from ..encoder import UNFUSED, EncoderSettings
from . import require_torch
from .base import BaseCheckpoint

torch = require_torch()


class _Probabilities(torch.nn.Module):
    def __init__(self, model) -> None:
        super().__init__()
        self.model = model

    def forward(self, ids, mask, types, pool):
        return torch.softmax(self.model(ids, mask, types, pool), -1)


def export_onnx(base: BaseCheckpoint, settings: EncoderSettings, n_labels: int,
                state: dict, quantize: bool = False) -> bytes:
    """The ONNX bytes of the fine-tuned network (int8 weights with ``quantize``)."""
    data = fuse(plain_onnx(base, settings, n_labels, state), base.config)
    return quantize_int8(data) if quantize else compact(data)


def plain_onnx(base: BaseCheckpoint, settings: EncoderSettings, n_labels: int,
               state: dict) -> bytes:
    """The network with a softmax on top as ``torch.onnx.export`` writes it (unfused)."""
    import warnings

    from .train import build

    model = _Probabilities(build(base, settings, n_labels, state).eval())
    dummy = torch.ones((2, 8), dtype=torch.long)
    pool = torch.full((2, 3, 8), 1.0 / 8)
    buf = io.BytesIO()
    axes = {"ids": {0: "batch", 1: "tokens"}, "mask": {0: "batch", 1: "tokens"},
            "types": {0: "batch", 1: "tokens"}, "pool": {0: "batch", 1: "spans", 2: "tokens"},
            "probs": {0: "batch", 1: "spans"}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (dummy, dummy, torch.zeros_like(dummy), pool), buf,
                          input_names=["ids", "mask", "types", "pool"], output_names=["probs"],
                          dynamic_axes=axes, opset_version=17, dynamo=False)
    return buf.getvalue()


#: The form of an export, beyond its weights: part of the cache keys of exports and of
#: their probabilities (:mod:`~coresc.model.finetune.oof`), so that an export of another
#: form is never served from the cache.
EXPORT_FORM = "transformer fusions but " + ", ".join(UNFUSED)


def fuse(data: bytes, config: dict, unfused: Iterable[str] = tuple(UNFUSED)) -> bytes:
    """Fuse BERT's subgraphs into onnxruntime's operators (no change in the numbers),
    but for the fusions ``unfused`` names (attributes of onnxruntime's
    ``FusionOptions``; by default :data:`coresc.model.encoder.UNFUSED`)."""
    import logging

    from onnxruntime.transformers import optimizer
    from onnxruntime.transformers.fusion_options import FusionOptions

    logging.getLogger("onnxruntime.transformers").setLevel(logging.ERROR)
    options = FusionOptions("bert")
    for name in unfused:
        setattr(options, name, False)
    with tempfile.TemporaryDirectory(prefix="coresc-onnx-") as tmp:
        src, dst = Path(tmp) / "plain.onnx", Path(tmp) / "fused.onnx"
        src.write_bytes(data)
        model = optimizer.optimize_model(str(src), model_type="bert",
                                         num_heads=config["num_attention_heads"],
                                         hidden_size=config["hidden_size"], opt_level=0,
                                         optimization_options=options)
        model.save_model_to_file(str(dst))
        return dst.read_bytes()


def compact(data: bytes, min_size: int = 4096) -> bytes:
    """Store large float32 initializers as float16, the embedding table as int8 per row.

    Each stored weight gets a ``Cast`` / ``DequantizeLinear`` node computing the original
    name, so the graph is unchanged and onnxruntime restores float32 weights at load.
    """
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    model = onnx.load_from_string(data)
    graph = model.graph
    stored, nodes = [], []
    for init in list(graph.initializer):
        arr = numpy_helper.to_array(init)
        if arr.dtype != np.float32 or arr.size < min_size:
            continue
        name = init.name
        graph.initializer.remove(init)
        if arr.ndim == 2 and arr.shape[0] >= 10000:  # the word-piece embedding table
            scale = np.abs(arr).max(axis=1) / 127.0
            scale[scale == 0] = 1.0
            q = np.round(arr / scale[:, None]).astype(np.int8)
            stored += [numpy_helper.from_array(q, name + ".int8"),
                       numpy_helper.from_array(scale.astype(np.float32), name + ".scale")]
            nodes.append(helper.make_node("DequantizeLinear", [name + ".int8", name + ".scale"],
                                          [name], axis=0))
        else:
            stored.append(numpy_helper.from_array(arr.astype(np.float16), name + ".fp16"))
            nodes.append(helper.make_node("Cast", [name + ".fp16"], [name],
                                          to=TensorProto.FLOAT))
    graph.initializer.extend(stored)
    for node in reversed(nodes):
        graph.node.insert(0, node)
    return model.SerializeToString()


def quantize_int8(data: bytes, per_channel: bool = True) -> bytes:
    """Dynamic int8 quantisation of a graph's weights; a scale per output channel has a
    third of the per-tensor scale's error in the probabilities, at the same speed
    (docs/benchmarks.md, issue 41)."""
    import logging

    from onnx import TensorProto
    from onnxruntime.quantization import QuantType, quantize_dynamic

    logging.getLogger().setLevel(logging.ERROR)  # its advice to pre-process is noise here
    with tempfile.TemporaryDirectory(prefix="coresc-onnx-") as tmp:
        src, dst = Path(tmp) / "fp32.onnx", Path(tmp) / "int8.onnx"
        src.write_bytes(data)
        # the fused operators are not in ONNX's shape inference: say outputs are float
        quantize_dynamic(str(src), str(dst), weight_type=QuantType.QInt8,
                         per_channel=per_channel,
                         extra_options={"DefaultTensorType": TensorProto.FLOAT})
        return dst.read_bytes()
