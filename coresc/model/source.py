"""A source model's label probabilities as CRF features: the input of an adapted model.

An adapted model (``coresc train PAPERS --from MODEL``, :mod:`~coresc.model.adapt`) is a
CRF trained on a few reviewed papers of the user's field whose features are the usual
hand-built ones plus what the *source* model (MODEL, trained on other corpora) says
about each sentence: its CRF marginals for all labels (``src=L``), those of the
neighbouring sentences (``src-1=L``, ``src+1=L``), their means over the sentence's
paragraph, section and paper (``mpara=L``, ``msec=L``, ``mdoc=L``), optionally its decoded
label (``srcpick=L``) and, when the source has a sentence encoder, the encoder's
probabilities (``srcenc=L``).
The source never trained on the reviewed papers, so these probabilities are as honest on
them as on new papers, and the new CRF learns from them how far to trust the source, and
how the user's field uses the labels differently (stacked generalisation, Wolpert 1992).

The source is saved inside the adapted model's directory (``source/``), a whole model
directory of its own, so the adapted model loads without the original.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ..document import Paper
from .encoder import encoder_features, settings_from


@dataclass(frozen=True)
class SourceSettings:
    """Which of the source's outputs become features of the adapted CRF (JSON-able).

    neighbours : the source marginals of this many sentences on each side are features.
    scale : every source probability is multiplied by this before the CRF sees it. The
        CRF's penalties are the same for every weight, so a larger scale lets the few
        dense source features weigh more against the thousands of sparse hand-built ones.
    encoder : the source's sentence-encoder probabilities too, when it has an encoder.
    decoded : the source's decoded primary label (with its label biases) as a feature.
    mix : the adapted model's marginals mixed per label with the source's as it decodes,
        weighted by how often the reviewed papers show each label
        (:mod:`~coresc.model.mixing`), so labels they barely show stay the source's.
    context : the means of the source's marginals over the rest of the sentence's
        paragraph (``mpara=L``) and section (``msec=L``) and over the paper (``mdoc=L``)
        too, as the stacked CRF's :func:`~coresc.features.marginal_features`.

    The defaults were the most accurate of the variants tried on CRA papers adapted from
    an ART model (``experiments/adapt_probe.py``, docs/benchmarks.md).
    """

    neighbours: int = 1
    scale: float = 3.0
    encoder: bool = True
    decoded: bool = False
    context: bool = True
    mix: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.neighbours, int) or isinstance(self.neighbours, bool) \
                or self.neighbours < 0:
            raise ValueError(f"source neighbours must be a whole number >= 0, "
                             f"not {self.neighbours!r}")
        if not isinstance(self.scale, (int, float)) or isinstance(self.scale, bool) \
                or not 0 < self.scale < math.inf:
            raise ValueError(f"source scale must be a finite number > 0, not "
                             f"{self.scale!r}")
        for name in ("encoder", "decoded", "context", "mix"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"source {name} must be true or false")

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> SourceSettings:
        """Settings from a config mapping; unknown keys are an error (ValueError)."""
        return settings_from(cls, d, "source")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class SourceOutputs:
    """A source model's view of one paper
    (:meth:`~coresc.model.classifier.CoreSCClassifier.source_outputs`).

    marginals : its CRF marginals (sentences x ``labels``).
    labels : its label set, the columns of ``marginals``.
    decoded : its decoded primary label of each sentence.
    encoder_probs : its encoder's probabilities (sentences x ``encoder_labels``); None
        without an encoder.
    encoder_labels : its encoder's labels; None without an encoder.
    """

    marginals: np.ndarray
    labels: list[str]
    decoded: list[str]
    encoder_probs: np.ndarray | None
    encoder_labels: list[str] | None


def add_source_features(x: list[dict[str, float]], outputs: SourceOutputs, paper: Paper,
                        settings: SourceSettings) -> None:
    """Add the source's features (see the module docstring), from its ``outputs`` for
    ``paper``, to the paper's feature dicts."""
    marg, labels, probs = outputs.marginals, list(outputs.labels), outputs.encoder_probs
    parts = [encoder_features(marg, labels, settings.neighbours, settings.scale, "src")]
    if settings.encoder and probs is not None and outputs.encoder_labels is not None:
        parts.append(encoder_features(probs, outputs.encoder_labels, 0, settings.scale,
                                      "srcenc"))
    if settings.context:
        from ..features import marginal_features, sentence_blocks

        ctx = marginal_features([{}] * len(x), marg * settings.scale, labels,
                                sentence_blocks(paper), floor=0.0)
        parts.append([{k: v for k, v in f.items() if not k.startswith(("m=", "mp=", "mn="))}
                      for f in ctx])
    if settings.decoded:
        parts.append([{f"srcpick={lab}": 1.0} for lab in outputs.decoded])
    for j, f in enumerate(x):
        for part in parts:
            f.update(part[j])

