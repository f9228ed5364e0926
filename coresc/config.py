"""Where the shared data lives (``$CORESC_DATA``, else ``../shared/data`` beside the
project), and where coresc keeps what it caches (``$CORESC_CACHE_DIR``)."""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def data_dir() -> Path:
    """The folder holding the corpora (``art-corpus/``, ``cra-corpus/``, ``oa-stm/`` ...).

    ``CORESC_DATA`` overrides; the default is ``../shared/data`` relative to the
    current directory, then relative to the project root (a source checkout).
    """
    env = os.environ.get("CORESC_DATA")
    if env:
        return Path(env)
    for base in (Path.cwd(), PROJECT_ROOT):
        candidate = base.parent / "shared" / "data"
        if candidate.is_dir():
            return candidate
    return Path.cwd().parent / "shared" / "data"


def cache_root() -> Path:
    """The folder of coresc's caches: ``$CORESC_CACHE_DIR``, else ``~/.cache/coresc``
    (fine-tuned encoders under ``encoders/``, model files' hashes in
    ``model-hashes.json``)."""
    return Path(os.environ.get("CORESC_CACHE_DIR") or Path.home() / ".cache" / "coresc")
