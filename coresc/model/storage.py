"""A model directory on disk: JSON, npz without pickle, crfsuite files; atomic writes."""

from __future__ import annotations

import contextlib
import io
import json
import os
import secrets
import zipfile
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import CorescError
from .crf import open_tagger
from .crffile import check_crf
from .integrity import ModelError, read_model_file
from .schema import SchemaError, Unreadable, check_evaluation, check_meta, parse_json

MODEL_FORMAT = 1
#: Held-out results attached to a model for its card (:mod:`~coresc.model.card`).
EVALUATION_FILE = "evaluation.json"
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
#: The sentence encoder's files.
ENCODER_FILES = ("encoder.onnx", "tokenizer.json", "encoder.json")
#: Every file ``meta.json`` may record (:mod:`~coresc.model.integrity`), in the order
#: a model is saved.
RECORDED_FILES = ("crf.crfsuite", "crf_stack.crfsuite", "config.json", "ovr.npz",
                  "ovr_vocab.json", *ENCODER_FILES, CALIBRATION_FILE)


def read_crf(d: Path, name: str, labels: Sequence[str], data: bytes) -> Any:
    """An open tagger over a model directory's crfsuite file (its bytes checked against
    the records, :mod:`~coresc.model.integrity`), after every offset and count crfsuite
    will follow is checked against the file (:mod:`~coresc.model.crffile`)."""
    check_crf(d / name, data, labels)
    try:
        return open_tagger(data)
    except Exception as exc:  # crfsuite raises ValueError/OSError on bad files
        raise ModelError(d / name, f"cannot open CRF model ({exc})") from None


def load_ovr(d: Path, labels: list[str], files: Mapping[str, bytes]) -> dict[str, Any]:
    """The one-vs-rest layer from ``ovr.npz`` and ``ovr_vocab.json`` (checked bytes)."""
    vocab_doc = parse_model_json(d / "ovr_vocab.json", files["ovr_vocab.json"])
    try:
        with np.load(io.BytesIO(files["ovr.npz"]), allow_pickle=False) as z:
            coef = np.asarray(z["coef"], dtype=np.float32)
            intercept = np.asarray(z["intercept"], dtype=np.float32)
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, zlib.error) as exc:
        raise ModelError(d / "ovr.npz", f"cannot read one-vs-rest weights ({exc})") from None
    if not (np.isfinite(coef).all() and np.isfinite(intercept).all()):
        raise ModelError(d / "ovr.npz", "one-vs-rest weights that are not finite numbers")
    try:
        names = list(vocab_doc["features"])
        ovr_labels = list(vocab_doc["labels"])
        meta = dict(vocab_doc["meta"])
        float(meta["threshold2"]), float(meta["threshold3"])
        if not all(isinstance(n, str) for n in names):
            raise TypeError("a feature name that is not a string")
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
    return (json.dumps(obj, indent=indent, ensure_ascii=False, sort_keys=False,
                       allow_nan=False) + "\n").encode("utf-8")


def parse_model_json(path: Path, data: bytes) -> Any:
    """A model file's JSON (nesting bounded, finite numbers only: :func:`.schema.parse_json`);
    :class:`ModelError` naming ``path`` otherwise."""
    try:
        return parse_json(data)
    except Unreadable as exc:
        raise ModelError(path, str(exc)) from None
    except (ValueError, RecursionError) as exc:
        raise ModelError(path, f"corrupt JSON ({str(exc).splitlines()[0][:200]})") from None


def read_json(path: Path) -> Any:
    """A JSON file of a model directory that ``meta.json`` does not record (``meta.json``
    itself, ``evaluation.json``): a regular file inside it, parsed as
    :func:`parse_model_json` does."""
    return parse_model_json(path, read_model_file(path.parent, path.name))


def read_meta(d: Path) -> dict[str, Any]:
    """``meta.json``, checked against its schema (:func:`.schema.check_meta`)."""
    try:
        return check_meta(read_json(d / "meta.json"))
    except SchemaError as exc:
        raise ModelError(d / "meta.json", str(exc)) from None


def read_evaluation(d: Path) -> dict[str, Any] | None:
    """``evaluation.json`` (None when the directory has none), checked against its
    schema (:func:`.schema.check_evaluation`)."""
    path = d / EVALUATION_FILE
    if not os.path.lexists(path):
        return None
    try:
        return check_evaluation(read_json(path))
    except SchemaError as exc:
        raise ModelError(path, str(exc)) from None


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``path`` through a temporary file beside it, created exclusively (O_EXCL)
    under a name no one can guess, so a link planted where a fixed name would be (such
    as ``.meta.json.part``) is never followed; then renamed over ``path``, which
    replaces a link at ``path`` itself rather than writing through it (issue 42)."""
    while True:
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(8)}.part")
        try:  # mode 0666 less the umask, as any new file
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            break
        except FileExistsError:
            continue
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def save_encoder(d: Path, files: dict[str, bytes] | None) -> None:
    """Write (or, for a model without encoder, remove) the encoder's files."""
    for name in ENCODER_FILES:
        if files is None:
            (d / name).unlink(missing_ok=True)
        else:
            write_atomic(d / name, files[name])


def open_encoder(d: Path, files: dict[str, bytes], threads: int = 0):
    """An :class:`~coresc.model.encoder.OnnxEncoder` over a model directory's files
    (``threads``: the cores it may use, 0 = all)."""
    from .encoder import OnnxEncoder

    try:
        info = parse_model_json(d / "encoder.json", files["encoder.json"])
        return OnnxEncoder(files["encoder.onnx"], files["tokenizer.json"].decode("utf-8"),
                           info, threads)
    except CorescError:
        raise
    except Exception as exc:  # onnxruntime and tokenizers raise their own types
        raise ModelError(d, f"cannot open the sentence encoder ({type(exc).__name__}: "
                            f"{str(exc).splitlines()[0][:200]})") from None
