"""The estimator's constructor parameters: checked and normalised before training and
after loading (:meth:`CoreSCClassifier._validate`)."""

from __future__ import annotations

import math
from collections.abc import Mapping

from ..features import check_groups
from .crf import DECODINGS, check_grid
from .domains import DOMAIN_KINDS, domain_kinds
from .encoder import EncoderSettings
from .source import SourceSettings


def check_params(model) -> None:
    """Check a :class:`~coresc.model.classifier.CoreSCClassifier`'s parameters (ValueError
    naming the first bad one) and normalise them in place (feature groups, the grid,
    domain kinds, encoder and source settings as full mappings)."""
    model.features = check_groups(model.features)
    for name in ("c1", "c2"):
        v = getattr(model, name)
        if v is not None and not _finite(v, 0):
            raise ValueError(f"{name} must be a finite number >= 0 or None, not {v!r}")
    if not _finite(model.ovr_c, 0) or model.ovr_c == 0:
        raise ValueError(f"ovr_c must be a finite number > 0, not {model.ovr_c!r}")
    model.c_grid = check_grid(model.c_grid)
    if model.decode not in DECODINGS:
        raise ValueError(f"decode must be one of {', '.join(DECODINGS)}, "
                         f"not {model.decode!r}")
    if int(model.max_iterations) < 1:
        raise ValueError("max_iterations must be >= 1")
    if not _finite(model.max_secondary_rate, 0) or model.max_secondary_rate > 1:
        raise ValueError("max_secondary_rate must be in [0, 1]")
    model.domains = domain_kinds(model.domains)  # set_params may have given a string
    bad = [d for d in model.domains if d not in DOMAIN_KINDS]
    if bad:
        raise ValueError(f"unknown domain kind(s) {', '.join(map(str, bad))}; "
                         f"known: {', '.join(DOMAIN_KINDS)}")
    if model.encoder is not None:
        if not isinstance(model.encoder, Mapping):
            raise ValueError(f"encoder must be a mapping of settings, not {model.encoder!r}")
        model.encoder = EncoderSettings.from_dict(model.encoder).to_dict()
    if model.source is not None:
        if not isinstance(model.source, Mapping):
            raise ValueError(f"source must be a mapping of settings, not {model.source!r}")
        model.source = SourceSettings.from_dict(model.source).to_dict()
    if model.device not in ("cpu", "cuda") and not str(model.device).startswith("cuda:"):
        raise ValueError(f"device must be 'cpu' or 'cuda', not {model.device!r}")


def _finite(v, low: float) -> bool:
    """A number (not a bool), finite, at least ``low``: NaN passes no ``<`` test, so
    ``v < 0`` alone let ``--c1 nan`` through (issue 42)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) \
        and v >= low
