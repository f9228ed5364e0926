"""Fine-tuning the sentence encoder (needs torch: ``pip install 'coresc[train]'``).

* :mod:`.bert`    a BERT encoder in plain torch that loads MiniLM-style checkpoints;
* :mod:`.base`    finding and reading the pretrained checkpoint;
* :mod:`.train`   fine-tuning on labelled sentences and predicting with torch;
* :mod:`.export`  ONNX export (what a model directory ships; inference needs no torch);
* :mod:`.cache`   fine-tuned weights and predictions on disk, keyed by training data and
  settings, so experiment folds, the CRF and reruns reuse them;
* :mod:`.oof`     the out-of-fold probabilities the CRF is trained on.
"""

from __future__ import annotations

from ...errors import CorescError


def require_torch():
    """Import torch, or fail with one line naming the extra to install."""
    try:
        import safetensors  # noqa: F401
        import tokenizers  # noqa: F401
        import torch
    except ImportError as exc:
        raise CorescError(f"fine-tuning a sentence encoder needs {exc.name}: "
                          f"pip install 'coresc[train]'") from None
    return torch
