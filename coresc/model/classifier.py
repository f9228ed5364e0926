"""The estimator: :class:`CoreSCClassifier` (fit / rank / predict / save / load)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import repeat
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..document import Paper, Prediction
from ..errors import CorescError
from ..features import (
    DEFAULT_FEATURES,
    marginal_features,
    sentence_blocks,
)
from .analyses import pos_tagger
from .calibration import Calibration, keep_above
from .crf import DEFAULT_GRID, biased_decode, crf_tag, open_tagger
from .crf_input import model_features
from .domains import domain_kinds, domain_tag, paper_domains
from .encoder import OnnxEncoder
from .mixing import mixed
from .params import check_params
from .persist import load_model, save_model
from .progress import log
from .ranking import emitted, rank_labels
from .secondary import ovr_scores, sigmoid
from .source import SourceOutputs, SourceSettings
from .storage import default_model_dir, to_json
from .training import fit_model

if TYPE_CHECKING:
    from .finetune.oof import FittedEncoder


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
    calibrate : map raw scores to calibrated probabilities (:mod:`~coresc.model.calibration`),
        fitted on out-of-fold rankings of the training papers (needs >= 2 of them; the
        inner folds are run for it when nothing else needs them).
    domains : what makes a paper's domain for feature augmentation, any of
        :data:`DOMAIN_KINDS`: ``"corpus"`` (``Paper.meta["corpus"]``), ``"folder"`` (the
        source file's folder). Empty (the default): no augmentation.
    encoder : settings of a fine-tuned sentence encoder whose label probabilities become
        CRF features (:class:`~coresc.model.encoder.EncoderSettings` as a mapping; ``{}``
        for the defaults); ``None`` (the default): hand-built features only. Training
        with it needs torch (the ``train`` extra); prediction needs onnxruntime.
    device : where the encoder is fine-tuned (``"cpu"`` or ``"cuda"``); prediction always
        runs the exported ONNX encoder on the CPU.
    source : settings of an adapted model's source features
        (:class:`~coresc.model.source.SourceSettings` as a mapping): the label
        probabilities of a *source* model (``_source``, saved in the directory's
        ``source/``) become CRF features. Set by :func:`~coresc.model.adapt.adapt`;
        ``None`` (the default): no source.
    verbose : print progress lines on stderr.
    """

    def __init__(self, features: Sequence[str] = DEFAULT_FEATURES, c1: float | None = None,
                 c2: float | None = None, max_iterations: int = 150, secondary: bool = True,
                 seed: int = 0, inner_folds: int = 3,
                 c_grid: Sequence[Sequence[float]] = DEFAULT_GRID,
                 max_secondary_rate: float = 0.05, ovr_c: float = 0.5, min_freq: int = 2,
                 decode: str = "balanced", stack: bool = False,
                 domains: Sequence[str] = (), calibrate: bool = True,
                 encoder: Mapping[str, Any] | None = None, device: str = "cpu",
                 source: Mapping[str, Any] | None = None, verbose: bool = True) -> None:
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
        self.domains = domain_kinds(domains)
        self.calibrate = calibrate
        self.encoder = None if encoder is None else dict(encoder)
        self.device = device
        self.source = None if source is None else dict(source)
        self.verbose = verbose
        self._source: CoreSCClassifier | None = None
        self._encoder: OnnxEncoder | None = None
        self._encoder_fitted: FittedEncoder | None = None
        self.label_bias_: dict[str, float] = {}
        self.source_mix_: dict[str, float] = {}  # adapted: weight of its own marginals
        self.source_absent_: dict[str, float] = {}  # adapted: the source's unseen labels scaled
        self.domains_: tuple[str, ...] = ()
        self.domain_bias_: dict[str, dict[str, float]] = {}
        self._tagger = None
        self._crf_bytes: bytes | None = None
        self._stack_tagger = None
        self._stack_bytes: bytes | None = None
        self._ovr: dict[str, Any] | None = None
        self.calibration_: Calibration | None = None
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
            "domains": list(self.domains), "calibrate": bool(self.calibrate),
            "encoder": None if self.encoder is None else dict(self.encoder),
            "device": self.device,
            "source": None if self.source is None else dict(self.source),
            "verbose": self.verbose,
        }

    def set_params(self, **params: Any) -> CoreSCClassifier:
        for key, value in params.items():
            if key not in self.get_params():
                raise ValueError(f"unknown parameter {key!r}")
            setattr(self, key, value)
        return self

    def _validate(self) -> None:
        """Check and normalise the parameters (:func:`~coresc.model.params.check_params`)."""
        check_params(self)

    def _log(self, msg: str) -> None:
        if self.verbose:
            log(msg)

    # ------------------------------------------------------------ features

    def _needs_tagger(self) -> bool:
        return bool(set(self.features) & {"verbs", "verbclass", "syntax"})

    def featurize(self, papers: Sequence[Paper], known_domains: Sequence[str] | None = None,
                  cache: bool = True, encoder_probs: Sequence[np.ndarray] | None = None,
                  ) -> list[list[dict[str, float]]]:
        """Feature dicts per paper, per sentence.

        With ``domains`` set, features are augmented with the copies of each paper's
        domains, only those in ``known_domains`` when it is given (at prediction time,
        the domains seen in training). With ``cache`` the papers' tokens and POS tags
        are kept while the paper objects live (training reuses them across folds);
        without, a cached analysis is still used but nothing new is kept. With an
        encoder, its probabilities for each sentence and its neighbours are features
        too: ``encoder_probs`` (per paper, sentences x encoder labels) when given, else
        the fitted encoder's.
        """
        tagger = pos_tagger() if self._needs_tagger() else None
        return [self._paper_features(p, tagger, known_domains, cache,
                                     None if encoder_probs is None else encoder_probs[n])
                for n, p in enumerate(papers)]

    def _paper_features(self, paper: Paper, tagger, known_domains: Sequence[str] | None,
                        cache: bool, encoder_probs: np.ndarray | None = None,
                        analyses: list | None = None) -> list[dict[str, float]]:
        return model_features(self, paper, tagger, known_domains, cache, encoder_probs,
                              analyses)

    def _prediction_features(self, papers: Sequence[Paper]):
        """``(paper, features)`` one paper at a time, so only one paper's features live."""
        tagger = pos_tagger() if self._needs_tagger() else None
        for paper in papers:
            yield paper, self._paper_features(paper, tagger, self.domains_, cache=False)

    def _encoder_probs(self, paper: Paper) -> np.ndarray:
        if self._encoder is None:
            raise CorescError("the classifier's encoder is not trained (call fit or load)")
        return self._encoder.predict_paper(paper)

    # ------------------------------------------------------------ training

    def fit(self, papers: Sequence[Paper], encoder=None) -> CoreSCClassifier:
        """Train on papers with gold labels (unlabelled sentences are not trained on);
        the work is :func:`~coresc.model.training.fit_model`'s.

        ``encoder``: for a model with ``encoder`` settings, a sentence encoder fitted
        elsewhere, used instead of fine-tuning one: an object with ``labels`` and
        ``predict_paper(paper)`` -> array (sentences x labels). The CRF learns from its
        probabilities of the training papers, so they must be held out (an experiment's
        cross-fitted encoders: ``experiments/encoder_cv.py --protocol crossfit``). A
        model fitted so predicts with it and cannot be saved.
        """
        fit_model(self, papers, encoder)
        return self

    def _full(self, marg: list[dict[str, float]]) -> np.ndarray:
        """Marginal dicts of one paper as an array (sentences x ``labels_``)."""
        if not marg:
            return np.zeros((0, len(self.labels_)))
        labels = self.labels_
        return np.array([list(map(m.get, labels, repeat(0.0))) for m in marg], dtype=float)

    def _tag_paper(self, paper: Paper, x: list[dict[str, float]]):
        """Viterbi labels and marginals of one paper (through both CRFs when stacked)."""
        pred, marg = crf_tag(self._tagger, x, self.labels_)
        if self._stack_tagger is not None:
            x2 = marginal_features(x, self._full(marg), self.labels_, sentence_blocks(paper))
            pred, marg = crf_tag(self._stack_tagger, x2, self.labels_)
        if self.source_mix_:
            marg = self._mix(marg, x)
        return pred, marg

    def _mix(self, marg: list[dict[str, float]], x: list[dict[str, float]]):
        """An adapted model's marginals mixed per label with its source's decoding view
        (:func:`~coresc.model.mixing.mixed`; the source's label biases, not its domains')."""
        src = self._source
        bias = src.label_bias_ if src.decode == "balanced" else {}
        return mixed(marg, x, self.source_mix_, self.labels_, src.labels_, bias,
                     SourceSettings.from_dict(self.source).scale, self.source_absent_)

    def domain_names(self, kind: str = "corpus") -> list[str]:
        """Names of the training domains of ``kind`` (``["art", "cra"]`` for corpora)."""
        prefix = domain_tag(kind, "")
        return [t[len(prefix):] for t in self.domains_ if t.startswith(prefix)]

    def _decode(self, viterbi: list[str], marg: list[dict[str, float]],
                bias: dict[str, float]) -> list[str]:
        """The primary labels of one paper from its Viterbi path and marginals."""
        if self.decode == "viterbi":
            return viterbi
        return biased_decode(marg, bias)

    def _bias_for(self, paper: Paper) -> dict[str, float]:
        """The label biases to decode ``paper`` with: its domain's, else the shared ones."""
        for tag in paper_domains(paper, self.domains):
            if tag in self.domain_bias_:
                return self.domain_bias_[tag]
        return self.label_bias_

    # ------------------------------------------------------------ prediction

    def _check_fitted(self) -> None:
        if self._tagger is None:
            raise CorescError("the classifier is not trained (call fit or load)")

    def rank(self, papers: Sequence[Paper]) -> list[list[list[Prediction]]]:
        """Full ranking of the top three labels per sentence, thresholds not applied.

        The primary (first) entry is the decoded label (``decode``); the next two are
        the other labels by one-vs-rest probability (by CRF marginal when there is no
        secondary layer). Scores are calibrated probabilities, non-increasing down the
        list (raw scores for a model trained without calibration).
        """
        return [[self._calibrated(r, _corpus(p)) for r in ranked]
                for p, ranked in zip(papers, self._rank_raw(papers), strict=True)]

    def _rank_raw(self, papers: Sequence[Paper]) -> list[list[list[Prediction]]]:
        """Rankings with raw scores: the decoded label's marginal, then the others'
        one-vs-rest probabilities (or marginals)."""
        return [self._rank_tagged(paper, x, pred, marg)
                for paper, x, pred, marg in self._tagged(papers)]

    def _tagged(self, papers: Sequence[Paper]):
        """``(paper, features, viterbi, marginals)`` one paper at a time (the last two
        None for a paper without sentences)."""
        self._check_fitted()  # at the call, not at the first paper
        return ((paper, x, *self._tag_paper(paper, x)) if x else (paper, x, None, None)
                for paper, x in self._prediction_features(papers))

    def _rank_tagged(self, paper: Paper, x: list[dict[str, float]], pred,
                     marg) -> list[list[Prediction]]:
        if not x:
            return []
        probs = None
        if self._ovr is not None:
            probs = sigmoid(ovr_scores(x, self._ovr, self._full(marg)))
        return rank_labels(self.labels_, self._decode(pred, marg, self._bias_for(paper)),
                           marg, probs)

    def predict(self, papers: Sequence[Paper],
                min_score: float | None = None) -> list[list[list[Prediction]]]:
        """Per paper, per sentence: the emitted ranked labels (0 to 3 :class:`Prediction`).

        ``min_score``: labels whose (calibrated) score is below it are left out; a
        sentence whose primary label falls below gets no label at all.
        """
        return [[keep_above(self._emit(r, _corpus(p)), min_score) for r in ranked]
                for p, ranked in zip(papers, self._rank_raw(papers), strict=True)]

    def _emit(self, ranking: list[Prediction], corpus: str | None = None,
              ) -> list[Prediction]:
        """The labels a raw ranking emits (thresholds on raw scores), calibrated."""
        return self._calibrated(emitted(ranking, self._ovr), corpus)

    def _calibrated(self, ranking: list[Prediction], corpus: str | None = None,
                    ) -> list[Prediction]:
        if self.calibration_ is None:
            return list(ranking)
        return self.calibration_.apply(ranking, corpus)

    def calibration_corpora(self) -> list[str]:
        """The corpora with calibration maps of their own (``--domain`` picks one)."""
        return sorted(self.calibration_.by_corpus) if self.calibration_ else []

    def annotate(self, papers: Sequence[Paper], min_score: float | None = None) -> None:
        """Set ``Sentence.pred`` of every sentence of every paper.

        With ``min_score``, a sentence whose primary label scores below it gets no label
        (``pred`` empty) and keeps that label in ``Sentence.withheld``.
        """
        for paper, ranked in zip(papers, self._rank_raw(papers), strict=True):
            for s, r in zip(paper.sentences(), ranked, strict=True):
                emitted = self._emit(r, _corpus(paper))
                s.pred = keep_above(emitted, min_score)
                s.withheld = emitted[0] if emitted and not s.pred else None
            if min_score:
                paper.meta["min_score"] = float(min_score)
            else:
                paper.meta.pop("min_score", None)

    def rank_with_marginals(self, papers: Sequence[Paper]
                            ) -> tuple[list[list[list[Prediction]]], list[np.ndarray]]:
        """:meth:`rank` and :meth:`marginals` from one pass over the papers (features,
        encoder and CRF once)."""
        ranks, margs = [], []
        for paper, x, pred, marg in self._tagged(papers):
            ranks.append([self._calibrated(r, _corpus(paper))
                          for r in self._rank_tagged(paper, x, pred, marg)])
            margs.append(self._full(marg if x else []))
        return ranks, margs

    def marginals(self, papers: Sequence[Paper]) -> list[np.ndarray]:
        """CRF marginals per paper: array (sentences x labels), columns = ``labels_``."""
        return [self._full(marg if x else []) for _, x, _, marg in self._tagged(papers)]

    def source_outputs(self, paper: Paper, cache: bool = True,
                       analyses: list | None = None) -> SourceOutputs:
        """This model's view of one paper as an adapted model's source: its CRF
        marginals, decoded primary labels and encoder probabilities (what
        :func:`~coresc.model.source.add_source_features` takes). ``analyses``: the
        paper's tokens (and POS tags when this model needs them) already computed by the
        caller (None: computed here). The encoder runs once: its probabilities feed this
        model's CRF and are returned."""
        self._check_fitted()
        tagger = pos_tagger() if self._needs_tagger() else None
        probs = self._encoder_probs(paper) if self.encoder is not None else None
        x = self._paper_features(paper, tagger, self.domains_, cache, probs, analyses)
        enc_labels = self._encoder.labels if self._encoder is not None else None
        if not x:
            return SourceOutputs(self._full([]), list(self.labels_), [], probs, enc_labels)
        viterbi, marg = self._tag_paper(paper, x)
        decoded = self._decode(viterbi, marg, self._bias_for(paper))
        return SourceOutputs(self._full(marg), list(self.labels_), decoded, probs, enc_labels)

    # ------------------------------------------------------------ persistence

    def _open_tagger(self) -> None:
        self._tagger = open_tagger(self._crf_bytes)

    def save(self, directory: str | Path) -> Path:
        """Write the model directory (created if needed; files replaced atomically)."""
        self._check_fitted()
        return save_model(self, directory)

    def set_threads(self, threads: int) -> CoreSCClassifier:
        """Let the sentence encoder use ``threads`` cores (0 = every usable core); a
        model without one is unchanged. Its session runs each operator on one thread
        whatever ``threads``, so a forked worker has no thread pool to miss."""
        if self._source is not None:
            self._source.set_threads(threads)
        if self._encoder is not None:
            self._encoder.set_threads(threads)
        return self

    def _encoder_files(self) -> dict[str, bytes] | None:
        """The encoder's files (fitted or loaded), or None without an encoder."""
        if self._encoder_fitted is not None:
            f = self._encoder_fitted
            return {"encoder.onnx": f.onnx, "tokenizer.json": f.tokenizer.encode("utf-8"),
                    "encoder.json": to_json(f.info)}
        return getattr(self, "_encoder_loaded_files", None)

    @classmethod
    def load(cls, directory: str | Path, threads: int = 0) -> CoreSCClassifier:
        """Load a saved model directory (JSON, npz without pickle, crfsuite, ONNX files).

        ``threads``: the cores the sentence encoder may use, if the model has one
        (0 = all cores; worker processes that share a machine give 1). Raises
        :class:`~coresc.model.storage.ModelError` for a missing, incomplete or corrupt
        directory.
        """
        return load_model(cls, directory, threads)

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items()
                           if k not in ("c_grid", "verbose"))
        return f"CoreSCClassifier({params})"


def _corpus(paper: Paper) -> str | None:
    """The corpus a paper is known to come from (``--domain``, or its training record)."""
    return paper.meta.get("corpus")


def load_default() -> CoreSCClassifier:
    """The bundled default model (:data:`~coresc.model.storage.BUNDLED_MODELS`)."""
    return CoreSCClassifier.load(default_model_dir())
