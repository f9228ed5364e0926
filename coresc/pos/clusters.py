"""Word clusters from unlabelled text: the tagger's features for unseen words."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np

from .features import NORMALISE, word_key

__all__ = ["learn_word_clusters"]


def learn_word_clusters(
    sentences: Iterable[Sequence[str]],
    n_clusters: int = 256,
    min_count: int = 3,
    n_context: int = 1000,
    n_components: int = 100,
    seed: int = 0,
) -> dict[str, int]:
    """Cluster words by their neighbours in unlabelled tokenised text.

    Each word key seen ``min_count`` times is described by counts of its left and right
    neighbours among the ``n_context`` most frequent keys (log-scaled, reduced to
    ``n_components`` dimensions by truncated SVD, unit length), then grouped by k-means.
    Returns ``{word key: cluster id}``.
    """
    from scipy.sparse import coo_matrix
    from sklearn.cluster import MiniBatchKMeans
    from sklearn.decomposition import TruncatedSVD
    from sklearn.preprocessing import normalize

    keyed = [[word_key(NORMALISE.get(t, t)) for t in s] for s in sentences]
    counts = Counter(k for s in keyed for k in s)
    vocab = {k: i for i, (k, c) in enumerate(counts.most_common()) if c >= min_count}
    context = {k: i for i, (k, _) in enumerate(counts.most_common(n_context))}
    pairs: Counter = Counter()
    for s in keyed:
        padded = ["-START-", *s, "-END-"]
        for i in range(1, len(padded) - 1):
            row = vocab.get(padded[i])
            if row is None:
                continue
            left = context.get(padded[i - 1], -1)
            right = context.get(padded[i + 1], -1)
            if left >= 0:
                pairs[row, left] += 1
            if right >= 0:
                pairs[row, n_context + right] += 1
    if len(vocab) < n_clusters:
        raise ValueError(f"too little text to learn {n_clusters} clusters ({len(vocab)} words)")
    rows, cols = zip(*pairs, strict=True)
    x = coo_matrix((np.log1p(list(pairs.values())), (rows, cols)),
                   shape=(len(vocab), 2 * n_context)).tocsr()
    x = normalize(TruncatedSVD(n_components, random_state=seed).fit_transform(normalize(x)))
    km = MiniBatchKMeans(n_clusters, random_state=seed, n_init=3, batch_size=4096).fit(x)
    return {k: int(c) for k, c in zip(vocab, km.labels_, strict=True)}
