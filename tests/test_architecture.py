"""The layering rules ARCHITECTURE.md states, checked on the import graph of coresc/.

Every import counts, at module level or inside a function: a late import that runs back up
the layers is still a cycle in the design.
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "coresc"
#: The face: it may import anything; nothing below it may import it.
FACE = ("coresc", "coresc.__main__", "coresc.api", "coresc.cli", "coresc.commands")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_module(name: str) -> bool:
    rel = Path(*name.split("."))
    return (PACKAGE.parent / rel).with_suffix(".py").is_file() or \
        (PACKAGE.parent / rel / "__init__.py").is_file()


def imports_of(path: Path) -> set[str]:
    """Every coresc module ``path`` imports; ``coresc`` itself for names taken from
    ``coresc/__init__.py`` (``from .. import __version__``, ``import coresc``)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "coresc"}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "coresc":
                continue
            for alias in node.names:  # `from pkg import submodule` imports the submodule
                sub = f"{target}.{alias.name}"
                found.add(sub if is_module(sub) else target)
    return found


@lru_cache(maxsize=1)
def graph() -> dict[str, set[str]]:
    return {module_name(p): imports_of(p) for p in PACKAGE.rglob("*.py")}


def within(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def offenders(sources: tuple[str, ...], forbidden: tuple[str, ...],
              exempt: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    return sorted((m, t) for m, targets in graph().items()
                  if within(m, sources) and not within(m, exempt)
                  for t in targets if within(t, forbidden) and not within(t, sources))


def test_the_graph_is_read() -> None:
    g = graph()
    assert "coresc.api" in g["coresc"] or "coresc.api" in str(
        (PACKAGE / "__init__.py").read_text())
    assert "coresc.document" in g["coresc.readers.jats"]
    assert "coresc._version" in g["coresc.writers.tei"]


def test_no_import_runs_back_up_to_the_face() -> None:
    below = tuple(m for m in graph() if not within(m, FACE))
    bad = [(m, t) for m in below for t in graph()[m]
           if t == "coresc" or within(t, FACE[2:])]
    assert not bad, bad


def test_only_the_face_imports_batch() -> None:
    assert not offenders(tuple(graph()), ("coresc.batch",), exempt=FACE)


@pytest.mark.parametrize("sources, forbidden", [
    # readers never label, never write
    (("coresc.readers",), ("coresc.model", "coresc.features", "coresc.writers",
                           "coresc.experiments", "coresc.tracking")),
    # writers never read the user's files, never label
    (("coresc.writers",), ("coresc.readers", "coresc.model", "coresc.features",
                           "coresc.experiments")),
    # the model knows papers, not files
    (("coresc.model",), ("coresc.readers", "coresc.writers", "coresc.experiments",
                         "coresc.tracking", "coresc.report")),
    (("coresc.features",), ("coresc.model", "coresc.readers", "coresc.writers")),
    # the review application works on papers, models and writers; only the face starts it
    (("coresc.review",), ("coresc.experiments", "coresc.tracking", "coresc.report")),
    # nothing below the face depends on the review application
    (("coresc.readers", "coresc.writers", "coresc.model", "coresc.features", "coresc.serve",
      "coresc.metrics", "coresc.agreement", "coresc.consensus"), ("coresc.review",)),
    (("coresc.document", "coresc.labels", "coresc.errors", "coresc._version",
      "coresc.config", "coresc.xmlsafe"),
     ("coresc.readers", "coresc.writers", "coresc.model", "coresc.features")),
])
def test_layer_rules(sources, forbidden) -> None:
    assert not offenders(sources, forbidden)


def test_loading_a_model_never_unpickles() -> None:
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert not (imports_of(path) & {"pickle"}), path
        assert not re.search(r"^\s*(import|from) (pickle|joblib|dill|cloudpickle)\b", text,
                             re.M), path
        for line in text.splitlines():
            if "np.load(" in line:
                assert "allow_pickle=False" in line, (path, line)
        assert "torch.load(" not in text or "weights_only=True" in text, path


def test_optional_dependencies_are_never_imported_at_module_level() -> None:
    """MLflow, matplotlib, torch and Dask are extras: imported inside the functions that
    use them. coresc/model/finetune/ is torch code through and through; it is itself
    imported only when a model is fine-tuned."""
    for path in PACKAGE.rglob("*.py"):
        if "finetune" in path.parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            assert not any(n.split(".")[0] in ("mlflow", "matplotlib", "torch", "dask")
                           for n in names), (path, names)


#: The only modules that import the web stack (the extra coresc[serve]).
WEB_MODULES = {"coresc.serve.app", "coresc.review.app", "coresc.commands.serve",
               "coresc.commands.review", "coresc.serve.http"}


def test_only_the_web_applications_import_the_web_stack() -> None:
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) and
                     not node.level else [])
            if any(n.split(".")[0] in ("fastapi", "starlette", "uvicorn") for n in names):
                assert module_name(path) in WEB_MODULES, (path, names)
