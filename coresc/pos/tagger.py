"""The tagger itself: the averaged-perceptron model, greedy decoding with the per-word
score cache, and reading and writing the model. Its features are in :mod:`.features`,
its training in :mod:`.training`.

See :mod:`coresc.pos` for the design."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from itertools import repeat
from pathlib import Path

import numpy as np

from coresc.errors import InputError
from coresc.limits import max_sentence_words

from .features import (
    NORMALISE,
    PAD_LEFT,
    PAD_RIGHT,
    ROLE_STARTS,
    ROLES,
    flat_features,
    word_features,
)
from .training import averaged_perceptron, make_tagdict, prune

__all__ = ["PosTagger", "load_default", "DEFAULT_MODEL"]

DEFAULT_MODEL = Path(__file__).resolve().parent.parent / "models" / "pos" / "tagger.npz"

_CACHE_LIMIT = 200_000  # word types kept in the per-word score cache
_BATCH_TOKENS = 100_000  # tokens of windowed long sentences scored in one batch


class PosTagger:
    """Greedy averaged-perceptron POS tagger (Penn-Treebank tag set).

    Parameters
    ----------
    n_iter : passes over the training data.
    seed : shuffling seed (training is deterministic for a given seed).
    dict_min_count, dict_min_share : a word seen at least ``dict_min_count`` times whose
        most frequent tag has at least this share is tagged by look-up, without scoring.
    clusters : word key -> cluster id from unlabelled text (:func:`learn_word_clusters`);
        empty means no cluster features.
    """

    def __init__(
        self,
        n_iter: int = 8,
        seed: int = 0,
        dict_min_count: int = 10,
        dict_min_share: float = 0.98,
        clusters: dict[str, int] | None = None,
    ) -> None:
        self.n_iter = n_iter
        self.seed = seed
        self.dict_min_count = dict_min_count
        self.dict_min_share = dict_min_share
        self.clusters: dict[str, int] = dict(clusters or {})
        self.tags: list[str] = []
        self.features: dict[str, int] = {}
        self.weights = np.zeros((0, 0), dtype=np.float32)  # (n_features, n_tags)
        # history scores: trans[t-2, t-1] -> (n_tags,); index n_tags stands for "start"
        self.trans = np.zeros((1, 1, 0), dtype=np.float32)
        self.tagdict: dict[str, str] = {}
        self.meta: dict = {}
        self._cache: dict[str, np.ndarray] = {}

    def get_params(self) -> dict:
        return {
            "n_iter": self.n_iter,
            "seed": self.seed,
            "dict_min_count": self.dict_min_count,
            "dict_min_share": self.dict_min_share,
        }

    # ----------------------------------------------------------------- tagging
    def _word_scores(self, word: str) -> np.ndarray:
        """(5, n_tags) scores contributed by ``word`` in each role; cached per word."""
        vec = self._cache.get(word)
        if vec is None:
            # every role has a fixed number of features; unknown ones point at the zero
            # row at the end of ``_padded``, so one gather + reduceat scores all roles
            index, zero = self.features, len(self.features)
            feats = word_features(word, self.clusters)
            ids = [index.get(n, zero) for role in feats for n in role]
            vec = np.add.reduceat(self._padded[ids], ROLE_STARTS, axis=0)
            if len(self._cache) >= _CACHE_LIMIT:
                self._cache.clear()
            self._cache[word] = vec
        return vec

    def _static_scores(self, words: Sequence[str]) -> np.ndarray:
        """(n, n_tags) scores of everything but the tag history, for normalised words."""
        padded = [*PAD_LEFT, *words, *PAD_RIGHT]
        get = self._cache.get
        vecs = [get(w) for w in padded]
        for i, v in enumerate(vecs):
            if v is None:
                vecs[i] = self._word_scores(padded[i])
        v = np.stack(vecs)  # (n + 4, 5, n_tags)
        return v[2:-2, 0] + v[1:-3, 1] + v[3:-1, 2] + v[:-4, 3] + v[4:, 4]

    def tag(self, tokens: Sequence[str]) -> list[str]:
        """Penn-Treebank tags for one tokenised sentence (``len(result) == len(tokens)``)."""
        if not self.tags:
            raise RuntimeError("PosTagger is not trained: call train() or load()")
        if not tokens:
            return []
        norm = NORMALISE
        words = [norm.get(t, t) for t in tokens]
        tagdict = self.tagdict
        known = [tagdict.get(w) for w in words]
        tags = self.tags
        start = len(tags)
        if all(known):
            return known  # type: ignore[return-value]
        scores = self._static_scores(words)
        trans = self.trans
        out: list[str] = []
        p2 = p1 = start
        index = self._tag_index
        for i, fixed in enumerate(known):
            if fixed is None:
                best = int((scores[i] + trans[p2, p1]).argmax())
                fixed = tags[best]
            else:
                best = index[fixed]
            out.append(fixed)
            p2, p1 = p1, best
        return out

    def tag_many(self, sentences: Iterable[Sequence[str]]) -> list[list[str]]:
        """``tag`` applied to each sentence (same result), batched for speed.

        A sentence longer than :func:`~coresc.limits.max_sentence_words` tokens is tagged
        in windows of that many tokens: the decoding below takes one wave per token of
        the longest sentence, so one unpunctuated 10 MB "sentence" would be quadratic.
        """
        sentences = list(sentences)
        limit = max_sentence_words()
        if all(len(tokens) <= limit for tokens in sentences):
            return self._tag_batch(sentences)
        windows: list[Sequence[str]] = []
        owner: list[int] = []
        for i, tokens in enumerate(sentences):
            for start in range(0, max(len(tokens), 1), limit):
                windows.append(tokens[start:start + limit])
                owner.append(i)
        out: list[list[str]] = [[] for _ in sentences]
        # a few windows at a time: the batch's score arrays grow with its tokens
        step = max(1, _BATCH_TOKENS // limit)
        for first in range(0, len(windows), step):
            tagged = self._tag_batch(windows[first:first + step])
            for i, tags in zip(owner[first:first + step], tagged, strict=True):
                out[i] += tags
        return out

    def _tag_batch(self, sentences: Sequence[Sequence[str]]) -> list[list[str]]:
        """:meth:`tag_many` without windows.

        The uncached words of all sentences are scored with one gather, and the static
        scores of all sentences come from one vectorised sum over their concatenation
        (each sentence padded on its own, so windows never cross sentences).
        """
        if not self.tags:
            raise RuntimeError("PosTagger is not trained: call train() or load()")
        norm = NORMALISE
        tagdict = self.tagdict
        tags = self.tags
        start = len(tags)
        index = self._tag_index
        out: list[list[str] | None] = []
        todo: list[tuple[int, int]] = []  # (sentence index, its first row in ``padded``)
        padded: list[str] = []
        ids: list[int] = []  # tag id per padded position: -1 = to decide, pads = start
        pads = [start, start]
        for tokens in sentences:
            if not tokens:
                out.append([])
                continue
            words = [norm.get(t, t) for t in tokens]
            known = [tagdict.get(w) for w in words]
            if all(known):
                out.append(known)  # type: ignore[arg-type]
                continue
            todo.append((len(out), len(padded) + 2))
            out.append(None)
            padded += PAD_LEFT
            padded += words
            padded += PAD_RIGHT
            ids += pads
            ids += [index[t] if t is not None else -1 for t in known]
            ids += pads
        if not todo:
            return out  # type: ignore[return-value]
        # unique words of the batch -> rows of one (n_unique, 5, n_tags) array
        slot: dict[str, int] = {}
        setdef = slot.setdefault
        pos = [setdef(w, len(slot)) for w in padded]
        uniq = list(slot)
        cache = self._cache
        vecs = [cache.get(w) for w in uniq]
        missing = [i for i, v in enumerate(vecs) if v is None]
        if missing:
            self._score_words([uniq[i] for i in missing], vecs, missing)
        u = np.stack(vecs)
        p = np.array(pos, dtype=np.intp)
        # static scores of padded position i + 2 (the greedy pass adds the history)
        static = (u[p[2:-2], 0] + u[p[1:-3], 1] + u[p[3:-1], 2] + u[p[:-4], 3]
                  + u[p[4:], 4])
        # Greedy left-to-right decoding, done in waves: a word's best tag depends only on
        # the tags of the two words before it, so every undecided word whose two
        # predecessors are decided is scored at once (exactly the greedy pass's result).
        t = np.array(ids, dtype=np.intp)
        trans = self.trans
        pending = np.flatnonzero(t < 0)  # never 0 or 1: those are padding
        while len(pending):
            ready = (t[pending - 1] >= 0) & (t[pending - 2] >= 0)
            at = pending[ready]
            t[at] = (static[at - 2] + trans[t[at - 2], t[at - 1]]).argmax(axis=1)
            pending = pending[~ready]
        names = [tags[i] if i < start else "" for i in t.tolist()]
        for j, (k, first) in enumerate(todo):
            end = todo[j + 1][1] - 4 if j + 1 < len(todo) else len(names) - 2
            out[k] = names[first:end]
        return out  # type: ignore[return-value]

    def _score_words(self, words: list[str], vecs: list, where: list[int]) -> None:
        """Score uncached ``words`` in one gather + reduceat; store in cache and ``vecs``."""
        index, zero = self.features, len(self.features)
        get = index.get
        clusters = self.clusters
        ids: list[int] = []
        for w in words:
            ids += map(get, flat_features(w, clusters), repeat(zero))
        per = int(ROLE_STARTS[-1]) + 1  # features per word (the last role has one)
        starts = (np.arange(len(words))[:, None] * per + ROLE_STARTS).ravel()
        allv = np.add.reduceat(self._padded[ids], starts, axis=0).reshape(
            len(words), ROLES, -1)
        cache = self._cache
        for j, (w, i) in enumerate(zip(words, where, strict=True)):
            v = allv[j]
            if len(cache) >= _CACHE_LIMIT:
                cache.clear()
            cache[w] = v
            vecs[i] = v


    # ----------------------------------------------------------------- training
    def train(self, sentences: Sequence[Sequence[tuple[str, str]]]) -> PosTagger:
        """Learn from tagged sentences: each a sequence of ``(word, tag)`` pairs.

        Words may be raw tokens (``(``) or treebank forms (``-LRB-``); they are normalised
        the same way as at tagging time.
        """
        data = [
            ([NORMALISE.get(w, w) for w, _ in s], [t for _, t in s]) for s in sentences if s
        ]
        if not data:
            raise ValueError("train() needs at least one non-empty tagged sentence")
        self.tags = sorted({t for _, ts in data for t in ts})
        self.tagdict = make_tagdict(data, self.dict_min_count, self.dict_min_share)
        features, weights, self.trans = averaged_perceptron(
            data, self.tags, self.clusters, self.n_iter, self.seed)
        self.features, self.weights = prune(features, weights)
        self._reset()
        return self

    def _reset(self) -> None:
        self._cache = {}
        self._tag_index = {t: i for i, t in enumerate(self.tags)}
        self._padded = np.vstack([self.weights, np.zeros((1, len(self.tags)), np.float32)])

    # ----------------------------------------------------------------- persistence
    def save(self, path: str | Path) -> None:
        """Write the model as one ``.npz`` of plain arrays (no pickled objects)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        rows, cols = np.nonzero(np.abs(self.weights) > 1e-4)
        names = sorted(self.features, key=self.features.__getitem__)
        meta = {**self.meta, "params": self.get_params(), "format": 1}
        with open(path, "wb") as fh:
            np.savez_compressed(
                fh,
                tags=np.array(self.tags, dtype=str),
                features=np.array(names, dtype=str),
                rows=rows.astype(np.int32),
                cols=cols.astype(np.int16),
                vals=self.weights[rows, cols].astype(np.float32),
                trans=self.trans.astype(np.float32),
                dict_words=np.array(list(self.tagdict), dtype=str),
                dict_tags=np.array(list(self.tagdict.values()), dtype=str),
                cluster_words=np.array(list(self.clusters), dtype=str),
                cluster_ids=np.array(list(self.clusters.values()), dtype=np.int32),
                meta=np.array(json.dumps(meta)),
            )

    @classmethod
    def load(cls, path: str | Path) -> PosTagger:
        """Read a model written by :meth:`save` (never unpickles).

        Raises :class:`coresc.errors.InputError` naming the file if it is missing or is
        not such a model (including any file that would need unpickling).
        """
        try:
            with np.load(Path(path), allow_pickle=False) as z:
                return cls._from_arrays(z)
        except (OSError, KeyError, ValueError, TypeError) as exc:
            raise InputError(path, f"not a readable POS tagger model ({exc})") from exc

    @classmethod
    def _from_arrays(cls, z) -> PosTagger:
        meta = json.loads(str(z["meta"]))
        self = cls(**meta.get("params", {}))
        self.meta = {k: v for k, v in meta.items() if k not in ("params", "format")}
        self.tags = [str(t) for t in z["tags"]]
        names = [str(n) for n in z["features"]]
        self.features = {n: i for i, n in enumerate(names)}
        self.weights = np.zeros((len(names), len(self.tags)), dtype=np.float32)
        self.weights[z["rows"], z["cols"]] = z["vals"]
        self.trans = z["trans"].astype(np.float32)
        self.tagdict = dict(zip(map(str, z["dict_words"]), map(str, z["dict_tags"]),
                                strict=True))
        self.clusters = dict(zip(map(str, z["cluster_words"]), map(int, z["cluster_ids"]),
                                 strict=True))
        self._reset()
        return self

    @classmethod
    def load_default(cls) -> PosTagger:
        """The bundled tagger (``coresc/models/pos/tagger.npz``), loaded once per process."""
        global _DEFAULT
        if _DEFAULT is None:
            _DEFAULT = cls.load(DEFAULT_MODEL)
        return _DEFAULT


_DEFAULT: PosTagger | None = None


def load_default() -> PosTagger:
    """Same as :meth:`PosTagger.load_default`."""
    return PosTagger.load_default()
