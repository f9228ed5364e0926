"""coresc: label the sentences of scientific papers with CoreSC discourse roles.

    import coresc
    tagger = coresc.load()               # the bundled model, or coresc.load("my-model/")
    paper = tagger("paper.nxml")         # a path, a string of text, or a Paper
    for s in paper.sentences():
        print(s.pred[0].label, s.text)

:func:`load` returns a :class:`Tagger`; :func:`read` reads a paper without annotating
it; :func:`annotate_files` streams files into an output folder with progress, worker
processes, resume and Dask. Everything is imported on first use, so ``import coresc``
(and the command line's start-up) stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._version import __version__

#: Public name -> module that defines it (imported when first used).
_LAZY = {
    "load": "coresc.api", "read": "coresc.api", "Tagger": "coresc.api",
    "annotate_files": "coresc.batch", "Paper": "coresc.document",
    "Sentence": "coresc.document", "Prediction": "coresc.document",
}

__all__ = ["__version__", "load", "read", "Tagger", "annotate_files", "Paper", "Sentence",
           "Prediction"]

if TYPE_CHECKING:
    from .api import Tagger, load, read
    from .batch import annotate_files
    from .document import Paper, Prediction, Sentence


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'coresc' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
