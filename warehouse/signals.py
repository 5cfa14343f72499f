"""Deferring Ctrl-C (SIGINT) and SIGTERM across a commit, so a signal leaves the old state or the
new one, never half of each: the signal is remembered and raised as KeyboardInterrupt afterwards."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

_DEFERRED = (signal.SIGINT, signal.SIGTERM)


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


def terminate_as_interrupt() -> None:
    """SIGTERM (kill, a scheduler's timeout) unwinds like Ctrl-C, so cleanup code runs."""

    def raise_interrupt(signum, frame) -> None:
        raise KeyboardInterrupt

    with contextlib.suppress(ValueError):
        signal.signal(signal.SIGTERM, raise_interrupt)
