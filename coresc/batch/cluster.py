"""Annotation on a Dask cluster (``coresc annotate --scheduler ADDRESS``).

Inputs go to the cluster in batches (one Dask task each). A worker plugin loads the
model once per worker (again only when a worker restarts); each task reads, annotates
and writes its papers itself, to a folder every worker can reach (a shared filesystem
or any fsspec URL), and returns only their outcomes, which this process records in the
same manifest as a local run. A paper that fails is a failed outcome, not a failed
task. When a worker dies, Dask runs its tasks again elsewhere: outputs are written
atomically and the manifest takes each input's outcome once, so nothing is duplicated
and nothing is missing. A batch that cannot be run at all (its workers keep dying) has
its inputs recorded as failed.

Workers should run one thread each (``dask worker --nthreads 1``, one process per core):
the model's CRF tagger is not thread-safe, so threads of one worker take turns.
"""

from __future__ import annotations

import hashlib
import itertools
import threading
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import distributed

from ..errors import UsageError
from ..pipeline import Source, open_model
from .work import Job, Outcome, run_source

#: Batches in flight per worker thread: enough to keep workers busy between answers.
IN_FLIGHT_PER_THREAD = 4


def plugin_name(job: Job) -> str:
    return "coresc-" + hashlib.sha1(repr(job).encode("utf-8")).hexdigest()[:12]


class ModelPlugin(distributed.WorkerPlugin):
    """Loads the job's model when a worker starts (once per worker process)."""

    def __init__(self, job: Job) -> None:
        self.job = job
        self.name = plugin_name(job)
        self.model = None
        self.lock = threading.Lock()

    def setup(self, worker=None) -> None:
        self.model = open_model(self.job.model_dir, shared=True)

    def __getstate__(self) -> dict[str, Any]:
        return {"job": self.job}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["job"])


def run_batch(sources: Sequence[Source], name: str) -> list[Outcome]:
    """A Dask task: annotate a batch of inputs with the worker's loaded model."""
    plugin = distributed.get_worker().plugins[name]
    with plugin.lock:
        return [run_source(s, plugin.job, plugin.model) for s in sources]


def batch_size(n_inputs: int, n_threads: int) -> int:
    """Files per task: about 8 tasks per worker thread, between 1 and 64 files."""
    return max(1, min(64, n_inputs // max(8 * n_threads, 1)))


def connect(scheduler: Any):
    """``(client, owned)``: a ``distributed.Client`` for an address, or the one given."""
    if isinstance(scheduler, distributed.Client):
        return scheduler, False
    try:
        return distributed.Client(str(scheduler), timeout="30s"), True
    except (OSError, TimeoutError) as exc:
        raise UsageError(f"--scheduler {scheduler}: cannot connect ({exc})") from None


class DaskRun:
    """A connection to a Dask cluster whose workers have loaded the job's model.

    Connects and has every worker load the model when made, so a wrong address or a
    model the workers cannot read is reported before any paper is sent.
    """

    def __init__(self, scheduler: Any, job: Job) -> None:
        if job.target is None:
            raise UsageError("--scheduler needs -o: the workers write the outputs")
        self.client, self.owned = connect(scheduler)
        plugin = ModelPlugin(job)
        try:
            self.client.register_plugin(plugin, name=plugin.name)
        except Exception as exc:
            self.close()
            raise UsageError(f"--scheduler {scheduler}: the workers cannot load the model "
                             f"({type(exc).__name__}: {exc})") from None
        self.name = plugin.name
        self.threads = sum(self.client.nthreads().values()) or 1

    def outcomes(self, sources: Iterable[Source], size: int | None = None,
                 total: int | None = None) -> Iterator[Outcome]:
        """Outcomes of ``sources`` as the cluster finishes them (any order). ``sources``
        may be a stream (archive members read as it goes): ``total`` then says how many."""
        if total is None:
            sources = list(sources)
            total = len(sources)
        size = size or batch_size(total, self.threads)
        stream = iter(sources)
        batches = iter(lambda: list(itertools.islice(stream, size)), [])
        futures: dict = {}
        pending = distributed.as_completed()

        def submit() -> bool:
            batch = next(batches, None)
            if batch is None:
                return False
            fut = self.client.submit(run_batch, batch, self.name, pure=False)
            futures[fut.key] = (fut, batch)
            pending.add(fut)
            return True

        try:
            for _ in range(IN_FLIGHT_PER_THREAD * self.threads):
                if not submit():
                    break
            for fut in pending:
                _, batch = futures.pop(fut.key)
                yield from _batch_outcomes(fut, batch)
                submit()
        finally:
            if futures:  # interrupted: stop what is queued or running for this run
                self.client.cancel([fut for fut, _ in futures.values()])
            self.close()

    def close(self) -> None:
        if self.owned:
            self.client.close()
            self.owned = False


def _batch_outcomes(fut, batch: list[Source]) -> list[Outcome]:
    try:
        return fut.result()
    except Exception as exc:  # KilledWorker, or a bug on one worker: record, go on
        why = f"Dask task failed ({type(exc).__name__}: {exc})"
        return [Outcome(name=s.name, status="failed", error=f"{s.name}: {why}")
                for s in batch]
