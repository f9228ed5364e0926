"""Units run in batches: padded into arrays, grouped by length, run on threads, and the
rows put back in sentence order."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .inputs import Encoded, Unit


def pad_batch(batch: Sequence[Encoded]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ids, mask and types of a batch, right-padded with 0 (batch x longest)."""
    width = max(len(ids) for ids, _ in batch)
    ids = np.zeros((len(batch), width), dtype=np.int64)
    types = np.zeros((len(batch), width), dtype=np.int64)
    mask = np.zeros((len(batch), width), dtype=np.int64)
    for r, (seq, typ) in enumerate(batch):
        ids[r, : len(seq)] = seq
        types[r, : len(typ)] = typ
        mask[r, : len(seq)] = 1
    return ids, mask, types


def pad_units(batch: Sequence[Unit]) -> tuple[np.ndarray, ...]:
    """Ids, mask, types (batch x longest, int64) and the pooling weights (batch x most
    spans x longest, float32: 1/length over each span) of a batch of units."""
    ids, mask, types = pad_batch([(u[0], u[1]) for u in batch])
    pool = np.zeros((len(batch), max(len(u[2]) for u in batch), ids.shape[1]), np.float32)
    for r, (_, _, spans) in enumerate(batch):
        for k, (a, b) in enumerate(spans):
            pool[r, k, a:b] = 1.0 / (b - a)
    return ids, mask, types, pool


def unit_batches(units: Sequence[Unit], per_batch: int) -> list[list[int]]:
    """Indices of units of similar length, about ``per_batch`` sentences a batch."""
    order = sorted(range(len(units)), key=lambda i: len(units[i][0]))
    batches: list[list[int]] = [[]]
    n = 0
    for i in order:
        if n >= per_batch:
            batches.append([])
            n = 0
        batches[-1].append(i)
        n += len(units[i][2])
    return [b for b in batches if b]


def same_length(units: Sequence[Unit], per_batch: int) -> list[list[int]]:
    """Indices of units of one length each, at most ``per_batch`` sentences a batch (a
    longer unit alone): what inference runs, with no padding.

    Padding to the longest unit of a batch cost 5% more word pieces on 20 OA-STM
    papers (9% on a paper of 277 sentences), each a full pass of every layer plus a row
    and a column of each attention matrix, while a window of a few hundred pieces keeps
    every core busy alone (docs/benchmarks.md, issue 41). Short units, whose runs cost
    mostly the reading of the weights, still share runs when they are of one length.
    Training keeps :func:`unit_batches`, whose batches its steps are tuned on.
    """
    order = sorted(range(len(units)), key=lambda i: len(units[i][0]))
    batches: list[list[int]] = []
    n = 0
    for i in order:
        if not batches or n >= per_batch or len(units[i][0]) != len(units[batches[-1][0]][0]):
            batches.append([])
            n = 0
        batches[-1].append(i)
        n += len(units[i][2])
    return batches


def run_units(units: Sequence[Unit], run: Callable[..., np.ndarray], n_labels: int,
              per_batch: int, workers: int = 1) -> np.ndarray:
    """``run(ids, mask, types, pool)`` -> (batch x spans x labels) over batches of units
    of one length (:func:`same_length`), ``workers`` batches at once (``run`` must be
    safe to call from several threads; onnxruntime's ``session.run`` is, and lets go
    of the GIL while it runs); one row per span, units and their spans in order, the
    same whatever ``workers``."""
    offsets = np.cumsum([0] + [len(u[2]) for u in units])
    out = np.zeros((int(offsets[-1]), n_labels), dtype=np.float32)

    def one(rows: list[int]) -> tuple[list[int], np.ndarray]:
        return rows, run(*pad_units([units[i] for i in rows]))

    # longest first, so that no worker is left with a long batch at the end
    batches = same_length(units, per_batch)[::-1]
    if workers > 1 and len(batches) > 1:
        with ThreadPoolExecutor(min(workers, len(batches))) as threads:
            results = list(threads.map(one, batches))
    else:
        results = [one(rows) for rows in batches]
    for rows, probs in results:
        for r, i in enumerate(rows):
            n = len(units[i][2])
            out[offsets[i]:offsets[i] + n] = probs[r, :n]
    return out


def scatter(flat: np.ndarray, where: Sequence[Sequence[int]], n: int) -> np.ndarray:
    """Rows of ``flat`` (spans in unit order) placed at their sentences' indices."""
    out = np.zeros((n, flat.shape[1]), dtype=flat.dtype)
    idx = [i for w in where for i in w]
    if idx:
        out[idx] = flat
    return out
