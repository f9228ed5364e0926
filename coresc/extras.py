"""Optional dependencies (pip extras): what each provides, and the one-line error.

A verb that needs an extra calls :func:`require` before doing any work, so a missing
package is reported at once (not after an hour of training) as one line naming the extra
to install. :func:`missing_module_error` turns any other ``ModuleNotFoundError`` that
reaches the command line into such a line too.
"""

from __future__ import annotations

import importlib.util

from .errors import CorescError

#: Extra name -> the modules (import names) it installs; pyproject.toml lists the packages.
EXTRAS: dict[str, tuple[str, ...]] = {
    "experiments": ("mlflow", "matplotlib", "yaml"),
    "serve": ("fastapi", "uvicorn", "python_multipart"),
    "parquet": ("pyarrow",),
    "pdf": ("pypdf",),
}
#: Import name -> distribution name, where they differ.
PACKAGE_NAMES = {"yaml": "pyyaml", "python_multipart": "python-multipart"}


class MissingExtra(CorescError):
    """A verb needs an optional dependency that is not installed."""

    def __init__(self, extra: str, modules: list[str]) -> None:
        self.extra = extra
        names = ", ".join(PACKAGE_NAMES.get(m, m) for m in modules)
        super().__init__(f"this needs the optional '{extra}' dependencies (missing: {names}); "
                         f"install them with: pip install 'coresc[{extra}]'")


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def require(extra: str, modules: tuple[str, ...] | None = None) -> None:
    """Raise :class:`MissingExtra` unless every module of ``extra`` can be imported.

    ``modules``: only these of the extra's modules (a verb's mode that needs fewer, such as
    ``coresc experiment --check``, which reads configs but logs nothing to MLflow)."""
    missing = [m for m in (modules or EXTRAS[extra]) if not _importable(m)]
    if missing:
        raise MissingExtra(extra, missing)


def missing_module_error(exc: ModuleNotFoundError) -> CorescError:
    """The one-line error for an import that failed: the extra to install, when an extra
    provides the module, else how to repair the installation."""
    root = (exc.name or "").split(".")[0]
    for extra, modules in EXTRAS.items():
        if root in modules:
            return MissingExtra(extra, [root])
    return CorescError(f"Python module {root or '?'!r} is missing: coresc's installation is "
                       "incomplete; reinstall it (pip install --force-reinstall coresc)")
