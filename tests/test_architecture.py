"""The layering rules ARCHITECTURE.md states, checked on the import graph of coresc/.

Every import counts, at module level, inside a function or under ``if TYPE_CHECKING:``: a
late import that runs back up the layers is still a cycle in the design. Each check is a
function of the package's root folder, so the tests at the end can plant a violation of
every rule in a copy of the package and see the check find it (a check that cannot fail
checks nothing).
"""

from __future__ import annotations

import ast
import shutil
from functools import cache, lru_cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "coresc"
#: The face, matched exactly: the package root itself, ``__main__``, ``api``, ``cli`` and
#: ``commands`` with its verbs. It may import anything; nothing below it may import it.
FACE_MODULES = ("coresc", "coresc.__main__", "coresc.api", "coresc.cli")
FACE_PACKAGES = ("coresc.commands",)

#: The layers below the face, lowest first, named by top-level module or package. A
#: module imports only from its own package and from lower layers: never from its own
#: layer (nor above), so no import runs back up and no circle spans two of them.
LAYERS = (
    # the leaves: import nothing of coresc
    ("_version", "errors", "labels", "config", "document", "split", "tokenize"),
    # small helpers on the leaves
    ("xmlsafe", "limits", "extras", "tei", "language", "selection", "features"),
    ("citations", "pos", "metrics"),
    # per-paper counts of a labelling, the scores of weighted papers
    ("paper_counts",),
    # papers in, papers out, labels, scores with intervals
    ("readers", "writers", "model", "stats"),
    # one input read, annotated and rendered; papers scored with intervals; annotation
    # science; runs and their records
    ("pipeline", "evaluation", "agreement", "paired_runs", "reliability", "tracking"),
    ("batch", "serve", "consensus", "experiments"),
    ("review", "report"),
)


def module_name(path: Path, root: Path = PACKAGE) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_module(name: str, root: Path = PACKAGE) -> bool:
    rel = Path(*name.split("."))
    return (root.parent / rel).with_suffix(".py").is_file() or \
        (root.parent / rel / "__init__.py").is_file()


def imports_of(path: Path, root: Path = PACKAGE) -> set[str]:
    """Every coresc module ``path`` imports; ``coresc`` itself for names taken from
    ``coresc/__init__.py`` (``from .. import __version__``, ``import coresc``)."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for level, module, names in import_statements(path.read_text(encoding="utf-8")):
        if level is None:
            found |= {n for n in names if n.split(".")[0] == "coresc"}
            continue
        if level:
            base = package.split(".")[:len(package.split(".")) - level + 1]
            target = ".".join(base + ([module] if module else []))
        else:
            target = module or ""
        if target.split(".")[0] != "coresc":
            continue
        for alias in names:  # `from pkg import submodule` imports the submodule
            sub = f"{target}.{alias}"
            found.add(sub if is_module(sub, root) else target)
    return found


@cache
def import_statements(text: str) -> tuple[tuple[int | None, str | None, tuple[str, ...]], ...]:
    """``(level, module, names)`` of every import statement anywhere in ``text``; level
    None for ``import x``. Cached on the text: a copy of the package parses only what
    was planted in it."""
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            found.append((None, None, tuple(a.name for a in node.names)))
        elif isinstance(node, ast.ImportFrom):
            found.append((node.level, node.module, tuple(a.name for a in node.names)))
    return tuple(found)


def graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    """Module -> the coresc modules it imports, over every module of the package (read
    once for coresc/ itself; a copy is read afresh, as violations are planted in it)."""
    return _package_graph() if root == PACKAGE else _read_graph(root)


@lru_cache(maxsize=1)
def _package_graph() -> dict[str, set[str]]:
    return _read_graph(PACKAGE)


def _read_graph(root: Path) -> dict[str, set[str]]:
    return {module_name(p, root): imports_of(p, root) for p in sorted(root.rglob("*.py"))}


def is_face(module: str) -> bool:
    return module in FACE_MODULES or within(module, FACE_PACKAGES)


def within(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def unit_of(module: str) -> str:
    """The top-level module or package a module belongs to (``readers`` for
    ``coresc.readers.jats``)."""
    return module.split(".")[1] if "." in module else ""


# ------------------------------------------------------------------ the checks


def imports_of_the_face(root: Path = PACKAGE) -> list[tuple[str, str]]:
    """Imports from below the face into it (``coresc`` itself included)."""
    g = graph(root)
    return sorted((m, t) for m, targets in g.items() if not is_face(m)
                  for t in targets if is_face(t))


def imports_of_batch(root: Path = PACKAGE) -> list[tuple[str, str]]:
    """Imports of ``coresc.batch`` from outside it, other than the face's."""
    g = graph(root)
    return sorted((m, t) for m, targets in g.items()
                  if not is_face(m) and not within(m, ("coresc.batch",))
                  for t in targets if within(t, ("coresc.batch",)))


def offenders(sources: tuple[str, ...], forbidden: tuple[str, ...],
              root: Path = PACKAGE) -> list[tuple[str, str]]:
    """Imports from a module within ``sources`` of one within ``forbidden``."""
    return sorted((m, t) for m, targets in graph(root).items() if within(m, sources)
                  for t in targets if within(t, forbidden) and not within(t, sources))


def modules_without_a_layer(root: Path = PACKAGE) -> list[str]:
    layered = {name for layer in LAYERS for name in layer}
    return sorted(m for m in graph(root) if not is_face(m) and unit_of(m) not in layered)


def imports_running_back_up(root: Path = PACKAGE) -> list[tuple[str, str]]:
    """Imports from one unit of :data:`LAYERS` to another in its own layer or above."""
    rank = {name: i for i, layer in enumerate(LAYERS) for name in layer}
    g = graph(root)
    return sorted((m, t) for m, targets in g.items() if not is_face(m) for t in targets
                  if not is_face(t) and unit_of(t) != unit_of(m)
                  and rank.get(unit_of(t), len(LAYERS)) >= rank.get(unit_of(m), -1))


def import_circles(root: Path = PACKAGE) -> list[list[str]]:
    """The strongly connected components of the import graph with more than one module
    (Tarjan's algorithm, iterative), each sorted; a module importing itself is none."""
    g = graph(root)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    for start in g:
        if start in index:
            continue
        work = [(start, iter(sorted(g[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next((c for c in children if c in g), None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(g[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    circles.append(sorted(component))
    return sorted(circles)


#: What every verb may share: the options package, with its modules (and the commands
#: package, which holds nothing).
VERBS_SHARE = ("coresc.commands.options",)


def verbs_importing_verbs(root: Path = PACKAGE) -> list[tuple[str, str]]:
    """Imports of a verb's module by another verb or by the options package: what two
    verbs share belongs in ``coresc.commands.options``, which imports no verb."""
    return sorted((m, t) for m, targets in graph(root).items()
                  if within(m, ("coresc.commands",)) and m != "coresc.commands"
                  for t in targets if within(t, ("coresc.commands",))
                  and t != "coresc.commands" and not within(t, VERBS_SHARE) and t != m)


#: Options several verbs take: each is declared once, in coresc/commands/options/__init__.py.
SHARED_OPTIONS = ("--model", "--format", "--domain", "--grobid", "--grobid-timeout",
                  "--max-input-mb", "--host", "--port")


def option_declarations(root: Path = PACKAGE) -> dict[str, list[str]]:
    """Each shared option -> the modules whose ``add_argument`` calls declare it."""
    found: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument":
                for arg in node.args:
                    if isinstance(arg, ast.Constant) and arg.value in SHARED_OPTIONS:
                        found.setdefault(arg.value, []).append(module_name(path, root))
    return found


#: ARCHITECTURE.md's rules for single packages: (who, what they must never import).
LAYER_RULES = [
    # readers never label, never write
    (("coresc.readers",), ("coresc.model", "coresc.features", "coresc.writers",
                           "coresc.experiments", "coresc.tracking", "coresc.batch")),
    # writers never read the user's files, never label
    (("coresc.writers",), ("coresc.readers", "coresc.model", "coresc.features",
                           "coresc.experiments")),
    # the model knows papers, not files
    (("coresc.model",), ("coresc.readers", "coresc.writers", "coresc.experiments",
                         "coresc.tracking", "coresc.report", "coresc.batch")),
    (("coresc.features",), ("coresc.model", "coresc.readers", "coresc.writers")),
    (("coresc.metrics", "coresc.agreement", "coresc.consensus"), ("coresc.model",)),
    (("coresc.stats", "coresc.paper_counts"), ("coresc.model", "coresc.readers")),
    # the review application works on papers, models and writers; only the face starts it
    (("coresc.review",), ("coresc.experiments", "coresc.tracking", "coresc.report")),
    # nothing below the face depends on the review application
    (("coresc.readers", "coresc.writers", "coresc.model", "coresc.features", "coresc.serve",
      "coresc.batch", "coresc.pipeline", "coresc.metrics", "coresc.agreement",
      "coresc.consensus"), ("coresc.review",)),
    (("coresc.document", "coresc.labels", "coresc.errors", "coresc._version",
      "coresc.config", "coresc.xmlsafe"),
     ("coresc.readers", "coresc.writers", "coresc.model", "coresc.features")),
]


# ------------------------------------------------------------------ on coresc/


def test_the_graph_is_read() -> None:
    g = graph()
    assert len(g) > 100
    assert {"coresc._version", "coresc.api", "coresc.batch"} <= g["coresc"]
    assert "coresc.document" in g["coresc.readers.jats"]
    assert "coresc._version" in g["coresc.writers.tei"]
    assert "coresc.batch" in g["coresc.commands.annotate"]  # inside a function


def test_the_face_is_matched_exactly() -> None:
    assert all(map(is_face, ("coresc", "coresc.__main__", "coresc.api", "coresc.cli",
                             "coresc.commands", "coresc.commands.annotate")))
    assert not any(map(is_face, ("coresc.labels", "coresc.batch", "coresc.serve.app",
                                 "coresc.commandsx", "coresc.apis")))
    below = [m for m in graph() if not is_face(m)]
    assert len(below) > 100 and "coresc.labels" in below


def test_no_import_runs_back_up_to_the_face() -> None:
    assert not imports_of_the_face()


def test_only_the_face_imports_batch() -> None:
    assert not imports_of_batch()


@pytest.mark.parametrize("sources, forbidden", LAYER_RULES)
def test_layer_rules(sources, forbidden) -> None:
    assert not offenders(sources, forbidden)


def test_no_verb_imports_another() -> None:
    assert not verbs_importing_verbs()


def test_each_shared_option_is_declared_once() -> None:
    found = option_declarations()
    assert sorted(found) == sorted(SHARED_OPTIONS)
    assert all(where == ["coresc.commands.options"] for where in found.values()), found


def test_every_module_has_a_layer() -> None:
    assert not modules_without_a_layer(), "add it to LAYERS (and to ARCHITECTURE.md)"


def test_no_import_runs_back_up() -> None:
    assert not imports_running_back_up()


def test_no_import_circle() -> None:
    assert not import_circles()


#: The most lines a module may hold (the house standard); a longer one is split into a
#: package, or modules, whose files name its ideas.
MAX_MODULE_LINES = 450


def long_modules(root: Path = PACKAGE) -> list[tuple[str, int]]:
    """``(module, lines)`` of every module of the package longer than MAX_MODULE_LINES."""
    counts = ((module_name(p, root), len(p.read_text(encoding="utf-8").splitlines()))
              for p in sorted(root.rglob("*.py")))
    return [(m, n) for m, n in counts if n > MAX_MODULE_LINES]


def test_no_module_passes_450_lines() -> None:
    assert not long_modules(), "split it into a package whose files name its ideas"


# ------------------------------------------------------------------ planted violations


@pytest.fixture
def copy(tmp_path) -> Path:
    """The package's Python files in a fresh folder (no data, no models)."""
    root = tmp_path / "coresc"
    for path in PACKAGE.rglob("*.py"):
        dest = root / path.relative_to(PACKAGE)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, dest)
    return root


def plant(root: Path, module: str, code: str) -> None:
    """Append ``code`` to ``module``'s file (a new module if there is none)."""
    rel = Path(*module.split(".")[1:])
    path = root / rel / "__init__.py" if (root / rel).is_dir() else root / rel.with_suffix(
        ".py")
    path.parent.mkdir(parents=True, exist_ok=True)
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    path.write_text(f"{old}\n{code}\n", encoding="utf-8")


def test_a_planted_import_of_the_face_is_found(copy) -> None:
    plant(copy, "coresc.labels", "from coresc import api")
    plant(copy, "coresc.tokenize", "def f():\n    from . import __version__")
    plant(copy, "coresc.writers.tsv", "import coresc.commands.convert")
    found = imports_of_the_face(copy)
    assert {("coresc.labels", "coresc.api"), ("coresc.tokenize", "coresc"),
            ("coresc.writers.tsv", "coresc.commands.convert")} <= set(found)


def test_a_planted_import_of_batch_is_found(copy) -> None:
    plant(copy, "coresc.labels", "import coresc.batch")
    plant(copy, "coresc.serve.http", "def f():\n    from ..batch import run")
    assert {("coresc.labels", "coresc.batch"),
            ("coresc.serve.http", "coresc.batch.run")} <= set(imports_of_batch(copy))


@pytest.mark.parametrize("sources, forbidden", LAYER_RULES)
def test_a_planted_break_of_each_layer_rule_is_found(copy, sources, forbidden) -> None:
    module = next(m for m in graph() if within(m, sources))
    plant(copy, module, f"def f():\n    import {forbidden[-1]}")
    assert (module, forbidden[-1]) in offenders(sources, forbidden, copy)


def test_a_reader_importing_the_model_is_found(copy) -> None:
    plant(copy, "coresc.readers.jats", "def f():\n    from ..model import CoreSCClassifier")
    assert ("coresc.readers.jats", "coresc.model") in offenders(
        ("coresc.readers",), ("coresc.model",), copy)


def test_a_planted_import_of_a_verb_by_a_verb_is_found(copy) -> None:
    plant(copy, "coresc.commands.annotate", "def f():\n    from .convert import read_papers")
    plant(copy, "coresc.commands.options", "from .. import serve")
    plant(copy, "coresc.commands.options.lists", "def f():\n    from ..select import run")
    assert verbs_importing_verbs(copy) == [
        ("coresc.commands.annotate", "coresc.commands.convert"),
        ("coresc.commands.options", "coresc.commands.serve"),
        ("coresc.commands.options.lists", "coresc.commands.select")]


def test_a_planted_second_declaration_is_found(copy) -> None:
    plant(copy, "coresc.commands.select", "def f(parser):\n"
                                          "    parser.add_argument('--format', default='x')")
    assert option_declarations(copy)["--format"] == ["coresc.commands.options",
                                                     "coresc.commands.select"]


def test_a_planted_module_without_a_layer_is_found(copy) -> None:
    plant(copy, "coresc.newidea", "X = 1")
    plant(copy, "coresc.newpackage.part", "Y = 1")
    assert modules_without_a_layer(copy) == ["coresc.newidea", "coresc.newpackage.part"]


def test_a_planted_import_running_back_up_is_found(copy) -> None:
    plant(copy, "coresc.tokenize", "def f():\n    import coresc.readers")
    plant(copy, "coresc.readers.text", "from ..writers import tsv")  # the same layer
    found = set(imports_running_back_up(copy))
    assert {("coresc.tokenize", "coresc.readers"),
            ("coresc.readers.text", "coresc.writers.tsv")} <= found


def test_a_planted_circle_is_found(copy) -> None:
    before = import_circles(copy)
    plant(copy, "coresc.labels", "from . import errors")
    plant(copy, "coresc.errors", "def f():\n    from . import labels")
    plant(copy, "coresc.readers.jats", "def g():\n    from .elsevier import read_elsevier")
    plant(copy, "coresc.readers.elsevier", "def g():\n    from . import text")
    plant(copy, "coresc.readers.text", "def g():\n    from .jats import read_jats")
    after = import_circles(copy)
    assert ["coresc.errors", "coresc.labels"] in after
    assert any({"coresc.readers.elsevier", "coresc.readers.jats",
                "coresc.readers.text"} <= set(c) for c in after)
    assert len(after) == len(before) + 2


# ------------------------------------------------------------------ other rules


#: Modules that turn bytes into arbitrary objects (run code) on loading.
UNPICKLERS = {"pickle", "_pickle", "cPickle", "joblib", "dill", "cloudpickle", "shelve"}


def unpickling(root: Path = PACKAGE) -> list[tuple[str, str]]:
    """(module, what) for every way to unpickle in the package: an import of an
    unpickler anywhere (``import os, pickle`` and imports inside functions included),
    ``np.load`` without ``allow_pickle=False``, ``torch.load`` without
    ``weights_only=True``."""
    found = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for level, module, names in import_statements(text):
            top = {n.split(".")[0] for n in names} if level is None else \
                {(module or "").split(".")[0]} if not level else set()
            found += [(module_name(path, root), f"imports {n}") for n in top & UNPICKLERS]
        for line in text.splitlines():
            if "np.load(" in line and "allow_pickle=False" not in line:
                found.append((module_name(path, root), line.strip()))
        if "torch.load(" in text and "weights_only=True" not in text:
            found.append((module_name(path, root), "torch.load"))
    return found


def test_loading_a_model_never_unpickles() -> None:
    assert unpickling() == []


def test_a_planted_unpickler_is_found(copy) -> None:
    plant(copy, "coresc.labels", "import os, pickle")
    plant(copy, "coresc.errors", "def f():\n    from joblib import load")
    plant(copy, "coresc.split", "def g(np):\n    return np.load('x.npz')")
    assert unpickling(copy) == [("coresc.errors", "imports joblib"),
                                ("coresc.labels", "imports pickle"),
                                ("coresc.split", "return np.load('x.npz')")]


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


def test_a_planted_long_module_is_found(copy) -> None:
    before = long_modules(copy)
    plant(copy, "coresc.labels", "X = 1\n" * MAX_MODULE_LINES)
    (copy / "model" / "newidea.py").write_text("Y = 1\n" * MAX_MODULE_LINES)  # allowed
    after = long_modules(copy)
    assert [m for m, _ in after if (m, _) not in before] == ["coresc.labels"]

