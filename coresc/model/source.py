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

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..document import Paper
from .analyses import pos_tagger
from .encoder import encoder_features, settings_from

if TYPE_CHECKING:
    from .classifier import CoreSCClassifier

#: The sub-folder of an adapted model's directory that holds its source model.
SOURCE_DIR = "source"


@dataclass(frozen=True)
class SourceSettings:
    """Which of the source's outputs become features of the adapted CRF (JSON-able).

    neighbours : the source marginals of this many sentences on each side are features.
    scale : every source probability is multiplied by this before the CRF sees it. The
        CRF's penalties are the same for every weight, so a larger scale lets the few
        dense source features weigh more against the thousands of sparse hand-built ones.
    encoder : the source's sentence-encoder probabilities too, when it has an encoder.
    decoded : the source's decoded primary label (with its label biases) as a feature.
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

    def __post_init__(self) -> None:
        if not isinstance(self.neighbours, int) or isinstance(self.neighbours, bool) \
                or self.neighbours < 0:
            raise ValueError(f"source neighbours must be a whole number >= 0, "
                             f"not {self.neighbours!r}")
        if not isinstance(self.scale, (int, float)) or isinstance(self.scale, bool) \
                or self.scale <= 0:
            raise ValueError(f"source scale must be a number > 0, not {self.scale!r}")
        for name in ("encoder", "decoded", "context"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"source {name} must be true or false")

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> SourceSettings:
        """Settings from a config mapping; unknown keys are an error (ValueError)."""
        return settings_from(cls, d, "source")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def source_outputs(source: CoreSCClassifier, paper: Paper, cache: bool = True,
                   analyses: list | None = None,
                   ) -> tuple[np.ndarray, list[str], np.ndarray | None]:
    """The source's view of one paper: its CRF marginals (sentences x ``labels_``), its
    decoded primary labels, and its encoder's probabilities (None without an encoder).
    ``analyses``: the paper's tokens (and POS tags when the source needs them) already
    computed by the caller (None: computed here).

    The encoder runs once: its probabilities feed the source's own CRF and are returned.
    """
    source._check_fitted()
    tagger = pos_tagger() if source._needs_tagger() else None
    probs = source._encoder_probs(paper) if source.encoder is not None else None
    x = source._paper_features(paper, tagger, source.domains_, cache, probs, analyses)
    if not x:
        return np.zeros((0, len(source.labels_))), [], probs
    viterbi, marg = source._tag_paper(paper, x)
    decoded = source._decode(viterbi, marg, source._bias_for(paper))
    return source._full(marg), decoded, probs


def add_source_features(x: list[dict[str, float]], source: CoreSCClassifier, paper: Paper,
                        settings: SourceSettings, cache: bool = True,
                        analyses: list | None = None) -> None:
    """Add the source's features (see the module docstring) to a paper's feature dicts."""
    marg, decoded, probs = source_outputs(source, paper, cache, analyses)
    labels = list(source.labels_)
    parts = [encoder_features(marg, labels, settings.neighbours, settings.scale, "src")]
    if settings.encoder and probs is not None and source._encoder is not None:
        parts.append(encoder_features(probs, source._encoder.labels, 0, settings.scale,
                                      "srcenc"))
    if settings.context:
        from ..features import marginal_features, sentence_blocks

        ctx = marginal_features([{}] * len(x), marg * settings.scale, labels,
                                sentence_blocks(paper), floor=0.0)
        parts.append([{k: v for k, v in f.items() if not k.startswith(("m=", "mp=", "mn="))}
                      for f in ctx])
    if settings.decoded:
        parts.append([{f"srcpick={lab}": 1.0} for lab in decoded])
    for j, f in enumerate(x):
        for part in parts:
            f.update(part[j])

