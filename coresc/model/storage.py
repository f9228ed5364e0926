"""A model directory on disk: JSON, npz without pickle, crfsuite files; atomic writes."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import CorescError
from .crf import open_tagger

MODEL_FORMAT = 1
DEFAULT_MODEL_DIR = Path(__file__).resolve().parent.parent / "models" / "default"

MODEL_FILES = ("crf.crfsuite", "config.json", "meta.json")
#: The calibration maps (:mod:`coresc.model.calibration`), absent in uncalibrated models.
CALIBRATION_FILE = "calibration.json"


class ModelError(CorescError):
    """A model directory that is missing, incomplete or corrupt."""

    def __init__(self, path: str | Path, problem: str) -> None:
        super().__init__(f"{path}: {problem}")



def read_crf(d: Path, name: str, labels: Sequence[str]) -> tuple[bytes, Any]:
    """A model directory's crfsuite file: its bytes and an open tagger, labels checked."""
    data = (d / name).read_bytes()
    try:
        tagger = open_tagger(data)
    except Exception as exc:  # crfsuite raises ValueError/OSError on bad files
        raise ModelError(d / name, f"cannot open CRF model ({exc})") from None
    if set(tagger.labels()) - set(labels):
        raise ModelError(d, f"{name} labels do not match meta.json")
    return data, tagger



def load_ovr(d: Path, labels: list[str]) -> dict[str, Any]:
    vocab_doc = read_json(d / "ovr_vocab.json")
    try:
        with np.load(d / "ovr.npz", allow_pickle=False) as z:
            coef = np.asarray(z["coef"], dtype=np.float32)
            intercept = np.asarray(z["intercept"], dtype=np.float32)
    except (OSError, ValueError, KeyError) as exc:
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


def read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ModelError(path, "missing") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelError(path, f"corrupt JSON ({exc})") from None


def write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name("." + path.name + ".part")
    tmp.write_bytes(data)
    tmp.replace(path)
