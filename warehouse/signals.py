"""Deferring Ctrl-C (SIGINT) and SIGTERM across a commit, so a signal leaves the old state or the
new one, never half of each: the signal is remembered and raised as KeyboardInterrupt afterwards."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

_DEFERRED = (signal.SIGINT, signal.SIGTERM)

# A crash test names one moment of a commit here; the process stops itself there (SIGSTOP), so the
# test signals or kills it exactly at that moment, whatever the machine's load, then resumes it.
PAUSE_ENV = "TRACEWH_PAUSE_AT"
_paused: set[str] = set()


def pause_point(moment: str) -> None:
    """A named moment of a commit ("converting", "staged catalog", "retiring the old catalog",
    "catalog replaced"): a no-op unless $TRACEWH_PAUSE_AT names it; then the first time only."""
    if os.environ.get(PAUSE_ENV) == moment and moment not in _paused:
        _paused.add(moment)
        os.kill(os.getpid(), signal.SIGSTOP)


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread receives Python signal handlers: nothing to defer
        return
    caught: list[signal.Signals] = []
    previous = {s: signal.getsignal(s) for s in _DEFERRED}

    def remember(signum, frame) -> None:
        caught.append(signal.Signals(signum))

    for s in _DEFERRED:
        signal.signal(s, remember)
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    if caught:
        handler = previous[caught[0]]
        if callable(handler):
            handler(caught[0], None)  # Python's default SIGINT handler raises KeyboardInterrupt


_TICK_S = 0.02


@contextlib.contextmanager
def blocked() -> Iterator[None]:
    """SIGINT and SIGTERM blocked in this thread for the block, so the threads started inside it
    (a DuckDB connection's workers) keep them blocked for good: the signals then reach the main
    thread, or the watcher of ``interrupting``, never a worker that cannot act on them. One
    that comes meanwhile is delivered when the block ends."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _DEFERRED)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


@contextlib.contextmanager
def interrupting(stop: Callable[[], None]) -> Iterator[None]:
    """Ctrl-C / SIGTERM while DuckDB works: Python's own handler cannot run while the main thread
    waits inside DuckDB, so the signals are blocked in this thread (and in the threads DuckDB starts
    from it) and a watcher thread takes them and calls ``stop`` (``connection.interrupt``); the
    block then ends with KeyboardInterrupt, whatever DuckDB raised for the interruption.

    A thread started before the block (pyarrow's pool after a conversion, a connection opened
    earlier) does not block them, and the kernel hands it the signal instead: Python's handler
    then only notes it for the main thread, which waits inside DuckDB. The watcher hears of that
    one through the wake-up file Python writes the signal's number to (``signal.set_wakeup_fd``)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, _DEFERRED)
    done = threading.Event()
    caught: list[int] = []
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    try:
        previous_fd = signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
    except ValueError:  # not settable here (an embedding interpreter): the mask alone
        previous_fd = None

    def watch() -> None:
        while not done.is_set():
            # The tick bounds how long the block's end waits for this thread (every command
            # pays it once); a wake-up costs microseconds.
            info = signal.sigtimedwait(_DEFERRED, _TICK_S)
            if info is not None:
                caught.append(info.si_signo)
            with contextlib.suppress(BlockingIOError):
                caught.extend(n for n in os.read(wake_r, 64) if n in _DEFERRED)
            if caught:
                # Again at every tick until the block ends: a signal that came before the query
                # started, or between two statements, would otherwise stop nothing and leave the
                # next statement to run to its end.
                with contextlib.suppress(Exception):
                    stop()

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    ended = False

    def end() -> None:
        # The watcher stopped and the wake-up file read one last time, before ``caught`` is
        # judged: DuckDB may itself have run Python's handler inside the query and raised its own
        # "interrupted" error before the watcher's next read.
        nonlocal ended
        if ended:
            return
        ended = True
        done.set()
        watcher.join()
        with contextlib.suppress(BlockingIOError):
            caught.extend(n for n in os.read(wake_r, 64) if n in _DEFERRED)
        if previous_fd is not None:
            signal.set_wakeup_fd(previous_fd)
        os.close(wake_r)
        os.close(wake_w)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _DEFERRED)

    try:
        yield
    except Exception:
        end()
        if caught:
            raise KeyboardInterrupt from None
        raise
    finally:
        end()
    if caught:
        raise KeyboardInterrupt


@contextlib.contextmanager
def noticed() -> Iterator[list[int]]:
    """Record each SIGINT / SIGTERM that arrives inside the block, then let the handler in place
    act on it as before (KeyboardInterrupt). The list it yields says whether one came, even when
    DuckDB, catching the KeyboardInterrupt inside a query, turned it into an error of its own or
    dropped it."""
    caught: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield caught
        return
    previous = {s: signal.getsignal(s) for s in _DEFERRED}

    def note(signum, frame) -> None:
        caught.append(signum)
        handler = previous[signal.Signals(signum)]
        assert callable(handler)
        handler(signum, frame)

    for s in _DEFERRED:
        if callable(previous[s]):  # only Python handlers: an ignored or default signal stays so
            signal.signal(s, note)
    try:
        yield caught
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def terminate_as_interrupt() -> None:
    """SIGTERM (kill, a scheduler's timeout) unwinds like Ctrl-C, so cleanup code runs."""

    def raise_interrupt(signum, frame) -> None:
        raise KeyboardInterrupt

    with contextlib.suppress(ValueError):
        signal.signal(signal.SIGTERM, raise_interrupt)


def endless_query(con: Any, inside: Callable[[], object], give_up_s: float | None = None) -> None:
    """The crash tests' query that runs on ``con`` (a DuckDB connection) until it is stopped:
    ``inside`` is called from another thread once this thread is in the call that runs it (a test's
    signal then lands inside a query, whatever the machine's load); ``give_up_s``: that thread
    interrupts the query itself so long after, should the signal not stop it."""
    main = threading.get_ident()
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            frame = sys._current_frames().get(main)
            if frame is not None and frame.f_code.co_name == "endless_query":
                inside()
                break
            done.wait(0.001)
        if give_up_s is not None and not done.wait(give_up_s):
            con.interrupt()

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        con.execute("SELECT count(*) FROM range(1000000000000000) AS t(x) WHERE x % 7 = 3").fetchall()
    finally:
        done.set()
        watcher.join()
