"""The verbs of the ``coresc`` command, one module each (see :mod:`coresc.cli`)."""

from __future__ import annotations

import argparse


def output_path(value: str) -> str:
    """The ``type`` of every ``-o``: an empty (or blank) path is a usage error, never the
    current folder (where ``-o ""`` would otherwise write)."""
    if not value.strip():
        raise argparse.ArgumentTypeError("empty path: give a file or folder name")
    return value
