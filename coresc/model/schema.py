"""What a model directory's JSON files may hold, checked where they are read.

A hand-edited ``meta.json`` once ended in a traceback wherever a value of the wrong kind
was first used (issue 42: ``domain_bias: [1]``, ``training_data.corpora: 5``, nesting
100,000 deep) or, worse, was used as given (``label_bias`` of NaN changed the labels).
:func:`parse_json` bounds a file's nesting before the parser sees it and refuses numbers
that are not finite (``NaN``, ``Infinity``, ``1e999``); :func:`check_meta` and
:func:`check_evaluation` check a parsed ``meta.json`` / ``evaluation.json`` against the
shapes below, so that everything that reads them later (the loader, the model card,
``coresc evaluate``'s training-overlap check, ``coresc serve``'s ``GET /model``) gets
the kinds it expects. A problem is one line naming the file and the key.

The shapes are lenient where older coresc versions wrote less: a key may be missing
(except those :data:`META_REQUIRED` names) and unknown keys are kept.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

#: Deepest nesting of arrays and objects a model's JSON file may have (coresc writes 6).
MAX_DEPTH = 32
#: Keys every ``meta.json`` holds: what the loader cannot do without (``files``, also
#: required, is checked by :func:`~coresc.model.integrity.records_of`, which says why).
META_REQUIRED = ("format", "labels")


class Unreadable(ValueError):
    """JSON that is valid but more than a model file may hold: nested too deep, or a
    number that is not finite."""


class SchemaError(ValueError):
    """A value of the wrong kind: ``key`` is where (``training_data.papers[3].id``)."""

    def __init__(self, key: str, expected: str) -> None:
        super().__init__(f"bad {key!r}: expected {expected}" if key else
                         f"expected {expected}")
        self.key = key


# ---------------------------------------------------------------- parsing


def parse_json(data: bytes) -> Any:
    """JSON text parsed with its nesting bounded (:data:`MAX_DEPTH`) before the parser
    sees it, and only finite numbers (``NaN``, ``Infinity``, ``1e999`` are refused,
    naming their key). ``ValueError`` (one line) otherwise, also for text that is not
    UTF-8 or not JSON."""
    depth = nesting(data)
    if depth > MAX_DEPTH:
        raise Unreadable(f"nested {depth} deep (at most {MAX_DEPTH})")
    seen: list[str] = []  # the parser's hooks note what is not finite; rarely any

    def constant(name: str) -> float:
        seen.append(name)
        return math.nan

    def number(text: str) -> float:
        value = float(text)
        if not math.isfinite(value):
            seen.append(text)
        return value

    value = json.loads(data.decode("utf-8"), parse_constant=constant, parse_float=number)
    if seen:  # name the first one's key (a walk over the whole value, so only now)
        where = non_finite(value)
        raise Unreadable(f"{where!r} is not a finite number" if where else
                         "the value is not a finite number")
    return value


def nesting(data: bytes) -> int:
    """How deep arrays and objects nest in JSON text (brackets inside strings do not
    count), in linear time whatever the text holds (no regular expression that could
    backtrack, no recursion)."""
    import numpy as np

    raw = np.frombuffer(data, dtype=np.uint8)
    quotes = np.flatnonzero(raw == ord('"'))
    slashes = np.flatnonzero(raw == ord("\\"))
    if len(quotes) and len(slashes):
        # a quote ends a string unless an odd run of backslashes comes right before it
        first = np.maximum.accumulate(np.where(np.diff(slashes, prepend=-2) != 1,
                                               np.arange(len(slashes)), 0))
        last = np.searchsorted(slashes, quotes) - 1  # the last backslash before each quote
        touching = (last >= 0) & (slashes[np.maximum(last, 0)] == quotes - 1)
        run = np.where(touching, last - first[np.maximum(last, 0)] + 1, 0)
        quotes = quotes[run % 2 == 0]
    brackets = np.flatnonzero((raw == ord("[")) | (raw == ord("]")) | (raw == ord("{"))
                              | (raw == ord("}")))
    outside = brackets[np.searchsorted(quotes, brackets) % 2 == 0]
    if not len(outside):
        return 0
    opens = (raw[outside] == ord("[")) | (raw[outside] == ord("{"))
    return int(np.cumsum(np.where(opens, 1, -1)).max())


def non_finite(value: Any) -> str | None:
    """The key of the first number in ``value`` that is not finite (``a.b[2]``; ``""``
    for ``value`` itself), or None."""
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        key, v = stack.pop()
        if isinstance(v, float) and not math.isfinite(v):
            return key
        if isinstance(v, dict):
            stack.extend((_join(key, str(k)), x) for k, x in reversed(v.items()))
        elif isinstance(v, list):
            stack.extend((f"{key}[{i}]", x) for i, x in reversed(list(enumerate(v))))
    return None


# ---------------------------------------------------------------- shapes

#: A shape checks a value found at a key and raises :class:`SchemaError`.
Shape = Callable[[Any, str], None]


def _kind(test: Callable[[Any], bool], expected: str) -> Shape:
    def check(value: Any, key: str) -> None:
        if not test(value):
            raise SchemaError(key, expected)
    return check


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


NUMBER = _kind(_is_number, "a finite number")
COUNT = _kind(lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0,
              "a whole number >= 0")
TEXT = _kind(lambda v: isinstance(v, str), "a string")
FLAG = _kind(lambda v: isinstance(v, bool), "true or false")
NON_NEGATIVE = _kind(lambda v: _is_number(v) and v >= 0, "a number >= 0")
SHARE = _kind(lambda v: _is_number(v) and 0 <= v <= 1, "a number in [0, 1]")
SCALE = _kind(lambda v: _is_number(v) and 0 < v <= 1, "a number in (0, 1]")
SHA256 = _kind(lambda v: isinstance(v, str) and re.fullmatch(r"[0-9a-f]{64}", v) is not None,
               "a SHA-256 in hex")


def optional(shape: Shape) -> Shape:
    """``shape`` or null."""
    def check(value: Any, key: str) -> None:
        if value is not None:
            shape(value, key)
    return check


def list_of(shape: Shape, non_empty: bool = False) -> Shape:
    def check(value: Any, key: str) -> None:
        if not isinstance(value, list) or (non_empty and not value):
            raise SchemaError(key, "a non-empty list" if non_empty else "a list")
        for i, item in enumerate(value):
            shape(item, f"{key}[{i}]")
    return check


def map_of(shape: Shape) -> Shape:
    """An object whose values all have ``shape`` (any keys)."""
    def check(value: Any, key: str) -> None:
        if not isinstance(value, dict):
            raise SchemaError(key, "an object")
        for name, item in value.items():
            shape(item, f"{key}.{name}")
    return check


def record(fields: Mapping[str, Shape], required: tuple[str, ...] = ()) -> Shape:
    """An object with these keys (unknown ones allowed, ``required`` ones present)."""
    def check(value: Any, key: str) -> None:
        if not isinstance(value, dict):
            raise SchemaError(key, "an object")
        for name in required:
            if name not in value:
                raise SchemaError(_join(key, name), "a value, and there is none")
        for name, shape in fields.items():
            if name in value:
                shape(value[name], _join(key, name))
    return check


def _join(key: str, name: str) -> str:
    return f"{key}.{name}" if key else name


def _pairs(value: Any, key: str) -> None:
    """A weakness record's confusion pair: ``labels`` [a, b], then ``a_as_b`` and
    ``b_as_a`` each with counts and examples."""
    record({"labels": list_of(TEXT)}, ("labels",))(value, key)
    labels = value["labels"]
    if len(labels) != 2:
        raise SchemaError(f"{key}.labels", "two labels")
    a, b = labels
    for name in (f"{a}_as_{b}", f"{b}_as_{a}"):
        record({"n": COUNT, "of": COUNT, "examples": list_of(_EXAMPLE)},
               ("n", "of", "examples"))(value.get(name), _join(key, name))


_CORPUS_COUNTS = record({"papers": COUNT, "sentences": COUNT, "labelled": COUNT},
                        ("papers", "sentences", "labelled"))
_LABEL_NUMBERS = map_of(NUMBER)
_TRAINING = record({
    "hash": TEXT,
    "corpora": map_of(_CORPUS_COUNTS),
    "label_counts": map_of(COUNT),
    "papers": list_of(record({"id": TEXT, "corpus": TEXT, "sha256": SHA256, "via": TEXT},
                             ("id", "sha256"))),
})
_RANK = record({"n": COUNT, "hit_rate": optional(NUMBER)})
_CALIBRATION = record({"n": COUNT, "ece_primary_raw": optional(NUMBER),
                       "by_corpus": map_of(record({"n": COUNT})),
                       **{f"rank{k}": _RANK for k in range(1, 4)}})
_SECONDARY = record({"threshold2": NUMBER, "threshold3": NUMBER, "n_sentences": COUNT,
                     "n_papers": COUNT, "n_features": COUNT, "tuning": map_of(NUMBER)})
_ENCODER = record({"labels": list_of(TEXT), "settings": record({}),
                   "n_train_sentences": COUNT, "seconds": NUMBER})
_ADAPTED = record({
    "model": optional(TEXT), "trained": optional(TEXT), "coresc_version": optional(TEXT),
    "n_papers": optional(COUNT), "corpora": map_of(_CORPUS_COUNTS), "command": optional(TEXT),
    "encoder": FLAG, "seen_by_source": optional(list_of(TEXT)),
})
_FILES = map_of(record({"size": COUNT, "sha256": SHA256}, ("size", "sha256")))
#: ``meta.json`` as :func:`~coresc.model.training.fit` and ``coresc train`` write it.
META = record({
    "format": COUNT, "coresc_version": TEXT, "trained": TEXT,
    "labels": list_of(TEXT, non_empty=True),
    "n_papers": COUNT, "n_sentences": COUNT, "n_labelled": COUNT,
    "c1": optional(NON_NEGATIVE), "c2": optional(NON_NEGATIVE),
    "label_bias": optional(_LABEL_NUMBERS),
    "source_mix": optional(map_of(SHARE)), "source_absent": optional(map_of(SCALE)),
    "domains": optional(list_of(TEXT)), "domain_bias": optional(map_of(_LABEL_NUMBERS)),
    "inner_cv_accuracy": map_of(NUMBER), "stack_inner_cv_accuracy": map_of(NUMBER),
    "secondary": optional(_SECONDARY), "encoder": optional(_ENCODER),
    "calibration": optional(_CALIBRATION), "train_seconds": NUMBER,
    "training_data": _TRAINING, "corpora": list_of(TEXT), "trained_by": TEXT,
    "command": TEXT, "adapted_from": _ADAPTED, "files": _FILES,
}, META_REQUIRED)

_EXAMPLE = record({"corpus": optional(TEXT), "paper": optional(TEXT), "text": TEXT,
                   "gold": list_of(TEXT), "pred": TEXT, "score": NUMBER},
                  ("text", "gold", "pred", "score"))
_RUN = record({"config": optional(TEXT), "run_id": optional(TEXT), "test": optional(TEXT),
               "train": optional(TEXT), "labels": optional(TEXT),
               "metrics": map_of(optional(NUMBER)), "settings": optional(list_of(TEXT))})
_CAPTIONS = record({"n": COUNT, "accuracy": NUMBER, "accuracy_elsewhere": optional(NUMBER),
                    "top_confusions": list_of(_kind(
                        lambda v: isinstance(v, list) and len(v) == 3, "[gold, predicted, n]")),
                    "examples": list_of(_EXAMPLE)},
                   ("n", "accuracy", "top_confusions", "examples"))
#: ``evaluation.json`` as :func:`~coresc.model.weakness.evaluation_from_predictions`
#: writes it (with ``model_trained`` and ``command`` added by experiments/model_card.py).
EVALUATION = record({
    "generated": TEXT, "model_trained": optional(TEXT), "command": optional(TEXT),
    "runs": list_of(_RUN),
    "weaknesses": record({"n": COUNT, "captions": _CAPTIONS, "confusions": list_of(_pairs)}),
})


def check_meta(meta: Any) -> dict[str, Any]:
    """A parsed ``meta.json``, checked (:class:`SchemaError` naming the first bad key);
    also every label key of the biases and mixing weights must be one of its labels."""
    META(meta, "")
    labels = set(meta["labels"])
    if len(labels) != len(meta["labels"]):
        raise SchemaError("labels", "each label once")
    domains = set(meta.get("domains") or ())
    for key in ("label_bias", "source_mix", "source_absent"):
        _known(meta.get(key) or {}, labels, key)
    for tag, bias in (meta.get("domain_bias") or {}).items():
        if tag not in domains:
            raise SchemaError(f"domain_bias.{tag}", "one of the model's domains")
        _known(bias, labels, f"domain_bias.{tag}")
    return meta


def check_evaluation(evaluation: Any) -> dict[str, Any]:
    """A parsed ``evaluation.json``, checked (:class:`SchemaError` naming the key)."""
    EVALUATION(evaluation, "")
    return evaluation


def _known(values: Mapping[str, Any], labels: set[str], key: str) -> None:
    for name in values:
        if name not in labels:
            raise SchemaError(f"{key}.{name}", "one of the model's labels")
