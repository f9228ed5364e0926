"""The CoreSC classifier: a linear-chain CRF for the primary label, one-vs-rest secondary.

* **Primary.** One CRF sequence per paper (sklearn-crfsuite, L-BFGS with L1 ``c1`` and
  L2 ``c2``), trained on each sentence's first gold label. Unlabelled sentences are
  dropped from the training sequences (their features still inform neighbours through
  the ``context`` group); they are never trained as a label. When ``c1``/``c2`` are
  ``None`` they are chosen on inner folds of the training papers (``c_grid``).
* **Secondary.** A one-vs-rest logistic regression per label (scikit-learn), trained on
  the papers of multi-label corpora (any sentence with two or more gold labels), on the
  sparse sentence features plus the CRF's out-of-fold marginals. A second (third) label
  is emitted when its probability passes a threshold tuned on out-of-fold predictions of
  the training data, with the emission rate held under ``max_secondary_rate``.
* **Domains** (optional, ``domains``). Feature augmentation after Daumé III (2007,
  "Frustratingly easy domain adaptation"): every feature also gets a copy per domain of
  the paper (its corpus, or its source folder), so what one corpus's annotators do
  alone lands on that corpus's copies and the shared weights keep what holds across
  corpora. A paper of a domain seen in training is tagged with its own copies too; any
  other paper with the shared weights alone.

* **Stacking** (optional, ``stack``). A second CRF sees each sentence's features plus
  the first CRF's marginals for it, its neighbours, its paragraph, its section and the
  paper, learnt from out-of-fold marginals so it learns how far to trust the first.

A saved model is a directory (no pickle anywhere)::

    crf.crfsuite     the crfsuite model file
    crf_stack.crfsuite  the second (stacked) CRF, when ``stack`` is on
    ovr.npz          one-vs-rest weights: coef (labels x features), intercept
    ovr_vocab.json   feature names of the coef columns
    config.json      constructor parameters (feature groups, c1, c2, ...)
    meta.json        version, date, training corpora, label set, thresholds, CV scores
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import sys
import tempfile
import time
from collections.abc import Sequence
from itertools import chain, repeat
from pathlib import Path
from typing import Any

import numpy as np

from . import __version__
from .document import Paper, Prediction
from .errors import CorescError
from .features import (
    DEFAULT_FEATURES,
    analyse,
    check_groups,
    marginal_features,
    paper_features,
    paper_labels,
    sentence_blocks,
)
from .labels import LABELS, MAX_LABELS, sort_key

MODEL_FORMAT = 1
#: (c1, c2) pairs the inner CV chooses from. Weaker penalties lost on both gold corpora
#: (``experiments/cv.py cra3 art9 --grid``, docs/benchmarks.md); ART's release folders,
#: whose label mixes differ, favour the stronger one.
DEFAULT_GRID: tuple[tuple[float, float], ...] = ((0.1, 1.0), (0.5, 5.0))
DEFAULT_MODEL_DIR = Path(__file__).resolve().parent / "models" / "default"

_FILES = ("crf.crfsuite", "config.json", "meta.json")


class ModelError(CorescError):
    """A model directory that is missing, incomplete or corrupt."""

    def __init__(self, path: str | Path, problem: str) -> None:
        super().__init__(f"{path}: {problem}")


def log(msg: str) -> None:
    """Progress goes to stderr, never stdout."""
    print(f"[coresc] {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- folds


def balanced_folds(sizes: Sequence[int], k: int) -> list[int]:
    """Fold index per item: largest first, each to the currently smallest fold.

    Deterministic (ties broken by item order, then fold index), as SAPIENTA's
    fold generator does. ``sizes`` are sentence counts of papers.
    """
    if k < 2:
        raise ValueError("need at least 2 folds")
    totals = [0] * k
    fold = [0] * len(sizes)
    for i in sorted(range(len(sizes)), key=lambda i: (-sizes[i], i)):
        f = min(range(k), key=lambda j: (totals[j], j))
        fold[i] = f
        totals[f] += sizes[i]
    return fold


# ---------------------------------------------------------------- the estimator


class CoreSCClassifier:
    """Primary CoreSC label by CRF, ranked secondary labels by one-vs-rest.

    Parameters
    ----------
    features : feature groups to use (subset of :data:`coresc.features.FEATURE_GROUPS`).
    c1, c2 : CRF L1 / L2 regularisation; ``None`` = choose on inner folds from ``c_grid``.
    max_iterations : L-BFGS iterations of each CRF fit.
    secondary : train the one-vs-rest layer (when the data has multi-label papers).
    seed : seed of the one-vs-rest solver (the CRF and folds are deterministic).
    inner_folds : folds (by paper) for choosing c1/c2 and the secondary thresholds.
    c_grid : (c1, c2) pairs tried when c1/c2 are ``None``.
    max_secondary_rate : upper bound on the share of training sentences given a 2nd label.
    ovr_c : inverse regularisation strength of the logistic regressions.
    min_freq : features seen fewer times in training are left out (both layers).
    decode : how the primary label is read off the CRF (:data:`DECODINGS`).
        ``"balanced"``: the label maximising log marginal + a per-label bias tuned on
        inner-fold marginals for accuracy + macro-F1 (raises recall of rare labels);
        ``"posterior"``: the label with the largest marginal (the most accurate choice
        per sentence); ``"viterbi"``: the single best label sequence.
    stack : train a second CRF on the features plus the first CRF's out-of-fold marginals
        of the sentence, its neighbours, paragraph, section and paper (stacked sequential
        learning, Cohen & Carvalho 2005); prediction runs both. Costs the inner-fold fits
        and one more CRF fit (twice the inner folds when biases or the secondary layer
        need the stacked CRF's out-of-fold marginals too).
    domains : what makes a paper's domain for feature augmentation, any of
        :data:`DOMAIN_KINDS`: ``"corpus"`` (``Paper.meta["corpus"]``), ``"folder"`` (the
        source file's folder). Empty (the default): no augmentation.
    verbose : print progress lines on stderr.
    """

    def __init__(self, features: Sequence[str] = DEFAULT_FEATURES, c1: float | None = None,
                 c2: float | None = None, max_iterations: int = 150, secondary: bool = True,
                 seed: int = 0, inner_folds: int = 3,
                 c_grid: Sequence[Sequence[float]] = DEFAULT_GRID,
                 max_secondary_rate: float = 0.05, ovr_c: float = 0.5, min_freq: int = 2,
                 decode: str = "balanced", stack: bool = False,
                 domains: Sequence[str] = (),
                 verbose: bool = True) -> None:
        self.features = tuple(features)
        self.c1 = c1
        self.c2 = c2
        self.max_iterations = max_iterations
        self.secondary = secondary
        self.seed = seed
        self.inner_folds = inner_folds
        self.c_grid = c_grid
        self.max_secondary_rate = max_secondary_rate
        self.ovr_c = ovr_c
        self.min_freq = min_freq
        self.decode = decode
        self.stack = stack
        self.domains = _domain_kinds(domains)
        self.verbose = verbose
        self.label_bias_: dict[str, float] = {}
        self.domains_: tuple[str, ...] = ()
        self.domain_bias_: dict[str, dict[str, float]] = {}
        self._tagger = None
        self._crf_bytes: bytes | None = None
        self._stack_tagger = None
        self._stack_bytes: bytes | None = None
        self._ovr: dict[str, Any] | None = None
        self.meta_: dict[str, Any] = {}

    # ------------------------------------------------------------ params

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Constructor parameters (scikit-learn style)."""
        return {
            "features": list(self.features), "c1": self.c1, "c2": self.c2,
            "max_iterations": self.max_iterations, "secondary": self.secondary,
            "seed": self.seed, "inner_folds": self.inner_folds,
            "c_grid": [list(p) for p in self.c_grid],
            "max_secondary_rate": self.max_secondary_rate, "ovr_c": self.ovr_c,
            "min_freq": self.min_freq, "decode": self.decode, "stack": bool(self.stack),
            "domains": list(self.domains), "verbose": self.verbose,
        }

    def set_params(self, **params: Any) -> CoreSCClassifier:
        for key, value in params.items():
            if key not in self.get_params():
                raise ValueError(f"unknown parameter {key!r}")
            setattr(self, key, value)
        return self

    def _validate(self) -> None:
        self.features = check_groups(self.features)
        for name in ("c1", "c2"):
            v = getattr(self, name)
            if v is not None and (not isinstance(v, (int, float)) or v < 0):
                raise ValueError(f"{name} must be a number >= 0 or None, not {v!r}")
        self.c_grid = _check_grid(self.c_grid)
        if self.decode not in DECODINGS:
            raise ValueError(f"decode must be one of {', '.join(DECODINGS)}, "
                             f"not {self.decode!r}")
        if int(self.max_iterations) < 1:
            raise ValueError("max_iterations must be >= 1")
        if not 0 <= self.max_secondary_rate <= 1:
            raise ValueError("max_secondary_rate must be in [0, 1]")
        self.domains = _domain_kinds(self.domains)  # set_params may have given a string
        bad = [d for d in self.domains if d not in DOMAIN_KINDS]
        if bad:
            raise ValueError(f"unknown domain kind(s) {', '.join(map(str, bad))}; "
                             f"known: {', '.join(DOMAIN_KINDS)}")

    def _log(self, msg: str) -> None:
        if self.verbose:
            log(msg)

    # ------------------------------------------------------------ features

    def _needs_tagger(self) -> bool:
        return bool(set(self.features) & {"verbs", "verbclass", "syntax"})

    def featurize(self, papers: Sequence[Paper],
                  known_domains: Sequence[str] | None = None) -> list[list[dict[str, float]]]:
        """Feature dicts per paper, per sentence (cached per paper object within a run).

        With ``domains`` set, features are augmented with the copies of each paper's
        domains, only those in ``known_domains`` when it is given (at prediction time,
        the domains seen in training).
        """
        tagger = _pos_tagger() if self._needs_tagger() else None
        out = []
        for p in papers:
            analyses = _cached_analyses(p, tagger)
            x = paper_features(p, self.features, analyses=analyses)
            tags = paper_domains(p, self.domains)
            if known_domains is not None:
                tags = [t for t in tags if t in known_domains]
            out.append(augment(x, tags) if tags else x)
        return out

    # ------------------------------------------------------------ training

    def fit(self, papers: Sequence[Paper]) -> CoreSCClassifier:
        """Train on papers with gold labels (unlabelled sentences are not trained on)."""
        self._validate()
        papers = list(papers)
        labels = [paper_labels(p) for p in papers]
        if not any(lab for seq in labels for lab in seq):
            raise CorescError("no sentence with a gold label in the training data")
        t0 = time.monotonic()
        X = self.featurize(papers)
        self.domains_ = tuple(sorted({t for p in papers
                                      for t in paper_domains(p, self.domains)}))
        if self.domains_:
            self._log(f"domain feature copies for {', '.join(self.domains_)}")
        self._log(f"features for {len(papers)} papers, "
                  f"{sum(map(len, X))} sentences ({time.monotonic() - t0:.1f}s)")
        multi = [i for i, p in enumerate(papers)
                 if any(len(s.gold) > 1 for s in p.sentences())]
        want_secondary = self.secondary and bool(multi)
        choose = self.c1 is None or self.c2 is None
        grid = self.c_grid if choose else ((float(self.c1), float(self.c2)),)
        cv_scores: dict[str, float] = {}
        oof_marg: list[tuple | None] = [None] * len(papers)
        folds = None
        balanced = self.decode == "balanced"
        if (choose and len(grid) > 1) or want_secondary or balanced or self.stack:
            k = min(self.inner_folds, len(papers))
            if k >= 2:
                folds = self._inner_folds(papers, X, k)
            elif self.stack:
                raise CorescError("stack needs at least 2 training papers")
        if folds is not None:
            best, cv_scores, oof_marg = self._inner_cv(X, labels, folds, grid)
        else:
            best = grid[0]
        self.c1_, self.c2_ = best
        self._log(f"final CRF with c1={best[0]} c2={best[1]}")
        self._crf_bytes, label_set = _train_crf(X, labels, best[0], best[1],
                                                self.max_iterations, self.min_freq)
        self._open_tagger()
        self.labels_ = label_set
        stack_scores: dict[str, float] = {}
        self._stack_bytes = self._stack_tagger = None
        if self.stack:
            oof_marg, stack_scores = self._fit_stack(papers, X, labels, folds, oof_marg,
                                                     best, balanced or want_secondary)
        self.label_bias_ = {}
        if balanced and folds is not None:
            self.label_bias_ = _tune_bias(oof_marg, labels, list(label_set))
            self._log(f"label biases: {self.label_bias_}")
        self.domain_bias_ = {}
        if balanced and folds is not None:
            self._tune_domain_bias(papers, labels, oof_marg, list(label_set))
        self._ovr = None
        if want_secondary and folds is not None:
            self._fit_secondary(X, papers, multi, folds, oof_marg)
        self.meta_ = {
            "format": MODEL_FORMAT,
            "coresc_version": __version__,
            "trained": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "labels": list(self.labels_),
            "n_papers": len(papers),
            "n_sentences": sum(len(x) for x in X),
            "n_labelled": sum(1 for seq in labels for lab in seq if lab),
            "c1": best[0], "c2": best[1], "label_bias": self.label_bias_,
            "domains": list(self.domains_), "domain_bias": self.domain_bias_,
            "inner_cv_accuracy": cv_scores,
            "stack_inner_cv_accuracy": stack_scores,
            "secondary": self._ovr["meta"] if self._ovr else None,
            "train_seconds": round(time.monotonic() - t0, 1),
        }
        return self

    def _inner_folds(self, papers, X, k: int) -> list[int]:
        """Inner fold per paper: by paper, or by whole source folder with folder copies.

        With per-folder feature copies a held-out paper whose folder-mates stay in
        training is scored through its folder's copies, which a test folder never has;
        holding out whole folders keeps out-of-fold marginals as good as test ones.
        """
        sizes = [len(x) for x in X]
        if "folder" not in self.domains:
            return balanced_folds(sizes, k)
        names = [paper_domains(p, ("folder",)) for p in papers]
        groups = sorted({n[0] if n else "" for n in names})
        if len(groups) < k:
            return balanced_folds(sizes, k)
        index = {g: i for i, g in enumerate(groups)}
        of_paper = [index[n[0] if n else ""] for n in names]
        totals = [0] * len(groups)
        for g, n in zip(of_paper, sizes, strict=True):
            totals[g] += n
        group_fold = balanced_folds(totals, k)
        return [group_fold[g] for g in of_paper]

    def _inner_cv(self, X, labels, folds, grid):
        """Pick (c1, c2) by inner-fold accuracy; keep that point's out-of-fold marginals.

        Accuracy is that of the Viterbi path for ``decode="viterbi"`` and of the largest
        marginal otherwise (the biases of "balanced" are tuned later, on these marginals).
        """
        k = max(folds) + 1
        scores: dict[str, float] = {}
        margs: dict[tuple, list] = {}
        t0 = time.monotonic()
        n_fits = len(grid) * k
        done = 0
        for c1, c2 in grid:
            correct = total = 0
            oof: list[tuple | None] = [None] * len(X)
            for f in range(k):
                tr = [i for i in range(len(X)) if folds[i] != f]
                te = [i for i in range(len(X)) if folds[i] == f]
                model, label_set = _train_crf([X[i] for i in tr], [labels[i] for i in tr],
                                              c1, c2, self.max_iterations, self.min_freq)
                tagger = _open_tagger_bytes(model)
                for i in te:
                    pred, marg = _tag(tagger, X[i], label_set)
                    oof[i] = (pred, marg)
                    for p, g in zip(self._decode(pred, marg, {}), labels[i], strict=True):
                        if g:
                            total += 1
                            correct += p == g
                done += 1
                left = (time.monotonic() - t0) / done * (n_fits - done)
                self._log(f"inner CV c1={c1} c2={c2} fold {f + 1}/{k} done, "
                          f"{_fmt_time(left)} left")
            acc = correct / max(total, 1)
            scores[f"c1={c1},c2={c2}"] = round(acc, 4)
            margs[(c1, c2)] = oof
            self._log(f"inner CV c1={c1} c2={c2}: accuracy {acc:.4f}")
        best = max(grid, key=lambda p: scores[f"c1={p[0]},c2={p[1]}"])
        return best, scores, margs[best]

    def _fit_stack(self, papers, X, labels, folds, oof_marg, best, need_oof):
        """Train the second CRF on first-pass out-of-fold marginals in context.

        Returns the out-of-fold marginals that decoding biases and the secondary layer
        are tuned on: the stacked CRF's own (one more inner CV) when ``need_oof``, else
        the first pass's unchanged.
        """
        X2 = [marginal_features(x, self._full(m[1]), self.labels_, sentence_blocks(p))
              for p, x, m in zip(papers, X, oof_marg, strict=True)]
        self._log("stacked CRF on the first pass's out-of-fold marginals")
        self._stack_bytes, _ = _train_crf(X2, labels, best[0], best[1],
                                          self.max_iterations, self.min_freq)
        self._stack_tagger = _open_tagger_bytes(self._stack_bytes)
        if not need_oof:
            return oof_marg, {}
        _, scores, oof2 = self._inner_cv(X2, labels, folds, (best,))
        return oof2, scores

    def _full(self, marg: list[dict[str, float]]) -> np.ndarray:
        """Marginal dicts of one paper as an array (sentences x ``labels_``)."""
        if not marg:
            return np.zeros((0, len(self.labels_)))
        return np.vstack([_full_marginals(m, self.labels_) for m in marg])

    def _tag_paper(self, paper: Paper, x: list[dict[str, float]]):
        """Viterbi labels and marginals of one paper (through both CRFs when stacked)."""
        pred, marg = _tag(self._tagger, x, self.labels_)
        if self._stack_tagger is not None:
            x2 = marginal_features(x, self._full(marg), self.labels_, sentence_blocks(paper))
            pred, marg = _tag(self._stack_tagger, x2, self.labels_)
        return pred, marg

    def _tune_domain_bias(self, papers, labels, oof_marg, label_set: list[str]) -> None:
        """Label biases per domain, tuned on that domain's papers' out-of-fold marginals.

        The CRF's label priors follow the pooled training data, which a large auxiliary
        corpus dominates; a paper of a known domain is decoded with its own biases.
        """
        tags_of = [paper_domains(p, self.domains) for p in papers]
        for tag in self.domains_:
            members = [i for i, tags in enumerate(tags_of) if tag in tags]
            if len(members) < MIN_DOMAIN_PAPERS:
                continue
            sub = [oof_marg[i] if tag in tags_of[i] else None for i in range(len(papers))]
            self.domain_bias_[tag] = _tune_bias(sub, labels, label_set)
            self._log(f"label biases for {tag}: {self.domain_bias_[tag]}")

    def domain_names(self, kind: str = "corpus") -> list[str]:
        """Names of the training domains of ``kind`` (``["art", "cra"]`` for corpora)."""
        prefix = domain_tag(kind, "")
        return [t[len(prefix):] for t in self.domains_ if t.startswith(prefix)]

    def _decode(self, viterbi: list[str], marg: list[dict[str, float]],
                bias: dict[str, float]) -> list[str]:
        """The primary labels of one paper from its Viterbi path and marginals."""
        if self.decode == "viterbi":
            return viterbi
        return _biased_decode(marg, bias)

    def _bias_for(self, paper: Paper) -> dict[str, float]:
        """The label biases to decode ``paper`` with: its domain's, else the shared ones."""
        for tag in paper_domains(paper, self.domains):
            if tag in self.domain_bias_:
                return self.domain_bias_[tag]
        return self.label_bias_

    def _fit_secondary(self, X, papers, multi, folds, oof_marg) -> None:
        rows = [(i, j) for i in multi for j, s in enumerate(papers[i].sentences()) if s.gold]
        vocab = _vocabulary((X[i][j] for i, j in rows), self.min_freq)
        labels = list(self.labels_)
        feats = [X[i][j] for i, j in rows]
        marg = np.vstack([_full_marginals(oof_marg[i][1][j], labels) for i, j in rows])
        gold = [papers[i].sentences()[j].gold_codes for i, j in rows]
        Xs = _design(feats, vocab, marg)
        Y = np.array([[lab in g for lab in labels] for g in gold], dtype=np.int8)
        groups = np.array([folds[i] for i, _ in rows])
        oof_prob = np.zeros(Y.shape)
        for f in sorted(set(groups.tolist())):
            tr, te = groups != f, groups == f
            W, b = _fit_ovr(Xs[tr], Y[tr], self.ovr_c, self.seed)
            oof_prob[te] = _sigmoid(Xs[te] @ W.T + b)
        decoded = {i: self._decode(*oof_marg[i], self._bias_for(papers[i])) for i in multi}
        primary = [decoded[i][j] for i, j in rows]
        t2, t3, tune = _tune_thresholds(oof_prob, labels, primary, gold, self.max_secondary_rate)
        W, b = _fit_ovr(Xs, Y, self.ovr_c, self.seed)
        keep = np.flatnonzero(np.abs(W[:, : len(vocab)]).max(axis=0) > 1e-6)
        names = sorted(vocab, key=vocab.get)
        self._ovr = {
            "vocab": {names[c]: n for n, c in enumerate(keep)},
            "coef": np.hstack([W[:, keep], W[:, len(vocab):]]).astype(np.float32),
            "intercept": b.astype(np.float32),
            "labels": labels,
            "meta": {"threshold2": t2, "threshold3": t3, "n_sentences": len(rows),
                     "n_papers": len(multi), "n_features": int(len(keep)),
                     "tuning": tune},
        }
        self._log(f"secondary layer: thresholds {t2:.3f}/{t3:.3f}, "
                  f"{len(keep)} features, tuned on {len(rows)} sentences")

    # ------------------------------------------------------------ prediction

    def _check_fitted(self) -> None:
        if self._tagger is None:
            raise CorescError("the classifier is not trained (call fit or load)")

    def rank(self, papers: Sequence[Paper]) -> list[list[list[Prediction]]]:
        """Full ranking of the top three labels per sentence, thresholds not applied.

        The primary (first) entry is the decoded label (``decode``) with its marginal; the
        next two are the other labels by one-vs-rest probability (by CRF marginal when
        there is no secondary layer).
        """
        self._check_fitted()
        out = []
        for paper, x in zip(papers, self.featurize(papers, self.domains_), strict=True):
            out.append(self._rank_paper(paper, x, self._bias_for(paper)))
        return out

    def _rank_paper(self, paper: Paper, x: list[dict[str, float]],
                    bias: dict[str, float]) -> list[list[Prediction]]:
        if not x:
            return []
        pred, marg = self._tag_paper(paper, x)
        pred = self._decode(pred, marg, bias)
        labels = list(self.labels_)
        if self._ovr is not None:
            probs = _sigmoid(_ovr_scores(x, self._ovr, self._full(marg)))
        else:
            probs = None
        ranked = []
        if probs is not None:  # one row-wise argsort, same order as per row
            orders = np.argsort(-probs, axis=1, kind="stable").tolist()
            prob_rows = probs.tolist()
        for i, first in enumerate(pred):
            entry = [Prediction(first, float(marg[i][first]))]
            if probs is not None:
                row = prob_rows[i]
                others = [(labels[j], row[j]) for j in orders[i] if labels[j] != first]
            else:
                others = sorted(((lab, float(p)) for lab, p in marg[i].items() if lab != first),
                                key=lambda lp: (-lp[1], sort_key(lp[0])))
            entry += [Prediction(lab, score) for lab, score in others[: MAX_LABELS - 1]]
            ranked.append(entry)
        return ranked

    def predict(self, papers: Sequence[Paper]) -> list[list[list[Prediction]]]:
        """Per paper, per sentence: the emitted ranked labels (1 to 3 :class:`Prediction`)."""
        ranked = self.rank(papers)
        return [[self._emit(r) for r in paper] for paper in ranked]

    def _emit(self, ranking: list[Prediction]) -> list[Prediction]:
        if self._ovr is None or len(ranking) < 2:
            return ranking[:1]
        meta = self._ovr["meta"]
        out = ranking[:1]
        if ranking[1].score >= meta["threshold2"]:
            out.append(ranking[1])
            if len(ranking) > 2 and ranking[2].score >= meta["threshold3"]:
                out.append(ranking[2])
        return out

    def annotate(self, papers: Sequence[Paper]) -> None:
        """Set ``Sentence.pred`` of every sentence of every paper."""
        for paper, preds in zip(papers, self.predict(papers), strict=True):
            for s, p in zip(paper.sentences(), preds, strict=True):
                s.pred = p

    def marginals(self, papers: Sequence[Paper]) -> list[np.ndarray]:
        """CRF marginals per paper: array (sentences x labels), columns = ``labels_``."""
        self._check_fitted()
        out = []
        for paper, x in zip(papers, self.featurize(papers, self.domains_), strict=True):
            out.append(self._full(self._tag_paper(paper, x)[1]) if x else self._full([]))
        return out

    # ------------------------------------------------------------ persistence

    def _open_tagger(self) -> None:
        self._tagger = _open_tagger_bytes(self._crf_bytes)

    def save(self, directory: str | Path) -> Path:
        """Write the model directory (created if needed; files replaced atomically)."""
        self._check_fitted()
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        _write_bytes(d / "crf.crfsuite", self._crf_bytes)
        if self._stack_bytes is not None:
            _write_bytes(d / "crf_stack.crfsuite", self._stack_bytes)
        else:
            (d / "crf_stack.crfsuite").unlink(missing_ok=True)
        config = self.get_params()
        config["features"] = list(self.features)
        _write_bytes(d / "config.json", _json(config))
        _write_bytes(d / "meta.json", _json(self.meta_))
        if self._ovr is not None:
            tmp = d / ".ovr.npz.part"
            with open(tmp, "wb") as fh:
                np.savez_compressed(fh, coef=self._ovr["coef"],
                                    intercept=self._ovr["intercept"])
            tmp.replace(d / "ovr.npz")
            vocab = sorted(self._ovr["vocab"], key=self._ovr["vocab"].get)
            _write_bytes(d / "ovr_vocab.json", _json(
                {"labels": self._ovr["labels"], "features": vocab,
                 "meta": self._ovr["meta"]}, indent=None))
        else:
            for name in ("ovr.npz", "ovr_vocab.json"):
                (d / name).unlink(missing_ok=True)
        return d

    @classmethod
    def load(cls, directory: str | Path) -> CoreSCClassifier:
        """Load a saved model directory (JSON, npz without pickle, crfsuite file)."""
        d = Path(directory)
        if not d.is_dir():
            raise ModelError(d, "model directory not found")
        for name in _FILES:
            if not (d / name).is_file():
                raise ModelError(d, f"not a coresc model directory (missing {name})")
        config = _read_json(d / "config.json")
        meta = _read_json(d / "meta.json")
        if not isinstance(config, dict) or not isinstance(meta, dict):
            raise ModelError(d, "config.json and meta.json must hold JSON objects")
        if meta.get("format") != MODEL_FORMAT:
            raise ModelError(d, f"unsupported model format {meta.get('format')!r} "
                                f"(this coresc reads format {MODEL_FORMAT})")
        if "balance" in config:  # models saved before ``decode`` replaced ``balance``
            config["decode"] = "balanced" if config.pop("balance") else "viterbi"
        try:
            model = cls(**config)
            model._validate()
        except (TypeError, ValueError) as exc:
            raise ModelError(d / "config.json", f"bad configuration: {exc}") from None
        labels = meta.get("labels")
        if not isinstance(labels, list) or not labels or not all(
                isinstance(x, str) for x in labels):
            raise ModelError(d / "meta.json", "missing or bad label list")
        model.labels_ = tuple(labels)
        model.c1_, model.c2_ = meta.get("c1"), meta.get("c2")
        bias = meta.get("label_bias") or {}
        if not isinstance(bias, dict) or not all(
                k in labels and isinstance(v, (int, float)) for k, v in bias.items()):
            raise ModelError(d / "meta.json", "bad label_bias")
        model.label_bias_ = {k: float(v) for k, v in bias.items()}
        domains = meta.get("domains") or []
        if not isinstance(domains, list) or not all(isinstance(x, str) for x in domains):
            raise ModelError(d / "meta.json", "bad domains list")
        model.domains_ = tuple(domains)
        model.domain_bias_ = {}
        for tag, tag_bias in (meta.get("domain_bias") or {}).items():
            if tag not in domains or not isinstance(tag_bias, dict) or not all(
                    k in labels and isinstance(v, (int, float)) for k, v in tag_bias.items()):
                raise ModelError(d / "meta.json", f"bad domain_bias for {tag!r}")
            model.domain_bias_[tag] = {k: float(v) for k, v in tag_bias.items()}
        model.meta_ = meta
        model._crf_bytes, model._tagger = _read_crf(d, "crf.crfsuite", labels)
        if model.stack:
            if not (d / "crf_stack.crfsuite").is_file():
                raise ModelError(d, "config says stack but crf_stack.crfsuite is missing")
            model._stack_bytes, model._stack_tagger = _read_crf(d, "crf_stack.crfsuite",
                                                                labels)
        if (d / "ovr.npz").is_file():
            model._ovr = _load_ovr(d, labels)
            # the layer scores with scipy.sparse: import it with the model (a one-time
            # ~0.2 s), not inside the first paper's annotation
            import scipy.sparse  # noqa: F401
        return model

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items()
                           if k not in ("c_grid", "verbose"))
        return f"CoreSCClassifier({params})"


#: How the primary label is read off the CRF (``CoreSCClassifier.decode``).
DECODINGS = ("balanced", "posterior", "viterbi")
#: What can make a paper's domain for feature augmentation (``CoreSCClassifier.domains``).
DOMAIN_KINDS = ("corpus", "folder")
#: Fewest training papers of a domain for it to get label biases of its own.
MIN_DOMAIN_PAPERS = 5


def _check_grid(grid: Any) -> tuple[tuple[float, float], ...]:
    """``c_grid`` as a tuple of (c1, c2) float pairs; ValueError unless each is >= 0."""
    try:
        pairs = tuple((float(c1), float(c2)) for c1, c2 in grid)
    except (TypeError, ValueError):
        pairs = ()
    if not pairs or any(c < 0 for pair in pairs for c in pair):
        raise ValueError(f"c_grid must list (c1, c2) pairs of numbers >= 0, not {grid!r}")
    return pairs


def _domain_kinds(domains: str | Sequence[str]) -> tuple[str, ...]:
    return (domains,) if isinstance(domains, str) else tuple(domains)


def domain_tag(kind: str, value: str) -> str:
    """The tag of one domain, as features and ``domains_`` spell it: ``corpus=cra``."""
    return f"{kind}={value}"


def paper_domains(paper: Paper, kinds: Sequence[str]) -> list[str]:
    """The paper's domain tags for the given kinds: ``corpus=cra``, ``folder=ann3``."""
    tags = []
    for kind in kinds:
        if kind == "corpus":
            value = paper.meta.get("corpus")
        else:
            value = Path(paper.source_path).parent.name if paper.source_path else None
        if value:
            tags.append(domain_tag(kind, value))
    return tags


def augment(x: list[dict[str, float]], tags: Sequence[str]) -> list[dict[str, float]]:
    """Each sentence's features plus one copy per domain tag (``"corpus=cra:w=cell"``)."""
    out = []
    for f in x:
        g = dict(f)
        for tag in tags:
            prefix = tag + ":"
            g.update({prefix + k: v for k, v in f.items()})
        out.append(g)
    return out


def load_default() -> CoreSCClassifier:
    """The model bundled with the package (``coresc/models/default``)."""
    return CoreSCClassifier.load(DEFAULT_MODEL_DIR)


# ---------------------------------------------------------------- helpers

_ANALYSIS_CACHE: dict[int, tuple[Paper, bool, list]] = {}


def _cached_analyses(paper: Paper, tagger) -> list:
    """Tokens and tags of a paper, computed once per paper object and tagger use."""
    key = id(paper)
    hit = _ANALYSIS_CACHE.get(key)
    if hit is not None and hit[0] is paper and (hit[1] or tagger is None):
        return hit[2]
    analyses = analyse(paper, tagger=tagger)
    _ANALYSIS_CACHE[key] = (paper, tagger is not None, analyses)
    return analyses


def clear_cache() -> None:
    """Forget cached tokenisation/POS tags (they hold references to papers)."""
    _ANALYSIS_CACHE.clear()


def _pos_tagger():
    from .pos import PosTagger

    return PosTagger.load_default()


def _train_crf(X, labels, c1: float, c2: float, max_iterations: int,
               min_freq: int) -> tuple[bytes, tuple[str, ...]]:
    """Train one CRF; sentences without a gold label are left out of the sequences."""
    import sklearn_crfsuite

    xs, ys = [], []
    for x, y in zip(X, labels, strict=True):
        keep = [i for i, lab in enumerate(y) if lab]
        if keep:
            xs.append([x[i] for i in keep])
            ys.append([y[i] for i in keep])
    with tempfile.TemporaryDirectory(prefix="coresc-crf-") as tmp:
        path = Path(tmp) / "crf.crfsuite"
        crf = sklearn_crfsuite.CRF(algorithm="lbfgs", c1=c1, c2=c2,
                                   max_iterations=int(max_iterations),
                                   min_freq=min_freq, all_possible_transitions=True,
                                   model_filename=str(path))
        crf.fit(xs, ys)
        data = path.read_bytes()
    label_set = tuple(sorted({lab for y in ys for lab in y}, key=sort_key))
    return data, label_set


def _read_crf(d: Path, name: str, labels: Sequence[str]) -> tuple[bytes, Any]:
    """A model directory's crfsuite file: its bytes and an open tagger, labels checked."""
    data = (d / name).read_bytes()
    try:
        tagger = _open_tagger_bytes(data)
    except Exception as exc:  # crfsuite raises ValueError/OSError on bad files
        raise ModelError(d / name, f"cannot open CRF model ({exc})") from None
    if set(tagger.labels()) - set(labels):
        raise ModelError(d, f"{name} labels do not match meta.json")
    return data, tagger


def _open_tagger_bytes(data: bytes):
    import pycrfsuite

    tagger = pycrfsuite.Tagger()
    tagger.open_inmemory(data)
    return tagger


def _tag(tagger, x: list[dict[str, float]], label_set) -> tuple[list[str], list[dict]]:
    """Viterbi labels and per-sentence marginals {label: p} of one paper."""
    import pycrfsuite

    tagger.set(pycrfsuite.ItemSequence(x))
    pred = tagger.tag()
    known = tagger.labels()
    marg = [{lab: tagger.marginal(lab, i) for lab in known} for i in range(len(x))]
    return pred, marg


def _biased_decode(marg: list[dict[str, float]], bias: dict[str, float]) -> list[str]:
    """Per sentence, the label maximising log marginal + bias (ties: priority order)."""
    out = []
    log = math.log
    extra: dict[str, tuple[float, int]] = {}  # label -> (bias, -priority), computed once
    for m in marg:
        # max() by (log marginal + bias, -priority): the first label with the largest key
        best = None
        best_key = None
        for lab, p in m.items():
            e = extra.get(lab)
            if e is None:
                e = extra[lab] = (bias.get(lab, 0.0), -sort_key(lab)[0])
            key = (log(max(p, 1e-12)) + e[0], e[1])
            if best_key is None or key > best_key:
                best, best_key = lab, key
        out.append(best)
    return out


def _tune_bias(oof, labels, label_set: list[str]) -> dict[str, float]:
    """Per-label log-biases maximising accuracy + macro-F1 on out-of-fold marginals.

    Coordinate ascent over a small grid, two passes; labels never seen in the
    out-of-fold marginals keep bias 0.
    """
    rows, gold = [], []
    for i, item in enumerate(oof):
        if item is None:
            continue
        for j, lab in enumerate(labels[i]):
            if lab:
                rows.append(np.log(np.maximum(_full_marginals(item[1][j], label_set), 1e-12)))
                gold.append(label_set.index(lab) if lab in label_set else -1)
    if not rows:
        return {}
    L = np.vstack(rows)
    y = np.array(gold)
    k = len(label_set)

    def score(b: np.ndarray) -> float:
        p = np.argmax(L + b, axis=1)
        acc = float(np.mean(p == y))
        f1s = []
        for c in range(k):
            tp = np.sum((p == c) & (y == c))
            denom = np.sum(p == c) + np.sum(y == c)
            if np.sum(y == c):
                f1s.append(2 * tp / denom if denom else 0.0)
        return acc + float(np.mean(f1s))

    b = np.zeros(k)
    best = score(b)
    for _ in range(2):
        for c in range(k):
            for v in np.arange(-1.0, 2.01, 0.25):
                trial = b.copy()
                trial[c] = v
                sc = score(trial)
                if sc > best + 1e-9:
                    best, b = sc, trial
    return {lab: round(float(v), 3) for lab, v in zip(label_set, b, strict=True) if v}


def _full_marginals(m: dict[str, float], labels: Sequence[str]) -> np.ndarray:
    return np.array([m.get(lab, 0.0) for lab in labels])


def _vocabulary(feature_dicts, min_freq: int) -> dict[str, int]:
    counts: dict[str, int] = {}
    for f in feature_dicts:
        for name in f:
            counts[name] = counts.get(name, 0) + 1
    names = sorted(n for n, c in counts.items() if c >= min_freq)
    return {n: i for i, n in enumerate(names)}


def _design(feats: Sequence[dict[str, float]], vocab: dict[str, int], marg: np.ndarray):
    """Sparse design matrix: binary features (vocab columns) then CRF marginals."""
    from scipy import sparse

    indptr = [0]
    indices: list[int] = []
    data: list[float] = []
    for f in feats:
        for name, value in f.items():
            j = vocab.get(name)
            if j is not None:
                indices.append(j)
                data.append(value)
        indptr.append(len(indices))
    X = sparse.csr_matrix((data, indices, indptr), shape=(len(feats), len(vocab)))
    return sparse.hstack([X, sparse.csr_matrix(marg * 3.0)], format="csr")


def _ovr_scores(feats: Sequence[dict[str, float]], ovr: dict[str, Any],
                marg: np.ndarray) -> np.ndarray:
    """Decision values (sentences x labels) of the one-vs-rest layer; like
    ``_design(...) @ coef.T + intercept`` without building the stacked matrix."""
    from scipy import sparse

    vocab = ovr["vocab"]
    if "coef_feat_t" not in ovr:  # split once: feature columns, marginal columns
        ovr["coef_feat_t"] = np.ascontiguousarray(ovr["coef"][:, : len(vocab)].T)
        ovr["coef_marg_t"] = np.ascontiguousarray(ovr["coef"][:, len(vocab):].T) * 3.0
    # Look-ups run through map() so the per-feature loop stays in C (hot path).
    cols = np.fromiter(map(vocab.get, chain.from_iterable(feats), repeat(-1)), dtype=np.int64)
    vals = np.fromiter(chain.from_iterable(f.values() for f in feats), dtype=np.float32,
                       count=len(cols))
    rows = np.repeat(np.arange(len(feats)), [len(f) for f in feats])
    keep = cols >= 0
    X = sparse.csr_matrix((vals[keep], (rows[keep], cols[keep])),
                          shape=(len(feats), len(vocab)))
    return X @ ovr["coef_feat_t"] + marg @ ovr["coef_marg_t"] + ovr["intercept"]


def _fit_ovr(X, Y: np.ndarray, c: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """One logistic regression per label column; constant columns get a fixed bias."""
    from sklearn.linear_model import LogisticRegression

    W = np.zeros((Y.shape[1], X.shape[1]))
    b = np.zeros(Y.shape[1])
    for j in range(Y.shape[1]):
        y = Y[:, j]
        pos = int(y.sum())
        if pos == 0 or pos == len(y):
            b[j] = -20.0 if pos == 0 else 20.0
            continue
        lr = LogisticRegression(C=c, solver="liblinear", random_state=seed, max_iter=200)
        lr.fit(X, y)
        W[j] = lr.coef_[0]
        b[j] = lr.intercept_[0]
    return W, b


def _sigmoid(z) -> np.ndarray:
    z = np.asarray(z)
    return 1.0 / (1.0 + np.exp(-np.clip(z, -40, 40)))


def _tune_thresholds(prob: np.ndarray, labels: list[str], primary: list[str],
                     gold: list[list[str]], max_rate: float) -> tuple[float, float, dict]:
    """Thresholds for emitting 2nd and 3rd labels, by F1 of emitted labels (OOF data).

    Candidates for rank 2/3 are the labels other than the primary, by probability. An
    emitted label is right when it is one of the sentence's gold labels; recall counts
    the gold non-primary labels. The 2nd-label rate on the tuning data stays <= max_rate.
    """
    n = len(gold)
    cands = []
    for i in range(n):
        order = [j for j in np.argsort(-prob[i], kind="stable") if labels[j] != primary[i]]
        cands.append([(labels[j], float(prob[i][j])) for j in order[:2]])
    n_extra = sum(len([g for g in gold[i] if g != primary[i]]) for i in range(n)
                  if len(gold[i]) > 1)

    def f1_at(rank: int, t: float, t2: float) -> tuple[float, float, int]:
        tp = fp = emitted = 0
        for i in range(n):
            if cands[i][0][1] < t2 or (rank == 2 and cands[i][1][1] < t):
                continue
            if rank == 1 and cands[i][0][1] < t:
                continue
            emitted += 1
            lab = cands[i][rank - 1][0]
            tp += lab in gold[i]
            fp += lab not in gold[i]
        p = tp / (tp + fp) if tp + fp else 0.0
        r = tp / n_extra if n_extra else 0.0
        return (2 * p * r / (p + r) if p + r else 0.0), p, emitted

    grid = sorted({round(x, 3) for x in np.linspace(0.05, 0.95, 91)})
    best2 = (0.0, 1.01, 0.0, 0)
    for t in grid:
        f1, p, emitted = f1_at(1, t, 0.0)
        if emitted / max(n, 1) <= max_rate and f1 > best2[0]:
            best2 = (f1, t, p, emitted)
    t2 = best2[1]
    best3 = (0.0, 1.01, 0.0, 0)
    for t in grid:
        if t < t2:
            continue
        f1, p, emitted = f1_at(2, t, t2)
        if f1 > best3[0] and p >= 0.5:
            best3 = (f1, t, p, emitted)
    tune = {"f1_2": round(best2[0], 4), "precision_2": round(best2[2], 4),
            "rate_2": round(best2[3] / max(n, 1), 4), "n_gold_extra": n_extra,
            "f1_3": round(best3[0], 4), "rate_3": round(best3[3] / max(n, 1), 4)}
    return float(t2), float(best3[1]), tune


def _load_ovr(d: Path, labels: list[str]) -> dict[str, Any]:
    vocab_doc = _read_json(d / "ovr_vocab.json")
    try:
        with np.load(d / "ovr.npz", allow_pickle=False) as z:
            coef = np.asarray(z["coef"], dtype=np.float32)
            intercept = np.asarray(z["intercept"], dtype=np.float32)
    except (OSError, ValueError, KeyError) as exc:
        raise ModelError(d / "ovr.npz", f"cannot read one-vs-rest weights ({exc})") from None
    try:
        names = list(vocab_doc["features"])
        ovr_labels = list(vocab_doc["labels"])
        meta = dict(vocab_doc["meta"])
        float(meta["threshold2"]), float(meta["threshold3"])
    except (KeyError, TypeError, ValueError):
        raise ModelError(d / "ovr_vocab.json", "missing features, labels or thresholds") \
            from None
    if ovr_labels != labels or coef.shape != (len(labels), len(names) + len(labels)) \
            or intercept.shape != (len(labels),):
        raise ModelError(d / "ovr.npz", "one-vs-rest weights do not match the vocabulary "
                                        "or the label set")
    return {"vocab": {n: i for i, n in enumerate(names)}, "coef": coef,
            "intercept": intercept, "labels": ovr_labels, "meta": meta}


def _json(obj: Any, indent: int | None = 1) -> bytes:
    return (json.dumps(obj, indent=indent, ensure_ascii=False, sort_keys=False) + "\n") \
        .encode("utf-8")


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ModelError(path, "missing") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelError(path, f"corrupt JSON ({exc})") from None


def _write_bytes(path: Path, data: bytes) -> None:
    tmp = path.with_name("." + path.name + ".part")
    tmp.write_bytes(data)
    tmp.replace(path)


def _fmt_time(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


__all__ = ["CoreSCClassifier", "load_default", "balanced_folds", "LABELS"]
