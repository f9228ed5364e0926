"""What the CRF reads of one paper: its hand-built features, then the sentence encoder's
probabilities, an adapted model's source outputs and the paper's domain copies, as
functions of the estimator (``model``: a
:class:`~coresc.model.classifier.CoreSCClassifier`; this module never imports it)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..document import Paper
from ..errors import CorescError
from ..features import paper_features
from .analyses import ANALYSES
from .domains import augment, paper_domains
from .encoder import EncoderSettings, encoder_features
from .source import SourceSettings, add_source_features


def model_features(model, paper: Paper, tagger, known_domains: Sequence[str] | None,
                   cache: bool, encoder_probs: np.ndarray | None = None,
                   analyses: list | None = None) -> list[dict[str, float]]:
    """One feature dict per sentence of ``paper`` (see
    :meth:`~coresc.model.classifier.CoreSCClassifier.featurize`)."""
    if analyses is None:
        analyses = ANALYSES.get(paper, tagger, store=cache)
    x = paper_features(paper, model.features, analyses=analyses)
    if model.encoder is not None and x:
        probs = encoder_probs if encoder_probs is not None else model._encoder_probs(paper)
        _add_encoder_features(model, x, probs)
    if model.source is not None and x:
        if model._source is None:
            raise CorescError("the adapted classifier has no source model (call adapt "
                              "or load)")
        # the source reuses these analyses (prediction does not cache them) unless it
        # needs POS tags they lack
        shared = analyses if tagger is not None or not model._source._needs_tagger() \
            else None
        add_source_features(x, model._source.source_outputs(paper, cache, shared), paper,
                            SourceSettings.from_dict(model.source))
    tags = paper_domains(paper, model.domains)
    if known_domains is not None:
        tags = [t for t in tags if t in known_domains]
    return augment(x, tags) if tags else x


def _add_encoder_features(model, x: list[dict[str, float]], probs: np.ndarray) -> None:
    settings = EncoderSettings.from_dict(model.encoder)
    labels = model._encoder.labels if model._encoder else model._encoder_labels
    feats = encoder_features(probs, labels, settings.neighbours, settings.feature_scale)
    for f, g in zip(x, feats, strict=True):
        f.update(g)
