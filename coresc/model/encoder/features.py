"""What the CRF sees of the encoder: its probabilities for a sentence and its neighbours."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def encoder_features(probs: np.ndarray, labels: Sequence[str], neighbours: int,
                     scale: float = 1.0, prefix: str = "enc") -> list[dict[str, float]]:
    """CRF features from encoder probabilities (sentences x labels) of one paper.

    ``enc=L`` is the sentence's probability of label L times ``scale``, ``enc-1=L`` /
    ``enc+1=L`` those of the previous / next sentence (up to ``neighbours`` each side,
    within the paper). ``prefix`` replaces ``enc`` (an adapted model's source
    probabilities use the same shape, :mod:`~coresc.model.source`).
    """
    n = len(probs)
    out: list[dict[str, float]] = [{} for _ in range(n)]
    names = {d: [f"{prefix}{'' if d == 0 else f'{d:+d}'}={lab}" for lab in labels]
             for d in range(-neighbours, neighbours + 1)}
    rows = (probs * scale if scale != 1.0 else probs).tolist()
    for i in range(n):
        f = out[i]
        for d, keys in names.items():
            j = i + d
            if 0 <= j < n:
                f.update(zip(keys, rows[j], strict=True))
    return out
