"""Worker processes for ``--jobs N`` and ``Tagger.pipe(jobs=N)``: an ordered, bounded map.

:func:`ordered_map` applies a function to items in ``jobs`` worker processes and yields
the results in the order of the items, with at most ``window`` items in flight, so a
run over millions of inputs holds a few results at a time. Each worker runs an
initializer once (it loads the model there, or inherits the caller's loaded model when
the process is forked). Workers ignore Ctrl-C (the caller decides), die with the
caller, and are terminated when the caller stops early or is interrupted.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from ..errors import CorescError

T = TypeVar("T")
R = TypeVar("R")


class WorkerDied(CorescError):
    """A worker process ended without answering (killed, out of memory, crashed)."""


def start_method() -> str:
    """``fork`` where it is safe (Linux, one thread: workers share the loaded model),
    else ``spawn`` (workers load the model themselves)."""
    if sys.platform.startswith("linux") and threading.active_count() == 1:
        return "fork"
    return "spawn"


def ordered_map(func: Callable[[T], R], items: Iterable[T], jobs: int = 1,
                initializer: Callable[..., Any] | None = None, initargs: tuple = (),
                inherited: tuple = (), window: int | None = None) -> Iterator[R]:
    """``map(func, items)`` in ``jobs`` processes, results in item order.

    ``func`` and ``initializer`` must be module-level functions (picklable); with
    ``jobs <= 1`` everything runs in this process, the initializer included.
    ``inherited`` are further initializer arguments passed only to forked workers (or
    in-process), which get them without pickling: a loaded model, say.
    """
    if jobs <= 1:
        if initializer is not None:
            initializer(*initargs, *inherited)
        yield from map(func, items)
        return
    window = window or 4 * jobs
    method = start_method()
    if method == "fork":
        initargs = (*initargs, *inherited)
    ctx = multiprocessing.get_context(method)
    executor = ProcessPoolExecutor(jobs, mp_context=ctx, initializer=_worker_init,
                                   initargs=(os.getpid(), initializer, initargs))
    pending: deque = deque()
    finished = False
    try:
        for item in items:
            pending.append(executor.submit(func, item))
            if len(pending) >= window:
                yield _result(pending.popleft())
        while pending:
            yield _result(pending.popleft())
        finished = True
    finally:
        if not finished:  # interrupted, an error, or the caller stopped reading
            _terminate(executor)
        # waited for even when stopped: a manager thread left running closes its pipe
        # while the interpreter's exit writes to it (Python < 3.12: a "Bad file
        # descriptor" traceback after the run's last line)
        executor.shutdown(wait=True, cancel_futures=True)


def _result(future):
    try:
        return future.result()
    except BrokenProcessPool:
        raise WorkerDied("a worker process died (killed, or out of memory?); the papers "
                         "finished so far are kept") from None


def _terminate(executor: ProcessPoolExecutor) -> None:
    # ProcessPoolExecutor has no public way to stop running workers before Python 3.14.
    for proc in list((getattr(executor, "_processes", None) or {}).values()):
        if proc.is_alive():
            proc.terminate()
    for proc in list((getattr(executor, "_processes", None) or {}).values()):
        proc.join(timeout=5)
        if proc.is_alive():  # still writing after 5 s (it holds SIGTERM while it writes)
            proc.kill()
            proc.join(timeout=5)


def _worker_init(parent: int, initializer, initargs) -> None:
    # Ctrl-C reaches the whole process group: the parent handles it and stops us.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A forked worker inherits the parent's Python handlers; SIGTERM must just end it.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with_parent(parent)
    if initializer is not None:
        initializer(*initargs)


def _die_with_parent(parent: int) -> None:
    """Ask Linux to send SIGTERM when the parent dies (killed with SIGKILL, say)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGTERM, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before prctl took effect
            os._exit(1)
    except (OSError, AttributeError):
        pass
