"""A bounded pool of worker processes, driven from the server's event loop.

Each worker is a process with a pipe; a request goes to an idle worker and its answer is
awaited without a thread (the pipe is watched by the event loop). The pool admits at
most ``size + queue`` requests: the next one is refused at once (:class:`Busy`, the
server's 503), so no connection stalls. A worker that dies, or overruns the time limit
(and is killed), fails its own request only and is replaced.

Workers come from a fork server (a fresh interpreter started once, with coresc imported):
forked from it, not from the server, they hold none of the server's sockets, and each
loads the model itself, once.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import time
from dataclasses import dataclass, field
from typing import Any

from ..errors import CorescError
from .work import Answer, Failure, Request, worker_main

#: Seconds a refused client is told to wait before trying again.
RETRY_AFTER = 2


class Busy(Failure):
    def __init__(self, retry_after: int = RETRY_AFTER) -> None:
        super().__init__(503, "the server is busy (every worker is annotating and the "
                              "queue is full); try again shortly", retry_after)


@dataclass
class Worker:
    process: Any
    conn: Any
    busy_since: float | None = None
    ready: bool = False


@dataclass
class Counters:
    answered: int = 0
    failed: int = 0
    refused: int = 0
    timed_out: int = 0
    workers_lost: int = 0
    started: float = field(default_factory=time.time)


class WorkerPool:
    """``size`` workers, at most ``queue`` requests waiting for one, ``timeout`` seconds
    per request (waiting included)."""

    def __init__(self, size: int, queue: int, timeout: float, model_dir: str | None,
                 grobid: Any = None) -> None:
        self.size, self.queue, self.timeout = size, queue, timeout
        self.model_dir, self.grobid = model_dir, grobid
        self.ctx = multiprocessing.get_context("forkserver")
        self.ctx.set_forkserver_preload(["coresc.serve.work"])
        self.workers: list[Worker] = []
        self.idle: asyncio.Queue[Worker] | None = None
        self.pending = 0
        self.counters = Counters()
        self.domains: list[str] = []  # what ?domain= accepts, as the workers' model says

    # ------------------------------------------------------------ life cycle

    def start(self) -> None:
        """Start every worker and wait until each has loaded the model."""
        self.idle = asyncio.Queue()
        self.workers = [self._spawn() for _ in range(self.size)]
        for worker in self.workers:
            self._await_ready(worker)
            self.idle.put_nowait(worker)

    def close(self) -> None:
        for worker in self.workers:
            self._stop(worker)
        self.workers = []

    def _spawn(self) -> Worker:
        parent, child = self.ctx.Pipe()
        process = self.ctx.Process(target=worker_main, args=(child, self.model_dir, self.grobid),
                                   daemon=True, name="coresc-serve-worker")
        process.start()
        child.close()
        return Worker(process, parent)

    def _await_ready(self, worker: Worker) -> None:
        try:
            message = worker.conn.recv()
        except EOFError:
            message = ("failed", "a worker process ended while loading the model")
        if message[0] != "ready":
            self.close()
            raise CorescError(message[1])
        self.domains = list(message[2])
        worker.ready = True

    def _stop(self, worker: Worker) -> None:
        with contextlib.suppress(OSError):
            worker.conn.close()
        if worker.process.is_alive():
            worker.process.kill()
        worker.process.join(5)

    def _replace(self, worker: Worker) -> None:
        """Kill ``worker`` and start another; it joins the idle ones once it is ready."""
        loop = asyncio.get_running_loop()
        self._stop(worker)
        new = self._spawn()
        self.workers = [new if w is worker else w for w in self.workers]
        fd = new.conn.fileno()

        def ready() -> None:
            loop.remove_reader(fd)
            try:
                message = new.conn.recv()
            except (EOFError, OSError):
                message = ("failed", "ended while loading the model")
            if message[0] == "ready":
                new.ready = True
                self.idle.put_nowait(new)
            else:  # cannot happen with a model that loaded once; try again shortly
                loop.call_later(1.0, self._replace, new)

        loop.add_reader(fd, ready)

    # ------------------------------------------------------------ requests

    async def answer(self, request: Request) -> Answer:
        """The worker's answer with its warnings; raises :class:`Failure` (:class:`Busy`
        when full)."""
        if self.pending >= self.size + self.queue:
            self.counters.refused += 1
            raise Busy()
        self.pending += 1
        deadline = time.monotonic() + self.timeout
        try:
            try:
                worker = await asyncio.wait_for(self.idle.get(), self.timeout)
            except asyncio.TimeoutError:
                raise self._too_slow() from None
            message = await self._run(worker, request, deadline)
        except Failure:
            self.counters.failed += 1
            raise
        finally:
            self.pending -= 1
        if message[0] != "ok":
            self.counters.failed += 1
            raise Failure(*message[1:])
        self.counters.answered += 1
        return Answer(message[1], tuple(message[2]))

    async def _run(self, worker: Worker, request: Request, deadline: float) -> tuple:
        loop = asyncio.get_running_loop()
        answer: asyncio.Future = loop.create_future()
        fd = worker.conn.fileno()

        def readable() -> None:
            loop.remove_reader(fd)
            if answer.done():
                return
            try:
                answer.set_result(worker.conn.recv())
            except (EOFError, OSError):
                answer.set_result(None)

        worker.busy_since = time.monotonic()
        try:
            worker.conn.send(request)
            loop.add_reader(fd, readable)
            message = await asyncio.wait_for(answer, max(deadline - time.monotonic(), 0.001))
        except asyncio.TimeoutError:
            loop.remove_reader(fd)
            self.counters.timed_out += 1
            self._replace(worker)
            raise self._too_slow() from None
        except BaseException:  # the client went away, or the pipe broke: start afresh
            loop.remove_reader(fd)
            self._replace(worker)
            raise
        finally:
            worker.busy_since = None
        if message is None:
            self.counters.workers_lost += 1
            self._replace(worker)
            code = worker.process.exitcode
            raise Failure(500, f"{request.name}: the worker process annotating this paper "
                               f"ended unexpectedly (exit code {code}); the server goes on")
        self.idle.put_nowait(worker)
        return message

    def _too_slow(self) -> Failure:
        return Failure(504, f"annotation took longer than the server's limit of "
                            f"{self.timeout:g}s per request")

    # ------------------------------------------------------------ state

    def stats(self) -> dict[str, Any]:
        now = time.monotonic()
        busy = [w for w in self.workers if w.busy_since is not None]
        return {
            "workers": self.size,
            "ready": sum(w.ready and w.process.is_alive() for w in self.workers),
            "busy": len(busy),
            "queued": max(self.pending - len(busy), 0),
            "queue_limit": self.queue,
            "timeout_s": self.timeout,
            "worker_pids": [w.process.pid for w in self.workers],
            "busy_pids": [w.process.pid for w in busy],
            "longest_busy_s": round(max((now - w.busy_since for w in busy), default=0.0), 3),
            "answered": self.counters.answered,
            "failed": self.counters.failed,
            "refused_busy": self.counters.refused,
            "timed_out": self.counters.timed_out,
            "workers_lost": self.counters.workers_lost,
            "uptime_s": round(time.time() - self.counters.started, 1),
        }
