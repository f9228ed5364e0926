"""Limits on what one input may cost: its size, its sentences' length, its time.

Each limit has a default, an environment variable and (on ``annotate`` and ``convert``)
a command-line option that sets the variable, so worker processes see the same limits
as the command that started them:

* ``CORESC_MAX_INPUT_MB`` (``--max-input-mb``, default 200): a larger input is refused
  before it is read; reads are bounded too, so ``/dev/zero`` or a file that grows while
  it is read cannot take all memory.
* ``CORESC_MAX_SENTENCE_WORDS`` (``--max-sentence-words``, default 300): a longer
  sentence is POS-tagged in windows of this many tokens, which keeps tagging linear in
  the input size (one unpunctuated 10 MB "sentence" would otherwise be quadratic).
* ``CORESC_PAPER_TIMEOUT`` (``--paper-timeout``, seconds, default 0: none): a paper that
  takes longer to annotate fails with a message naming its file; the run goes on.

See ``docs/robustness.md``.
"""

from __future__ import annotations

import contextlib
import contextvars
import ctypes
import math
import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path

from .errors import InputError, UsageError

MAX_INPUT_ENV = "CORESC_MAX_INPUT_MB"
MAX_WORDS_ENV = "CORESC_MAX_SENTENCE_WORDS"
TIMEOUT_ENV = "CORESC_PAPER_TIMEOUT"

DEFAULT_MAX_INPUT_MB = 200.0
DEFAULT_MAX_SENTENCE_WORDS = 300
DEFAULT_PAPER_TIMEOUT_S = 0.0
#: The longest timer SIGALRM takes on every platform (setitimer overflows beyond time_t):
#: about 31 years, as good as no limit.
_MAX_TIMER_S = 1e9


def _number(env: str, default: float, minimum: float) -> float:
    raw = os.environ.get(env, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise UsageError(f"{env}={raw!r}: expected a number") from None
    if math.isinf(value):
        raise UsageError(f"{env}={raw!r}: expected a finite number")
    if not value >= minimum:  # also refuses nan
        raise UsageError(f"{env}={raw!r}: must be at least {minimum:g}")
    return value


def max_input_bytes() -> int:
    """The largest input read, in bytes."""
    return int(_number(MAX_INPUT_ENV, DEFAULT_MAX_INPUT_MB, 0.001) * 1_000_000)


def max_sentence_words() -> int:
    """The longest run of tokens POS-tagged as one window."""
    return int(_number(MAX_WORDS_ENV, DEFAULT_MAX_SENTENCE_WORDS, 10))


#: The per-paper limit a task was given (:func:`paper_time`), over the environment's: a
#: Dask worker runs tasks in threads and does not have the command's environment.
_GIVEN_TIMEOUT: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "coresc_paper_timeout", default=None)


def paper_timeout() -> float:
    """Seconds one paper may take to annotate (0: no limit)."""
    given = _GIVEN_TIMEOUT.get()
    if given is not None:
        return given
    return _number(TIMEOUT_ENV, DEFAULT_PAPER_TIMEOUT_S, 0)


@contextlib.contextmanager
def paper_time(seconds: float | None) -> Iterator[None]:
    """:func:`paper_timeout` is ``seconds`` in the block, in this thread (``None``: as
    the environment says)."""
    token = _GIVEN_TIMEOUT.set(seconds)
    try:
        yield
    finally:
        _GIVEN_TIMEOUT.reset(token)


@contextlib.contextmanager
def limits(input_mb: float | None = None, sentence_words: int | None = None,
           timeout_s: float | None = None) -> Iterator[None]:
    """Set limits for the block, in this process and the workers it starts (``None``:
    leave as is); the environment is restored afterwards. :class:`UsageError` for a
    value out of range, naming the command-line option."""
    given = ((MAX_INPUT_ENV, "--max-input-mb", input_mb, 0.001),
             (MAX_WORDS_ENV, "--max-sentence-words", sentence_words, 10),
             (TIMEOUT_ENV, "--paper-timeout", timeout_s, 0))
    saved = {env: os.environ.get(env) for env, *_ in given}
    for _env, option, value, minimum in given:
        if value is not None and math.isinf(value):
            raise UsageError(f"{option} {value:g}: expected a finite number")
        if value is not None and not value >= minimum:
            raise UsageError(f"{option} {value:g}: must be at least {minimum:g}")
    try:
        for env, _, value, _ in given:
            if value is not None:
                os.environ[env] = str(value)
        yield
    finally:
        for env, old in saved.items():
            if old is None:
                os.environ.pop(env, None)
            else:
                os.environ[env] = old


def release_memory() -> None:
    """Hand memory freed in the C heap back to the system (glibc's ``malloc_trim``).

    A freed lxml tree leaves its memory in the C heap, where Python's objects (in their
    own arenas) cannot reuse it; without this, dropping the tree of a big XML input
    would not lower the process's resident size. Elsewhere than glibc: nothing.
    """
    try:
        libc = ctypes.CDLL(None)
        trim = libc.malloc_trim
    except (OSError, AttributeError, TypeError):  # TypeError: Windows has no CDLL(None)
        return
    trim(0)


def too_large(path: str | Path, size: int | None = None) -> InputError:
    """The error for an input over the size limit (``size`` None: not known, only more)."""
    limit = max_input_bytes()
    what = f"{_mb(size)} > {_mb(limit)}" if size is not None else f"more than {_mb(limit)}"
    return InputError(path, f"larger than the input limit ({what}; raise it with "
                            f"--max-input-mb or {MAX_INPUT_ENV})")


def _mb(n: int) -> str:
    return f"{n / 1e6:.3g} MB" if n < 10**12 else "more than 1 TB"


class PaperTimeout(InputError):
    """A paper took longer than the time limit."""


@contextlib.contextmanager
def time_limit(name: str | Path) -> Iterator[None]:
    """Raise :class:`PaperTimeout` naming ``name`` when the block runs past the limit.

    Uses SIGALRM, so it holds in a process's main thread (the command line and its worker
    processes); elsewhere (a Dask worker thread) the block runs unlimited.
    """
    seconds = paper_timeout()
    if not seconds or threading.current_thread() is not threading.main_thread() \
            or not hasattr(signal, "setitimer"):
        yield
        return

    def expired(signum, frame):
        raise PaperTimeout(name, f"took longer than the time limit ({seconds:g} s per "
                                 f"paper; raise it with --paper-timeout or {TIMEOUT_ENV})")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, min(seconds, _MAX_TIMER_S))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
