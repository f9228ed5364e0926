"""Saving and loading model directories: JSON, npz (no pickle), crfsuite and ONNX files.

:meth:`CoreSCClassifier.save` and :meth:`CoreSCClassifier.load` call these; the file
formats themselves are in :mod:`~coresc.model.storage`.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from .calibration import Calibration
from .card import write_card
from .integrity import FILES_KEY, record, records_of
from .storage import (
    CALIBRATION_FILE,
    MODEL_FILES,
    MODEL_FORMAT,
    SOURCE_DIR,
    ModelError,
    load_encoder_files,
    load_ovr,
    open_encoder,
    read_crf,
    read_json,
    save_encoder,
    to_json,
    write_atomic,
)


def save_model(model, directory: str | Path) -> Path:
    """Write a fitted model's directory (created if needed; files replaced atomically).

    ``meta.json`` is written last and records each file's size and SHA-256, so a load
    refuses a damaged file, or a directory a failed save left half-replaced.
    """
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    files: dict[str, dict] = {}

    def put(name: str, data: bytes) -> None:
        write_atomic(d / name, data)
        files[name] = record(data)

    put("crf.crfsuite", model._crf_bytes)
    if model._stack_bytes is not None:
        put("crf_stack.crfsuite", model._stack_bytes)
    else:
        (d / "crf_stack.crfsuite").unlink(missing_ok=True)
    config = model.get_params()
    config["features"] = list(model.features)
    put("config.json", to_json(config))
    if model._ovr is not None:
        buffer = io.BytesIO()
        np.savez_compressed(buffer, coef=model._ovr["coef"], intercept=model._ovr["intercept"])
        put("ovr.npz", buffer.getvalue())
        vocab = sorted(model._ovr["vocab"], key=model._ovr["vocab"].get)
        put("ovr_vocab.json", to_json({"labels": model._ovr["labels"], "features": vocab,
                                       "meta": model._ovr["meta"]}, indent=None))
    else:
        for name in ("ovr.npz", "ovr_vocab.json"):
            (d / name).unlink(missing_ok=True)
    encoder_files = model._encoder_files()
    save_encoder(d, encoder_files)
    files.update({name: record(data) for name, data in (encoder_files or {}).items()})
    if model.calibration_ is not None:
        put(CALIBRATION_FILE, to_json(model.calibration_.to_json(), None))
    else:
        (d / CALIBRATION_FILE).unlink(missing_ok=True)
    if model._source is not None:
        save_model(model._source, d / SOURCE_DIR)
    elif (d / SOURCE_DIR).is_dir():
        _remove_model_dir(d / SOURCE_DIR)
    meta = {k: v for k, v in model.meta_.items() if k != FILES_KEY}
    write_atomic(d / "meta.json", to_json({**meta, FILES_KEY: files}))
    write_card(d)
    return d


def _remove_model_dir(d: Path) -> None:
    """Remove a stale ``source/`` model directory (only the files a model has)."""
    if (d / SOURCE_DIR).is_dir():
        _remove_model_dir(d / SOURCE_DIR)
    for f in d.iterdir():
        if f.is_file():
            f.unlink()
    d.rmdir()


def load_model(cls, directory: str | Path, threads: int = 0):
    """Load a saved model directory as an instance of ``cls`` (a :class:`CoreSCClassifier`):
    JSON, npz without pickle, crfsuite and ONNX files.

    ``threads``: onnxruntime threads of the sentence encoder, if the model has one
    (0 = all cores; worker processes that share a machine give 1).
    """
    d = Path(directory)
    if not d.is_dir():
        raise ModelError(d, "model directory not found")
    for name in MODEL_FILES:
        if not (d / name).is_file():
            raise ModelError(d, f"not a coresc model directory (missing {name})")
    meta = read_json(d / "meta.json")
    if not isinstance(meta, dict):
        raise ModelError(d / "meta.json", "must hold a JSON object")
    records = records_of(meta, d)  # every file below is checked before it is parsed
    config = read_json(d / "config.json", records)
    if not isinstance(config, dict):
        raise ModelError(d / "config.json", "must hold a JSON object")
    if meta.get("format") != MODEL_FORMAT:
        raise ModelError(d, f"unsupported model format {meta.get('format')!r} "
                            f"(this coresc reads format {MODEL_FORMAT})")
    if "balance" in config:  # models saved before ``decode`` replaced ``balance``
        config["decode"] = "balanced" if config.pop("balance") else "viterbi"
    try:
        model = cls(**config)
        model._validate()
    except (TypeError, ValueError) as exc:
        raise ModelError(d / "config.json", f"bad configuration: {exc}") from None
    labels = meta.get("labels")
    if not isinstance(labels, list) or not labels or not all(
            isinstance(x, str) for x in labels):
        raise ModelError(d / "meta.json", "missing or bad label list")
    model.labels_ = tuple(labels)
    model.c1_, model.c2_ = meta.get("c1"), meta.get("c2")
    bias = meta.get("label_bias") or {}
    if not isinstance(bias, dict) or not all(
            k in labels and isinstance(v, (int, float)) for k, v in bias.items()):
        raise ModelError(d / "meta.json", "bad label_bias")
    model.label_bias_ = {k: float(v) for k, v in bias.items()}
    mix = meta.get("source_mix") or {}
    if not isinstance(mix, dict) or not all(
            k in labels and isinstance(v, (int, float)) and 0 <= v <= 1
            for k, v in mix.items()):
        raise ModelError(d / "meta.json", "bad source_mix")
    model.source_mix_ = {k: float(v) for k, v in mix.items()}
    absent = meta.get("source_absent") or {}  # older adapted models: none
    if not isinstance(absent, dict) or not all(
            k in labels and isinstance(v, (int, float)) and 0 < v <= 1
            for k, v in absent.items()):
        raise ModelError(d / "meta.json", "bad source_absent")
    model.source_absent_ = {k: float(v) for k, v in absent.items()}
    domains = meta.get("domains") or []
    if not isinstance(domains, list) or not all(isinstance(x, str) for x in domains):
        raise ModelError(d / "meta.json", "bad domains list")
    model.domains_ = tuple(domains)
    model.domain_bias_ = {}
    for tag, tag_bias in (meta.get("domain_bias") or {}).items():
        if tag not in domains or not isinstance(tag_bias, dict) or not all(
                k in labels and isinstance(v, (int, float)) for k, v in tag_bias.items()):
            raise ModelError(d / "meta.json", f"bad domain_bias for {tag!r}")
        model.domain_bias_[tag] = {k: float(v) for k, v in tag_bias.items()}
    model.meta_ = meta
    model._crf_bytes, model._tagger = read_crf(d, "crf.crfsuite", labels, records)
    if model.stack:
        if not (d / "crf_stack.crfsuite").is_file():
            raise ModelError(d, "config says stack but crf_stack.crfsuite is missing")
        model._stack_bytes, model._stack_tagger = read_crf(d, "crf_stack.crfsuite",
                                                            labels, records)
    if (d / "ovr.npz").is_file():
        model._ovr = load_ovr(d, labels, records)
        # the layer scores with scipy.sparse: import it with the model (a one-time
        # ~0.2 s), not inside the first paper's annotation
        import scipy.sparse  # noqa: F401
    if model.encoder is not None:
        model._encoder_loaded_files = load_encoder_files(d, records)
        model._encoder = open_encoder(d, model._encoder_loaded_files, threads)
    if model.source is not None:
        if not (d / SOURCE_DIR).is_dir():
            raise ModelError(d, f"an adapted model but its source model ({SOURCE_DIR}/) is "
                                "missing")
        model._source = load_model(cls, d / SOURCE_DIR, threads)
    model.calibration_ = None
    if (d / CALIBRATION_FILE).is_file():
        try:
            model.calibration_ = Calibration.from_json(read_json(d / CALIBRATION_FILE, records))
        except ValueError as exc:
            raise ModelError(d / CALIBRATION_FILE, f"bad calibration ({exc})") from None
    return model
