"""MLflow set-up: where runs go (``mlflow.yaml``), a fail-fast server check, the pyfunc model.

``mlflow.yaml`` (current directory first, then the project root) names the tracking URI,
the MLflow experiment and the artefact location. Relative paths in it are relative to the
file, so the default ``sqlite:///mlflow.db`` + ``./mlartifacts`` is a local store in the
project's working directory that needs no server. ``MLFLOW_TRACKING_URI`` overrides the
URI. An ``http(s)`` server is probed with a short timeout before MLflow's own retries
(which take minutes) get a chance: an unreachable server is one clear error naming the URI,
unless the caller asked for the local fallback.

The trained coresc model is logged as an MLflow model with a ``python_function`` flavour
whose loader is this module (:func:`_load_pyfunc`): MLflow stores the coresc model
directory as the model's data, and loading it goes through ``CoreSCClassifier.load``
(JSON / crfsuite files, never a pickle).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._version import __version__
from .config import PROJECT_ROOT
from .errors import CorescError, UsageError

CONFIG_NAME = "mlflow.yaml"
DEFAULT_URI = "sqlite:///mlflow.db"
DEFAULT_EXPERIMENT = "coresc"
DEFAULT_ARTIFACTS = "./mlartifacts"
#: Seconds to wait for a tracking server before giving up (MLflow would retry for minutes).
PROBE_TIMEOUT = 3.0


@dataclass(frozen=True)
class TrackingSettings:
    """Where MLflow runs are recorded.

    ``tracking_uri``: MLflow URI (``sqlite:///abs/path.db``, ``http://host:port``, ...);
    ``experiment_name``: the MLflow experiment all coresc runs go to;
    ``artifact_location``: where a newly created experiment stores artefacts (``None``: the
    server decides); ``source``: where the settings came from (for messages).
    """

    tracking_uri: str
    experiment_name: str = DEFAULT_EXPERIMENT
    artifact_location: str | None = None
    source: str = "defaults"


def find_config(start: Path | None = None) -> Path | None:
    """``mlflow.yaml`` in the current directory, else in the project root, else ``None``."""
    for base in (start or Path.cwd(), PROJECT_ROOT):
        candidate = base / CONFIG_NAME
        if candidate.is_file():
            return candidate
    return None


def _absolute_sqlite(uri: str, base: Path) -> str:
    # sqlite:///rel.db is relative to the process's cwd in MLflow; pin it to the config's dir.
    prefix = "sqlite:///"
    if uri.startswith(prefix) and not uri.startswith(prefix + "/"):
        return prefix + str((base / uri[len(prefix):]).resolve())
    return uri


def _artifact_uri(location: str, base: Path) -> str:
    if "://" in location or location.startswith("/"):
        return location
    return (base / location).resolve().as_uri()


def load_settings(path: str | Path | None = None, env: dict | None = None) -> TrackingSettings:
    """Read ``mlflow.yaml`` (or defaults), then apply ``MLFLOW_TRACKING_URI``."""
    import yaml

    env = os.environ if env is None else env
    cfg_path = Path(path) if path else find_config()
    data: dict[str, Any] = {}
    base = Path.cwd()
    source = "defaults"
    if cfg_path is not None:
        try:
            data = yaml.safe_load(cfg_path.read_text(encoding="utf-8")) or {}
        except (OSError, yaml.YAMLError) as exc:
            raise UsageError(f"{cfg_path}: cannot read MLflow settings: "
                             f"{str(exc).splitlines()[0]}") from None
        if not isinstance(data, dict):
            raise UsageError(f"{cfg_path}: expected a mapping of MLflow settings")
        unknown = set(data) - {"tracking_uri", "experiment_name", "artifact_location"}
        if unknown:
            raise UsageError(f"{cfg_path}: unknown MLflow setting(s): {', '.join(sorted(unknown))}")
        base = cfg_path.resolve().parent
        source = str(cfg_path)
    uri = str(data.get("tracking_uri") or DEFAULT_URI)
    if env.get("MLFLOW_TRACKING_URI"):
        uri = env["MLFLOW_TRACKING_URI"]
        source = "MLFLOW_TRACKING_URI"
    artifacts = data.get("artifact_location", DEFAULT_ARTIFACTS)
    return TrackingSettings(
        tracking_uri=_absolute_sqlite(uri, base),
        experiment_name=str(data.get("experiment_name") or DEFAULT_EXPERIMENT),
        artifact_location=_artifact_uri(str(artifacts), base) if artifacts else None,
        source=source,
    )


def local_settings(settings: TrackingSettings) -> TrackingSettings:
    """The embedded default store (used by ``--local-fallback``)."""
    base = find_config().parent if find_config() else Path.cwd()
    return TrackingSettings(
        tracking_uri=_absolute_sqlite(DEFAULT_URI, base),
        experiment_name=settings.experiment_name,
        artifact_location=_artifact_uri(DEFAULT_ARTIFACTS, base),
        source="local fallback",
    )


def check_reachable(uri: str, timeout: float = PROBE_TIMEOUT) -> None:
    """Raise :class:`CorescError` naming ``uri`` when an HTTP tracking server does not answer.

    Any HTTP answer counts as reachable (authentication is MLflow's business); only a
    refused connection, a DNS failure or a timeout fails. Non-HTTP URIs pass.
    """
    if not uri.startswith(("http://", "https://")):
        return
    url = uri.rstrip("/") + "/health"
    try:
        with urllib.request.urlopen(url, timeout=timeout):
            return
    except urllib.error.HTTPError:
        return  # the server answered
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise CorescError(
            f"MLflow tracking server {uri} is unreachable ({reason}); start it, fix "
            f"MLFLOW_TRACKING_URI / mlflow.yaml, or pass --local-fallback"
        ) from None


def check_store_exists(uri: str) -> None:
    """Raise :class:`UsageError` when ``uri`` names a local store (sqlite file, or a
    ``file:`` / plain folder) that does not exist; MLflow would create an empty one."""
    path = None
    if uri.startswith("sqlite:///"):
        path = Path(uri[len("sqlite:///"):])  # relative to the working directory, as MLflow
    elif uri.startswith("file:"):
        from urllib.parse import urlparse
        from urllib.request import url2pathname

        path = Path(url2pathname(urlparse(uri).path))
    elif "://" not in uri:
        path = Path(uri)
    if path is not None and not path.exists():
        raise UsageError(f"no MLflow store at {path}: run `coresc experiment` first, or point "
                         "--tracking-uri / MLFLOW_TRACKING_URI / mlflow.yaml at your store")


def connect(settings: TrackingSettings | None = None, local_fallback: bool = False):
    """Check the tracking store, point MLflow at it, and return ``(client, experiment_id)``.

    With ``local_fallback`` an unreachable server is reported on stderr and the local
    sqlite store is used instead.
    """
    settings = settings or load_settings()
    try:
        check_reachable(settings.tracking_uri)
    except CorescError as exc:
        if not local_fallback:
            raise
        print(f"[coresc] {exc}; using the local store instead", file=sys.stderr)
        settings = local_settings(settings)
    # Keep MLflow's own retry loop short once we know the server is there.
    os.environ.setdefault("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "2")
    os.environ.setdefault("MLFLOW_HTTP_REQUEST_TIMEOUT", "60")
    import mlflow
    from mlflow.tracking import MlflowClient

    mlflow.set_tracking_uri(settings.tracking_uri)
    client = MlflowClient(tracking_uri=settings.tracking_uri)
    exp = client.get_experiment_by_name(settings.experiment_name)
    if exp is None:
        exp_id = client.create_experiment(settings.experiment_name,
                                          artifact_location=settings.artifact_location)
    else:
        exp_id = exp.experiment_id
    return client, exp_id, settings


def code_version() -> str:
    """``git describe`` of the source checkout, else the package version."""
    try:
        out = subprocess.run(
            ["git", "describe", "--always", "--dirty", "--tags"], cwd=PROJECT_ROOT,
            capture_output=True, text=True, timeout=5, check=True,
        )
        if out.stdout.strip():
            return f"{__version__}+{out.stdout.strip()}"
    except (OSError, subprocess.SubprocessError):
        pass
    return __version__


def source_hash() -> str:
    """Short SHA-256 of the package's Python sources: tells apart runs of uncommitted code."""
    import hashlib

    digest = hashlib.sha256()
    package = Path(__file__).resolve().parent
    for path in sorted(package.rglob("*.py")):
        digest.update(str(path.relative_to(package)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


# --------------------------------------------------------------------------- pyfunc model

#: Columns a pyfunc input may carry (the JSONL writer's record fields); only ``text`` is needed.
INPUT_COLUMNS = ("paper", "sid", "section", "section_type", "zone", "text")


def save_pyfunc_model(model_dir: str | Path, path: str | Path) -> None:
    """Write an MLflow model at ``path`` that serves the coresc model in ``model_dir``.

    The MLflow model's data is a copy of ``model_dir``; its loader is this module, so no
    Python object is pickled. Requirements are given explicitly (inferring them would
    load the model in a subprocess, which is slow).
    """
    import mlflow.pyfunc

    mlflow.pyfunc.save_model(
        path=str(path),
        loader_module="coresc.tracking",
        data_path=str(model_dir),
        pip_requirements=[f"coresc=={__version__}", "mlflow", "pandas"],
    )


def _load_pyfunc(data_path: str) -> CorescPyfunc:
    """MLflow's entry point (``loader_module``): load the coresc model directory."""
    from .model import CoreSCClassifier

    # MLflow passes the copy of the model directory it keeps under the model's data/.
    return CorescPyfunc(CoreSCClassifier.load(Path(data_path)))


class CorescPyfunc:
    """``predict(df)`` for MLflow: sentence records in, one row per sentence out.

    Input: a DataFrame (or list of dicts, or list of strings) with a ``text`` column and
    optionally ``paper``, ``sid``, ``section``, ``section_type``, ``zone``, i.e. the
    records of ``coresc annotate --to jsonl``. Consecutive rows with the same ``paper``
    form one paper (the CRF labels a paper as a sequence). Output: a DataFrame with
    ``paper, sid, label, score, pred`` (``pred`` = ranked list of ``{label, score}``).
    """

    def __init__(self, model) -> None:
        self.model = model

    def predict(self, model_input, params=None):
        import pandas as pd

        df = _as_frame(model_input)
        papers = records_to_papers(df.to_dict(orient="records"))
        preds = self.model.predict(papers)
        rows = []
        for paper, paper_preds in zip(papers, preds, strict=True):
            for sent, ranked in zip(paper.sentences(), paper_preds, strict=True):
                rows.append({
                    "paper": paper.id, "sid": sent.sid,
                    "label": ranked[0].label if ranked else None,
                    "score": float(ranked[0].score) if ranked else None,
                    "pred": [{"label": p.label, "score": round(float(p.score), 4)}
                             for p in ranked],
                })
        return pd.DataFrame(rows, columns=["paper", "sid", "label", "score", "pred"])


def _as_frame(model_input):
    import pandas as pd

    if isinstance(model_input, pd.DataFrame):
        df = model_input
    elif isinstance(model_input, str):
        df = pd.DataFrame({"text": [model_input]})
    elif isinstance(model_input, list) and all(isinstance(x, str) for x in model_input):
        df = pd.DataFrame({"text": model_input})
    else:
        df = pd.DataFrame(model_input)
    if "text" not in df.columns:
        got = ", ".join(map(str, df.columns))
        raise CorescError(f"model input needs a 'text' column (got: {got})")
    return df


def records_to_papers(records: list[dict]) -> list:
    """Group sentence records (JSONL-writer fields) into :class:`~coresc.document.Paper`.

    The JSONL reader's grouping, for records that come as model input rather than a file;
    records without ``paper`` form one paper called ``input``.
    """
    from .readers.jsonl import records_to_papers as group

    return list(group(enumerate(records, start=1), "model input", source_format="records",
                      default_paper="input"))


def jsonl_to_request(jsonl_path: str | Path) -> str:
    """A JSONL file of sentence records as an ``mlflow models predict`` JSON request."""
    records = [json.loads(line) for line in Path(jsonl_path).read_text(encoding="utf-8")
               .splitlines() if line.strip()]
    keep = [{k: r[k] for k in INPUT_COLUMNS if k in r} for r in records]
    return json.dumps({"dataframe_records": keep})
