"""Adapting a trained model to a user's field from a few reviewed papers, without the
corpora it was trained on (``coresc train PAPERS --from MODEL``).

:func:`adapt` trains a new :class:`~coresc.model.classifier.CoreSCClassifier` on the
reviewed papers whose CRF sees, next to the hand-built features, the *source* model's
label probabilities for each sentence and its neighbours (:mod:`~coresc.model.source`).
Everything else is the ordinary training on those papers (c1/c2 fixed at
:data:`ADAPT_GRID`'s pair unless given; the largest marginal decoded, or label biases
tuned on out-of-fold marginals with ``decode="balanced"``): the scores calibrated on
out-of-fold predictions of the reviewed papers, and a secondary layer when the reviewed papers have
multi-labels (else the ranking's 2nd and 3rd labels come from the adapted CRF's
marginals and none is emitted).

The adapted CRF's marginals are then mixed, label by label, with the source's as the
source decodes (:mod:`~coresc.model.mixing`; source setting ``mix``, on by default):
a label the reviewed papers barely show stays the source's, so the rare labels the
source knows are not lost; its labels are both models'.

The source is never retrained and its corpora are never read: its probabilities on the
reviewed papers are honest only if it never trained on them, so papers that its
training record lists are named in a warning and in the model's ``meta.json``
(``adapted_from.seen_by_source``); cross-fitting them would need the source's corpora.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..document import Paper
from ..errors import CorescError
from ..features import paper_labels
from .classifier import CoreSCClassifier
from .progress import log
from .provenance import seen_in_training
from .source import SourceSettings

#: (c1, c2) pairs the inner folds choose from when c1/c2 are not given. One pair: on CRA
#: papers adapted from an ART model the inner folds chose it over weaker and stronger
#: penalties at 5 and 15 papers, except once, where the choice lost 0.7 points on held-out
#: papers (``experiments/adapt_probe.py``, docs/benchmarks.md); and one pair skips
#: the choice's inner fits, nearly halving the time.
ADAPT_GRID: tuple[tuple[float, float], ...] = ((0.5, 5.0),)
#: How the adapted model reads its primary label (``CoreSCClassifier.decode``). The
#: largest marginal: label biases tuned on a few papers' out-of-fold marginals
#: (``"balanced"``) were 0.5-0.8 points less accurate on average over three splits of
#: CRA (macro-F1 1-1.5 points higher), and varied more from split to split.
ADAPT_DECODE = "posterior"


def adapt(source: CoreSCClassifier, papers: Sequence[Paper], *, c1: float | None = None,
          c2: float | None = None, c_grid: Sequence[Sequence[float]] = ADAPT_GRID,
          max_iterations: int = 150, secondary: bool = True, inner_folds: int = 3,
          min_freq: int = 2, decode: str = ADAPT_DECODE, domains: Sequence[str] = (),
          features: Sequence[str] | None = None,
          source_settings: Mapping[str, Any] | None = None, source_name: str | None = None,
          verbose: bool = True) -> CoreSCClassifier:
    """A classifier for the field of ``papers`` (gold-labelled), adapted from ``source``.

    ``source``: a fitted (or loaded) classifier; it is kept inside the result and saved in
    its directory's ``source/``. ``c1``/``c2``: the adapted CRF's penalties (both
    ``None``: chosen from ``c_grid`` on ``inner_folds`` folds of the papers, leave one
    paper out when there are that few; the default grid is one pair). ``inner_folds``:
    the folds the decoding biases, the calibration and the secondary layer are fitted
    on. ``source_settings``: which source outputs become features
    (:class:`~coresc.model.source.SourceSettings`). ``source_name``: what to call the
    source on the model card (``"fast"``, a path). ``domains``: domain feature copies,
    for pooling reviewed papers with other corpora (``--domains``). ``features``: the
    hand-built feature groups (default: the source's). Deterministic: the same inputs
    give the same model. Raises :class:`~coresc.errors.CorescError` when
    no paper has a gold label.
    """
    source._check_fitted()
    papers = list(papers)
    if not any(lab for p in papers for lab in paper_labels(p)):
        raise CorescError("no sentence with a gold label in the reviewed papers")
    settings = SourceSettings.from_dict(source_settings).to_dict()
    seen = _seen_by_source(source, papers, verbose)
    groups = source.features if features is None else features
    model = CoreSCClassifier(features=groups, c1=c1, c2=c2, c_grid=c_grid,
                             max_iterations=max_iterations, secondary=secondary,
                             inner_folds=inner_folds, min_freq=min_freq, decode=decode,
                             domains=domains, source=settings, verbose=verbose)
    model._source = source
    if verbose:
        log(f"adapting {source_name or 'the source model'} to {len(papers)} reviewed papers")
    model.fit(papers)
    _record(model, source, source_name, seen)
    return model


def _seen_by_source(source: CoreSCClassifier, papers: list[Paper],
                    verbose: bool) -> list[str] | None:
    """Ids of the papers the source trained on (None: it records no training papers)."""
    try:
        seen = seen_in_training(source.meta_, papers)
    except LookupError:
        if verbose:
            log("note: the source model does not record its training papers, so it cannot "
                "be checked that it never saw the reviewed ones")
        return None
    ids = [p.id for p, s in zip(papers, seen, strict=True) if s]
    if ids and verbose:
        log(f"WARNING: {len(ids)} of the {len(papers)} reviewed papers were in the source "
            f"model's training data ({', '.join(ids[:3])}{', ...' if len(ids) > 3 else ''}); "
            "its labels for them are in-sample, so the adapted model learns to trust the "
            "source more than it should. Adapt a source trained without them.")
    return ids


def _record(model: CoreSCClassifier, source: CoreSCClassifier, name: str | None,
            seen: list[str] | None) -> None:
    """What the adapted model's ``meta.json`` says of its source.

    The source's training papers join the record ``coresc evaluate`` checks (marked
    ``"via": "source"``): the adapted model knows them through its source's features.
    """
    smeta = source.meta_
    record = smeta.get("training_data") if isinstance(smeta.get("training_data"),
                                                          Mapping) else {}
    model.meta_["adapted_from"] = {
        "model": name, "trained": smeta.get("trained"),
        "coresc_version": smeta.get("coresc_version"),
        "n_papers": smeta.get("n_papers"), "corpora": dict(record.get("corpora") or {}),
        "command": smeta.get("command"), "encoder": bool(source.encoder),
        "seen_by_source": seen,
    }
    reviewed = model.meta_["training_data"]
    reviewed["papers"] = list(reviewed["papers"]) + [
        {**p, "via": "source"} for p in record.get("papers") or []
        if isinstance(p, Mapping)]
