"""Features for the stacked CRF: each sentence's features joined with the first CRF's
marginals for it, its neighbours, its paragraph and its section."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..document import Paper
from .extract import _paper_layout
from .groups import Features

if TYPE_CHECKING:  # numpy is imported where it is used: every CLI command imports this
    import numpy as np


def sentence_blocks(paper: Paper) -> list[tuple[int, int]]:
    """(section index, paragraph number in the paper) of each sentence, reading order."""
    _, ctxs, _ = _paper_layout(paper)
    blocks = []
    para = -1
    last = None
    for c in ctxs:
        if (c.sec_index, c.para_index) != last:
            last = (c.sec_index, c.para_index)
            para += 1
        blocks.append((c.sec_index, para))
    return blocks


def marginal_features(x: Sequence[Features], marg: np.ndarray,
                      labels: Sequence[str], blocks: Sequence[tuple[int, int]],
                      floor: float = 0.01) -> list[Features]:
    """A stacked CRF's input: each sentence's features plus a first CRF's marginals.

    ``marg`` is (sentences x labels), columns in ``labels`` order. Added per sentence:
    its own marginals (``m=Res``), the previous and next sentence's (``mp=``, ``mn=``),
    the mean over the rest of its paragraph (``mpara=``) and section (``msec=``), and
    the paper's mean (``mdoc=``), so the second CRF sees what the first predicted around
    the sentence, beyond the one-step reach of its transitions. Values under ``floor``
    are left out (they carry little and would make every sentence dense).
    """
    import numpy as np

    n = len(x)
    if n == 0:
        return []
    marg = np.asarray(marg, dtype=float)
    sec = np.array([b[0] for b in blocks])
    par = np.array([b[1] for b in blocks])
    para_mean = _mean_of_others(marg, par)
    sec_mean = _mean_of_others(marg, sec)
    doc = marg.mean(axis=0)
    out = []
    for j in range(n):
        f = dict(x[j])
        parts = [("m=", marg[j]), ("mdoc=", doc)]
        if j > 0:
            parts.append(("mp=", marg[j - 1]))
        if j < n - 1:
            parts.append(("mn=", marg[j + 1]))
        for prefix, rows in (("mpara=", para_mean), ("msec=", sec_mean)):
            if rows[j] is None:
                f[prefix + "alone"] = 1.0
            else:
                parts.append((prefix, rows[j]))
        for prefix, vec in parts:
            for lab, v in zip(labels, vec.tolist(), strict=True):
                if v >= floor:
                    f[prefix + lab] = v
        out.append(f)
    return out


def _mean_of_others(marg: np.ndarray, group: np.ndarray) -> list[np.ndarray | None]:
    """Per row, the mean of the other rows of its group (``None`` when it is alone)."""
    import numpy as np

    ids, inverse, counts = np.unique(group, return_inverse=True, return_counts=True)
    sums = np.zeros((len(ids), marg.shape[1]))
    np.add.at(sums, inverse, marg)
    out: list[np.ndarray | None] = []
    for j, g in enumerate(inverse):
        c = counts[g] - 1
        out.append((sums[g] - marg[j]) / c if c else None)
    return out
