"""Saving and loading model directories: JSON, npz (no pickle), crfsuite and ONNX files.

:meth:`CoreSCClassifier.save` and :meth:`CoreSCClassifier.load` call these; the file
formats themselves are in :mod:`~coresc.model.storage`.
"""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path

import numpy as np

from ..errors import CorescError
from .calibration import Calibration
from .card import write_card
from .integrity import FILES_KEY, read_recorded, record, records_of, refuse_unrecorded
from .storage import (
    CALIBRATION_FILE,
    ENCODER_FILES,
    MODEL_FILES,
    MODEL_FORMAT,
    RECORDED_FILES,
    SOURCE_DIR,
    ModelError,
    load_ovr,
    open_encoder,
    parse_model_json,
    read_crf,
    read_meta,
    save_encoder,
    to_json,
    write_atomic,
)


def save_model(model, directory: str | Path) -> Path:
    """Write a fitted model's directory (created if needed; files replaced atomically).

    ``meta.json`` is written last and records each file's size and SHA-256, so a load
    refuses a damaged file, or a directory a failed save left half-replaced.
    """
    encoder_files = model._encoder_files()
    if model._encoder is not None and encoder_files is None:
        raise CorescError("this model's sentence encoder was given to fit, not trained "
                          "with it: it cannot be saved")
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
    save_encoder(d, encoder_files)
    files.update({name: record(data) for name, data in (encoder_files or {}).items()})
    if model.calibration_ is not None:
        put(CALIBRATION_FILE, to_json(model.calibration_.to_json(), None))
    else:
        (d / CALIBRATION_FILE).unlink(missing_ok=True)
    source = d / SOURCE_DIR
    if source.is_symlink():  # planted: never write into, or empty, what it points to
        source.unlink()
    if model._source is not None:
        save_model(model._source, source)
    elif source.is_dir():
        _remove_model_dir(source)
    meta = {k: v for k, v in model.meta_.items() if k != FILES_KEY}
    write_atomic(d / "meta.json", to_json({**meta, FILES_KEY: files}))
    write_card(d)
    return d


def _remove_model_dir(d: Path) -> None:
    """Remove a stale ``source/`` model directory (only the files a model has; a link
    is removed, never followed)."""
    source = d / SOURCE_DIR
    if source.is_dir() and not source.is_symlink():
        _remove_model_dir(source)
    for f in d.iterdir():
        if f.is_symlink() or f.is_file():
            f.unlink()
    with contextlib.suppress(OSError):  # a folder of someone else's inside stays, and so
        d.rmdir()                       # does source/: a model without a source ignores it


def load_model(cls, directory: str | Path, threads: int = 0):
    """Load a saved model directory as an instance of ``cls`` (a :class:`CoreSCClassifier`):
    JSON, npz without pickle, crfsuite and ONNX files.

    ``meta.json`` is checked against its schema and every file it records is read and
    matched to its record before any is parsed (:mod:`~coresc.model.integrity`); the
    files must also be the ones the configuration uses, no more and no fewer.
    ``threads``: the cores the sentence encoder may use, if the model has one
    (0 = all cores; worker processes that share a machine give 1).
    """
    d = Path(directory)
    if not d.is_dir():
        raise ModelError(d, "model directory not found")
    for name in MODEL_FILES:
        if not os.path.lexists(d / name):
            raise ModelError(d, f"not a coresc model directory (missing {name})")
    meta = read_meta(d)
    if meta["format"] != MODEL_FORMAT:
        raise ModelError(d, f"unsupported model format {meta['format']!r} "
                            f"(this coresc reads format {MODEL_FORMAT})")
    records = records_of(meta, d, RECORDED_FILES)
    files = read_recorded(d, records)  # every recorded file there and whole
    refuse_unrecorded(d, records, RECORDED_FILES)
    model = _configured(cls, d, files)
    _expect_files(d, files, meta, model)
    labels = meta["labels"]
    model.labels_ = tuple(labels)
    model.c1_, model.c2_ = meta.get("c1"), meta.get("c2")
    model.label_bias_ = {k: float(v) for k, v in (meta.get("label_bias") or {}).items()}
    model.source_mix_ = {k: float(v) for k, v in (meta.get("source_mix") or {}).items()}
    model.source_absent_ = {k: float(v) for k, v in (meta.get("source_absent") or {}).items()}
    model.domains_ = tuple(meta.get("domains") or ())
    model.domain_bias_ = {tag: {k: float(v) for k, v in bias.items()}
                          for tag, bias in (meta.get("domain_bias") or {}).items()}
    model.meta_ = meta
    model.name_ = d.resolve().name  # what output records name the model by
    model._crf_bytes = files["crf.crfsuite"]
    model._tagger = read_crf(d, "crf.crfsuite", labels, model._crf_bytes)
    if model.stack:
        model._stack_bytes = files["crf_stack.crfsuite"]
        model._stack_tagger = read_crf(d, "crf_stack.crfsuite", labels, model._stack_bytes)
    if "ovr.npz" in files:
        model._ovr = load_ovr(d, labels, files)
        # the layer scores with scipy.sparse: import it with the model (a one-time
        # ~0.2 s), not inside the first paper's annotation
        import scipy.sparse  # noqa: F401
    if model.encoder is not None:
        model._encoder_loaded_files = {n: files[n] for n in ENCODER_FILES}
        model._encoder = open_encoder(d, model._encoder_loaded_files, threads)
    if model.source is not None:
        if not (d / SOURCE_DIR).is_dir():
            raise ModelError(d, f"an adapted model but its source model ({SOURCE_DIR}/) is "
                                "missing")
        model._source = load_model(cls, d / SOURCE_DIR, threads)
    model.calibration_ = None
    if CALIBRATION_FILE in files:
        path = d / CALIBRATION_FILE
        try:
            model.calibration_ = Calibration.from_json(parse_model_json(path,
                                                                        files[CALIBRATION_FILE]))
        except ValueError as exc:
            raise ModelError(path, f"bad calibration ({exc})") from None
    return model


def _configured(cls, d: Path, files: dict[str, bytes]):
    """An unfitted ``cls`` with the settings of ``config.json``."""
    config = parse_model_json(d / "config.json", files["config.json"])
    if not isinstance(config, dict):
        raise ModelError(d / "config.json", "must hold a JSON object")
    try:
        model = cls(**config)
        model._validate()
    except (TypeError, ValueError) as exc:
        raise ModelError(d / "config.json", f"bad configuration: {exc}") from None
    return model


def _expect_files(d: Path, files: dict[str, bytes], meta: dict, model) -> None:
    """The recorded files are the ones the model's settings use, and ``meta.json``'s
    account of the secondary layer and the calibration agrees with them: a part that is
    missing or left over is refused, never loaded without it (issue 42)."""
    wanted = {"crf.crfsuite": True, "config.json": True,
              "crf_stack.crfsuite": bool(model.stack),
              "ovr.npz": meta.get("secondary") is not None,
              "ovr_vocab.json": meta.get("secondary") is not None,
              CALIBRATION_FILE: meta.get("calibration") is not None,
              **{n: model.encoder is not None for n in ENCODER_FILES}}
    for name, want in wanted.items():
        if want and name not in files:
            raise ModelError(d / name, "missing from meta.json's file records, which the "
                                       "model needs")
        if not want and name in files:
            raise ModelError(d / name, "recorded in meta.json, but the model's settings do "
                                       "not use it")
