"""The package version, in a leaf module.

Lower layers (writers, the model, batch manifests, tracking) stamp their outputs with the
version; they read it from here so that no import runs back up to ``coresc/__init__``,
which imports the API and the batch layer. pyproject.toml reads this file (dynamic version).
"""

__version__ = "0.1.0"
