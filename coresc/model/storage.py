"""A model directory on disk: JSON, npz without pickle, crfsuite files; atomic writes."""

from __future__ import annotations

import io
import json
import os
import zipfile
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import CorescError
from .crf import open_tagger
from .integrity import ModelError, Records, read_checked

MODEL_FORMAT = 1
BUNDLED_DIR = Path(__file__).resolve().parent.parent / "models"
#: Models shipped with the package, by name: ``fast`` (hand-built features only) and
#: ``accurate`` (with a fine-tuned sentence encoder); ``default`` is the one used when
#: none is named: ``accurate``, which annotates a typical paper (250-300 sentences) in
#: about 2 s cold on two cores (docs/benchmarks.md); ``fast`` is 20 times faster for
#: very large batches.
BUNDLED_MODELS = {"fast": "fast", "accurate": "accurate", "default": "accurate"}
DEFAULT_MODEL_DIR = BUNDLED_DIR / BUNDLED_MODELS["default"]
#: Environment variable naming the model used when none is given (a bundled name or a
#: directory), e.g. ``CORESC_MODEL=fast`` on a cluster that annotates millions of papers.
MODEL_ENV = "CORESC_MODEL"


def default_model_dir() -> Path:
    """The model used when none is named: ``$CORESC_MODEL`` if set, else the bundled
    default (:data:`DEFAULT_MODEL_DIR`)."""
    named = os.environ.get(MODEL_ENV, "").strip()
    return resolve_model(named) if named else DEFAULT_MODEL_DIR


def resolve_model(spec: str | Path | None) -> Path:
    """The directory of a model given by path or bundled name (None: the default).

    A directory that exists wins over a bundled name, so a user's ``accurate/`` folder
    is never shadowed.
    """
    if spec is None:
        return default_model_dir()
    path = Path(spec)
    if not path.exists() and str(spec) in BUNDLED_MODELS:
        bundled = BUNDLED_DIR / BUNDLED_MODELS[str(spec)]
        if not (bundled / "config.json").is_file():
            raise ModelError(spec, "this installation has no such bundled model; train one "
                             f"with `python experiments/train_default_model.py --tier {spec} "
                             f"-o {bundled}`")
        return bundled
    return path

MODEL_FILES = ("crf.crfsuite", "config.json", "meta.json")
#: The sub-folder of an adapted model's directory that holds its source model
#: (:mod:`coresc.model.source`).
SOURCE_DIR = "source"
#: The calibration maps (:mod:`coresc.model.calibration`), absent in uncalibrated models.
CALIBRATION_FILE = "calibration.json"





def read_crf(d: Path, name: str, labels: Sequence[str],
             records: Records | None = None) -> tuple[bytes, Any]:
    """A model directory's crfsuite file: its bytes (checked against ``records``, see
    :mod:`~coresc.model.integrity`) and an open tagger, labels checked."""
    data = read_checked(d, name, records)
    try:
        tagger = open_tagger(data)
    except Exception as exc:  # crfsuite raises ValueError/OSError on bad files
        raise ModelError(d / name, f"cannot open CRF model ({exc})") from None
    if set(tagger.labels()) - set(labels):
        raise ModelError(d, f"{name} labels do not match meta.json")
    return data, tagger



def load_ovr(d: Path, labels: list[str], records: Records | None = None) -> dict[str, Any]:
    vocab_doc = read_json(d / "ovr_vocab.json", records)
    data = read_checked(d, "ovr.npz", records)
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            coef = np.asarray(z["coef"], dtype=np.float32)
            intercept = np.asarray(z["intercept"], dtype=np.float32)
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, zlib.error) as exc:
        raise ModelError(d / "ovr.npz", f"cannot read one-vs-rest weights ({exc})") from None
    try:
        names = list(vocab_doc["features"])
        ovr_labels = list(vocab_doc["labels"])
        meta = dict(vocab_doc["meta"])
        float(meta["threshold2"]), float(meta["threshold3"])
    except (KeyError, TypeError, ValueError):
        raise ModelError(d / "ovr_vocab.json", "missing features, labels or thresholds") \
            from None
    if ovr_labels != labels or coef.shape != (len(labels), len(names) + len(labels)) \
            or intercept.shape != (len(labels),):
        raise ModelError(d / "ovr.npz", "one-vs-rest weights do not match the vocabulary "
                                        "or the label set")
    return {"vocab": {n: i for i, n in enumerate(names)}, "coef": coef,
            "intercept": intercept, "labels": ovr_labels, "meta": meta}


def to_json(obj: Any, indent: int | None = 1) -> bytes:
    return (json.dumps(obj, indent=indent, ensure_ascii=False, sort_keys=False) + "\n") \
        .encode("utf-8")


def read_json(path: Path, records: Records | None = None) -> Any:
    """A model directory's JSON file; with ``records`` its bytes are checked first."""
    try:
        data = read_checked(path.parent, path.name, records) if records is not None \
            else path.read_bytes()
        return json.loads(data.decode("utf-8"))
    except FileNotFoundError:
        raise ModelError(path, "missing") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelError(path, f"corrupt JSON ({exc})") from None


def write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name("." + path.name + ".part")
    tmp.write_bytes(data)
    tmp.replace(path)


def save_encoder(d: Path, files: dict[str, bytes] | None) -> None:
    """Write (or, for a model without encoder, remove) the encoder's files."""
    from .encoder import ENCODER_FILES

    for name in ENCODER_FILES:
        if files is None:
            (d / name).unlink(missing_ok=True)
        else:
            write_atomic(d / name, files[name])


def load_encoder_files(d: Path, records: Records | None = None) -> dict[str, bytes]:
    """The encoder files of a model directory whose config names an encoder (checked
    against ``records`` before onnxruntime sees them)."""
    from .encoder import ENCODER_FILES

    missing = [n for n in ENCODER_FILES if not (d / n).is_file()]
    if missing:
        raise ModelError(d, f"config names a sentence encoder but {', '.join(missing)} "
                            f"is missing")
    return {n: read_checked(d, n, records) for n in ENCODER_FILES}


def open_encoder(d: Path, files: dict[str, bytes], threads: int = 0):
    """An :class:`~coresc.model.encoder.OnnxEncoder` over a model directory's files
    (``threads``: onnxruntime's intra-op threads, 0 = all cores)."""
    from .encoder import OnnxEncoder

    try:
        info = json.loads(files["encoder.json"])
        return OnnxEncoder(files["encoder.onnx"], files["tokenizer.json"].decode("utf-8"),
                           info, threads)
    except CorescError:
        raise
    except Exception as exc:  # onnxruntime and tokenizers raise their own types
        raise ModelError(d, f"cannot open the sentence encoder ({type(exc).__name__}: "
                            f"{str(exc).splitlines()[0][:200]})") from None
