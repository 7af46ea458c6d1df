"""Waiting for the signal that ends a serving process.

``mixbatch serve`` and ``mixbatch proxy`` both bind, announce, then wait here until SIGINT or
SIGTERM, and shut down gracefully after it returns.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal

__all__ = ["until_stop_signal"]


async def until_stop_signal() -> None:
    """Return at SIGINT or SIGTERM (or raise CancelledError when cancelled first)."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # non-Unix loops
            loop.add_signal_handler(sig, stop.set)
    await stop.wait()
