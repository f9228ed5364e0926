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

* **Encoder** (optional, ``encoder``). A fine-tuned transformer sentence encoder whose
  label probabilities (for the sentence and its neighbours) become CRF features; the CRF
  trains on out-of-fold probabilities. Fine-tuning needs torch (:mod:`~coresc.model.finetune`);
  a saved model runs the encoder as ONNX (:mod:`~coresc.model.encoder`).

* **Adapted models** (``coresc train PAPERS --from MODEL``, :mod:`~coresc.model.adapt`).
  A CRF trained on a few reviewed papers of a user's field whose features include a
  *source* model's label probabilities (:mod:`~coresc.model.source`); the source is kept
  whole in the directory's ``source/``.

The package holds one idea a module: :mod:`~coresc.model.classifier` (the estimator:
parameters, prediction, saving and loading), :mod:`~coresc.model.params` (checking its
parameters), :mod:`~coresc.model.training` (the work of its ``fit``, as functions the
estimator calls), :mod:`~coresc.model.crf_input` (what the CRF reads of a paper),
:mod:`~coresc.model.ranking` (ranked and emitted labels),
:mod:`~coresc.model.crf`, :mod:`~coresc.model.secondary`, :mod:`~coresc.model.domains`,
:mod:`~coresc.model.encoder` and :mod:`~coresc.model.finetune`,
:mod:`~coresc.model.source` (an adapted model's source features),
:mod:`~coresc.model.calibration`, :mod:`~coresc.model.analyses` (cached tokens and POS
tags), :mod:`~coresc.model.persist` (saving and loading directories),
:mod:`~coresc.model.storage` (their file formats), :mod:`~coresc.model.provenance` and
:mod:`~coresc.model.card` (training records, model cards),
:mod:`~coresc.model.licences` (the training corpora recognised, their terms) and
:mod:`~coresc.model.weakness` (the card's weaknesses, from held-out predictions).
Imports run one way: the estimator imports the modules that do its work, and none of
them imports it back.

A saved model is a directory (no pickle anywhere)::

    crf.crfsuite     the crfsuite model file
    crf_stack.crfsuite  the second (stacked) CRF, when ``stack`` is on
    ovr.npz          one-vs-rest weights: coef (labels x features), intercept
    ovr_vocab.json   feature names of the coef columns
    config.json      constructor parameters (feature groups, c1, c2, ...)
    meta.json        version, date, training corpora, label set, thresholds, CV scores
    source/          an adapted model's source model (a model directory of its own)
"""


from __future__ import annotations

from ..labels import LABELS
from .analyses import clear_cache
from .classifier import CoreSCClassifier, load_default, log
from .crf import DECODINGS, DEFAULT_GRID, balanced_folds
from .domains import DOMAIN_KINDS, augment, domain_tag, paper_domains
from .storage import DEFAULT_MODEL_DIR, MODEL_FORMAT, ModelError

__all__ = [
    "CoreSCClassifier", "load_default", "balanced_folds", "clear_cache", "log", "LABELS",
    "DECODINGS", "DEFAULT_GRID", "DOMAIN_KINDS", "DEFAULT_MODEL_DIR", "MODEL_FORMAT",
    "ModelError", "augment", "domain_tag", "paper_domains",
]
