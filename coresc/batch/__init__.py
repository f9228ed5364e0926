"""Batches that finish: streamed annotation with progress, workers, resume and Dask.

:func:`annotate_files` is what ``coresc annotate`` runs: each input is read, annotated
and written (atomically) before the next is held; ``jobs`` worker processes or a Dask
cluster (``scheduler``) share the work; a manifest beside the output records every
input's outcome so an interrupted run resumes where it stopped.

Modules: :mod:`.work` (what a worker does with one input), :mod:`.outputs` (where
outputs go, checked before the work), :mod:`.manifest`, :mod:`.pool` (worker
processes), :mod:`.progress`, :mod:`.run` (one run), :mod:`.cluster` (Dask).
"""

from __future__ import annotations

from .run import Interrupted, Summary, Terminated, annotate_files

__all__ = ["Interrupted", "Summary", "Terminated", "annotate_files"]
