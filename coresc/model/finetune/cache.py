"""Fine-tuned encoders and their predictions on disk, keyed by what made them.

A key is the SHA-256 of everything that determines the result: the settings, the base
weights, the device kind, the label order and every training example in order. A rerun
of an experiment, another fold that trains on the same papers, or the CRF's inner CV
finds the encoder instead of fine-tuning it again; an interrupted run resumes at the
last finished encoder. Files are written atomically (temporary name, then rename) and
hold no pickle: weights are safetensors, predictions ``.npy``.

The folder is ``$CORESC_CACHE_DIR`` or ``~/.cache/coresc``, under ``encoders/``.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from ...config import cache_root


def cache_dir() -> Path:
    return cache_root() / "encoders"


def digest(*parts: Any) -> str:
    """SHA-256 of JSON-encoded parts (bytes are hashed as they are)."""
    h = hashlib.sha256()
    for part in parts:
        h.update(part if isinstance(part, bytes) else
                 json.dumps(part, sort_keys=True, ensure_ascii=False).encode("utf-8"))
        h.update(b"\x00")
    return h.hexdigest()


def examples_digest(units: Iterable[tuple], labels: Iterable[Iterable[int]] | None = None,
                    ) -> str:
    """SHA-256 of tokenised units (ids, types, spans) and their spans' label indices,
    in order."""
    h = hashlib.sha256()
    for ids, types, spans in units:
        h.update(np.asarray(ids, dtype=np.int32).tobytes())
        h.update(b"|")
        h.update(np.asarray(types, dtype=np.int8).tobytes())
        h.update(b"|")
        h.update(np.asarray(spans, dtype=np.int32).tobytes())
        h.update(b"\x00")
    for row in labels if labels is not None else ():
        h.update(np.asarray(list(row), dtype=np.int32).tobytes())
        h.update(b"\x00")
    return h.hexdigest()


def _path(key: str, name: str) -> Path:
    return cache_dir() / key[:2] / key / name


def load_bytes(key: str, name: str) -> bytes | None:
    path = _path(key, name)
    try:
        return path.read_bytes()
    except OSError:
        return None


def save_bytes(key: str, name: str, data: bytes) -> None:
    """Store ``data`` under ``key``; a full disk or a read-only home only costs reuse."""
    path = _path(key, name)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{name}.{os.getpid()}.part")
        tmp.write_bytes(data)
        tmp.replace(path)
    except OSError:
        pass


def load_array(key: str) -> np.ndarray | None:
    data = load_bytes(key, "probs.npy")
    if data is None:
        return None
    import io

    try:
        return np.load(io.BytesIO(data), allow_pickle=False)
    except ValueError:
        return None


def save_array(key: str, arr: np.ndarray) -> None:
    import io

    buf = io.BytesIO()
    np.save(buf, arr, allow_pickle=False)
    save_bytes(key, "probs.npy", buf.getvalue())
