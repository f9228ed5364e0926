"""The tagger itself: features, the averaged perceptron, the per-word score cache.

See :mod:`coresc.pos` for the design."""

from __future__ import annotations

import json
import random
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from itertools import repeat
from pathlib import Path

import numpy as np

from coresc.errors import InputError
from coresc.limits import max_sentence_words

__all__ = ["PosTagger", "load_default", "DEFAULT_MODEL"]

DEFAULT_MODEL = Path(__file__).resolve().parent.parent / "models" / "pos" / "tagger.npz"

# Token normalisation shared by training and tagging: the treebank writes brackets as
# -LRB-/-RRB- (and sometimes raw "["), and quotes as `` and ''.
_NORMALISE = {
    "(": "-LRB-", "[": "-LRB-", "{": "-LRB-",
    ")": "-RRB-", "]": "-RRB-", "}": "-RRB-",
    "-LCB-": "-LRB-", "-RCB-": "-RRB-", "-LSB-": "-LRB-", "-RSB-": "-RRB-",
    '"': "''", "\u201c": "``", "\u201d": "''", "\u2018": "`", "\u2019": "'",
}
_ROLES = 5  # offsets 0, -1, +1, -2, +2 in that order
_PAD_LEFT = ("-START2-", "-START-")
_PAD_RIGHT = ("-END-", "-END2-")
_CACHE_LIMIT = 200_000  # word types kept in the per-word score cache
_BATCH_TOKENS = 100_000  # tokens of windowed long sentences scored in one batch
_ROLE_STARTS = np.array([0, 14, 18, 22, 23])  # where each role's features start (below)


def _shape(word: str) -> str:
    """Compressed word shape: every run of letters or digits becomes ``u``, the rest stays.

    ``Fig.`` -> ``u.``, ``0.05`` -> ``u.u``, ``well-known`` -> ``u-u``. The last pass also
    rewrites the ``X``/``x``/``d`` marks of the earlier ones, so case and digits are lost;
    the shipped model was trained with this shape, so it is kept as it is.
    """
    s = _UPPER("X", word)
    s = _LOWER("x", s)
    s = _DIGIT("d", s)
    s = _OTHER("u", s)  # other letters (Greek ...)
    return s[:6]


_UPPER = re.compile(r"[A-Z]+").sub
_LOWER = re.compile(r"[a-z]+").sub
_DIGIT = re.compile(r"\d+").sub
_OTHER = re.compile(r"[^\W\d_]+").sub


def _key(word: str) -> str:
    """The word as features see it: lower case, numbers collapsed."""
    low = word.lower()
    # (the letter test first: most words fail it at their first character)
    if not any(c.isalpha() for c in low) and any(c.isdigit() for c in low):
        return "!NUM"
    return low


def _word_features(word: str, clusters: dict[str, int]) -> tuple[list[str], ...]:
    """Feature names of ``word`` for each role (current, prev, next, prev2, next2).

    ``clusters`` maps a word key (:func:`_key`) to its distributional cluster, learnt from
    unlabelled text (:func:`learn_word_clusters`); it lets words never seen in the small
    treebank borrow evidence from words with similar contexts.
    """
    f = _flat_features(word, clusters)
    return f[:14], f[14:18], f[18:22], f[22:23], f[23:]


def _flat_features(word: str, clusters: dict[str, int]) -> list[str]:
    """The feature names of :func:`_word_features`, all roles in one list (24 names)."""
    k = _key(word)
    shape = _shape(word)
    cl = str(clusters.get(k, "?"))
    s3 = k[-3:]
    return [
        "b",
        "w " + k,
        "s1 " + k[-1:],
        "s2 " + k[-2:],
        "s3 " + s3,
        "s4 " + k[-4:],
        "p1 " + k[:1],
        "p2 " + k[:2],
        "p3 " + k[:3],
        "s5 " + k[-5:],
        "sh " + shape,
        "cap " + str(word[:1].isupper()),
        "hy " + str("-" in word[1:]),
        "c " + cl,
        "w-1 " + k, "s3-1 " + s3, "sh-1 " + shape, "c-1 " + cl,
        "w+1 " + k, "s3+1 " + s3, "sh+1 " + shape, "c+1 " + cl,
        "w-2 " + k,
        "w+2 " + k,
    ]


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
            feats = _word_features(word, self.clusters)
            ids = [index.get(n, zero) for role in feats for n in role]
            vec = np.add.reduceat(self._padded[ids], _ROLE_STARTS, axis=0)
            if len(self._cache) >= _CACHE_LIMIT:
                self._cache.clear()
            self._cache[word] = vec
        return vec

    def _static_scores(self, words: Sequence[str]) -> np.ndarray:
        """(n, n_tags) scores of everything but the tag history, for normalised words."""
        padded = [*_PAD_LEFT, *words, *_PAD_RIGHT]
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
        norm = _NORMALISE
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
        norm = _NORMALISE
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
            padded += _PAD_LEFT
            padded += words
            padded += _PAD_RIGHT
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
            ids += map(get, _flat_features(w, clusters), repeat(zero))
        per = int(_ROLE_STARTS[-1]) + 1  # features per word (the last role has one)
        starts = (np.arange(len(words))[:, None] * per + _ROLE_STARTS).ravel()
        allv = np.add.reduceat(self._padded[ids], starts, axis=0).reshape(
            len(words), _ROLES, -1)
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
            ([_NORMALISE.get(w, w) for w, _ in s], [t for _, t in s]) for s in sentences if s
        ]
        if not data:
            raise ValueError("train() needs at least one non-empty tagged sentence")
        self.tags = sorted({t for _, ts in data for t in ts})
        tag_id = {t: i for i, t in enumerate(self.tags)}
        n_tags = len(self.tags)
        self.tagdict = self._make_tagdict(data)

        # Feature index over everything seen in training (all roles, all words + padding).
        names: dict[str, int] = {}
        word_ids: dict[str, list[list[int]]] = {}
        for words, _ in data:
            for w in (*_PAD_LEFT, *words, *_PAD_RIGHT):
                if w not in word_ids:
                    word_ids[w] = [
                        [names.setdefault(n, len(names)) for n in role]
                        for role in _word_features(w, self.clusters)
                    ]
        self.features = names
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
            padded = [*_PAD_LEFT, *words, *_PAD_RIGHT]
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

        rng = random.Random(self.seed)
        start = n_tags
        now = 0
        order = list(range(len(examples)))
        for _ in range(self.n_iter):
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
        self.weights = (total / now).astype(np.float32)
        self.trans = (tr_total / now).astype(np.float32).reshape(n_tags + 1, n_tags + 1, n_tags)
        self._prune()
        self._reset()
        return self

    def _make_tagdict(self, data) -> dict[str, str]:
        counts: dict[str, Counter] = defaultdict(Counter)
        for words, tags in data:
            for word, tag in zip(words, tags, strict=True):
                counts[word][tag] += 1
        out = {}
        for word, c in counts.items():
            tag, n = c.most_common(1)[0]
            total = sum(c.values())
            if total >= self.dict_min_count and n / total >= self.dict_min_share:
                out[word] = tag
        return out

    def _prune(self, eps: float = 1e-3) -> None:
        """Drop features whose averaged weights are all (nearly) zero: a smaller model."""
        keep = np.abs(self.weights).max(axis=1) > eps
        names = [n for n, i in sorted(self.features.items(), key=lambda x: x[1]) if keep[i]]
        self.weights = self.weights[keep]
        self.features = {n: i for i, n in enumerate(names)}

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
