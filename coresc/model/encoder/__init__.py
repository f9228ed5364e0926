"""The sentence encoder: a fine-tuned transformer whose label probabilities feed the CRF.

Training needs torch (:mod:`coresc.model.finetune`, the ``train`` extra); prediction
needs only onnxruntime and tokenizers. A model directory with an encoder holds::

    encoder.onnx     the fine-tuned network: token ids -> label probabilities
    tokenizer.json   its WordPiece tokenizer (the ``tokenizers`` library's format)
    encoder.json     the settings it was trained with and its label order

What the encoder reads (``context``): one sentence at a time, alone (``"sentence"``) or
after its section heading (``"heading"``); or a window of consecutive sentences of a
section encoded as one sequence after the heading (``"window"``), each sentence's vector
pooled from its own word pieces, so that it sees its neighbours and the heading is paid
for once per window. Either way the input of a paper is a list of *units* (one token
sequence each, with the spans of the sentences it scores: :func:`paper_units`). The CRF
sees the encoder's probabilities for the sentence and its neighbours
(:func:`encoder_features`) next to the hand-built features.

The package holds one idea a module: ``settings`` (:class:`EncoderSettings`, the
``encoder.json`` record), ``inputs`` (what it reads of a paper: units), ``batches`` (units
padded, grouped and run), ``runtime`` (:class:`OnnxEncoder` and its onnxruntime session)
and ``features`` (what the CRF sees). Every name is importable from
``coresc.model.encoder`` as before.
"""

from .batches import pad_batch, pad_units, run_units, same_length, scatter, unit_batches
from .features import encoder_features
from .inputs import (
    CHARS_PER_PIECE,
    Encoded,
    Unit,
    clip_chars,
    encoder_inputs,
    paper_units,
    tokenize,
)
from .runtime import (
    UNFUSED,
    UNFUSED_AT_LOAD,
    OnnxEncoder,
    open_session,
    session_options,
    usable_cores,
)
from .settings import (
    CONTEXTS,
    DEFAULT_BASE,
    EncoderSettings,
    dumps,
    encoder_info,
    settings_from,
)

__all__ = [
    "CHARS_PER_PIECE", "CONTEXTS", "DEFAULT_BASE", "UNFUSED", "UNFUSED_AT_LOAD", "Encoded",
    "EncoderSettings", "OnnxEncoder", "Unit", "clip_chars", "dumps", "encoder_features",
    "encoder_info", "encoder_inputs", "open_session", "pad_batch", "pad_units", "paper_units",
    "run_units", "same_length", "scatter", "session_options", "settings_from", "tokenize",
    "unit_batches", "usable_cores",
]
