"""Training the tagger: the averaged perceptron over the window features, the tag
dictionary of frequent unambiguous words, and pruning features that ended up unused."""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Sequence

import numpy as np

from .features import PAD_LEFT, PAD_RIGHT, word_features

#: A training sentence after normalisation: its words and their gold tags.
Tagged = tuple[list[str], list[str]]


def averaged_perceptron(data: Sequence[Tagged], tags: Sequence[str], clusters: dict[str, int],
                        n_iter: int, seed: int) -> tuple[dict[str, int], np.ndarray, np.ndarray]:
    """Train on ``data``; return the feature index, the averaged weights
    ``(n_features, n_tags)`` and the tag-history scores ``(n_tags + 1, n_tags + 1, n_tags)``
    (index ``n_tags`` stands for "start"), both float32."""
    tag_id = {t: i for i, t in enumerate(tags)}
    n_tags = len(tags)

    # Feature index over everything seen in training (all roles, all words + padding).
    names: dict[str, int] = {}
    word_ids: dict[str, list[list[int]]] = {}
    for words, _ in data:
        for w in (*PAD_LEFT, *words, *PAD_RIGHT):
            if w not in word_ids:
                word_ids[w] = [
                    [names.setdefault(n, len(names)) for n in role]
                    for role in word_features(w, clusters)
                ]
    n_feat = len(names)
    w = np.zeros((n_feat, n_tags))
    total = np.zeros((n_feat, n_tags))
    stamp = np.zeros((n_feat, n_tags))
    tr = np.zeros(((n_tags + 1) ** 2, n_tags))  # flattened trans[p2, p1]
    tr_total = np.zeros_like(tr)
    tr_stamp = np.zeros_like(tr)

    # Per-position feature ids: current word role 0, neighbours' roles 1-4.
    examples = []
    for words, gold in data:
        padded = [*PAD_LEFT, *words, *PAD_RIGHT]
        pos_ids = []
        for i in range(2, len(padded) - 2):
            ids = (
                word_ids[padded[i]][0] + word_ids[padded[i - 1]][1]
                + word_ids[padded[i + 1]][2] + word_ids[padded[i - 2]][3]
                + word_ids[padded[i + 2]][4]
            )
            pos_ids.append(np.array(ids))
        examples.append((pos_ids, [tag_id[t] for t in gold]))

    def update(mat, tot, stp, rows, col, delta, now):
        tot[rows, col] += (now - stp[rows, col]) * mat[rows, col]
        stp[rows, col] = now
        mat[rows, col] += delta

    rng = random.Random(seed)
    start = n_tags
    now = 0
    order = list(range(len(examples)))
    for _ in range(n_iter):
        rng.shuffle(order)
        for k in order:
            pos_ids, gold = examples[k]
            p2 = p1 = start
            for ids, g in zip(pos_ids, gold, strict=True):
                now += 1
                h = p2 * (n_tags + 1) + p1
                guess = int((w[ids].sum(axis=0) + tr[h]).argmax())
                if guess != g:
                    for col, delta in ((g, 1.0), (guess, -1.0)):
                        update(w, total, stamp, ids, col, delta, now)
                        update(tr, tr_total, tr_stamp, [h], col, delta, now)
                # gold history during training keeps updates local (the usual choice
                # for a greedy tagger trained on little data)
                p2, p1 = p1, g
    total += (now - stamp) * w
    tr_total += (now - tr_stamp) * tr
    weights = (total / now).astype(np.float32)
    trans = (tr_total / now).astype(np.float32).reshape(n_tags + 1, n_tags + 1, n_tags)
    return names, weights, trans


def make_tagdict(data: Sequence[Tagged], min_count: int, min_share: float) -> dict[str, str]:
    """Words seen at least ``min_count`` times whose most frequent tag has at least
    ``min_share`` of them, mapped to that tag (tagged by look-up, without scoring)."""
    counts: dict[str, Counter] = defaultdict(Counter)
    for words, tags in data:
        for word, tag in zip(words, tags, strict=True):
            counts[word][tag] += 1
    out = {}
    for word, c in counts.items():
        tag, n = c.most_common(1)[0]
        total = sum(c.values())
        if total >= min_count and n / total >= min_share:
            out[word] = tag
    return out


def prune(features: dict[str, int], weights: np.ndarray,
          eps: float = 1e-3) -> tuple[dict[str, int], np.ndarray]:
    """Drop features whose averaged weights are all (nearly) zero: a smaller model."""
    keep = np.abs(weights).max(axis=1) > eps
    names = [n for n, i in sorted(features.items(), key=lambda x: x[1]) if keep[i]]
    return {n: i for i, n in enumerate(names)}, weights[keep]
