"""Waiting for the signal that ends a serving process: ``until_stop_signal`` returns at SIGTERM
or SIGINT and raises ``CancelledError`` when cancelled first."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Iterator

import pytest

from mixbatch._http.runner import until_stop_signal


@pytest.fixture
def guarded() -> Iterator[list[int]]:
    """Fallback handlers, so a signal the loop failed to take does not end the test run."""
    seen: list[int] = []
    originals = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    for sig in originals:
        signal.signal(sig, lambda number, frame: seen.append(number))
    try:
        yield seen
    finally:
        for sig, original in originals.items():
            signal.signal(sig, original)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_returns_at_a_stop_signal(sig: signal.Signals, guarded: list[int]) -> None:
    async def scenario() -> None:
        waiting = asyncio.ensure_future(until_stop_signal())
        await asyncio.sleep(0.01)
        assert not waiting.done()
        signal.raise_signal(sig)
        await asyncio.wait_for(waiting, 5.0)

    asyncio.run(scenario())
    # The loop took the signal; the fallback handler never saw it.
    assert guarded == []


def test_cancellation_before_a_signal_raises_cancelled_error(guarded: list[int]) -> None:
    async def scenario() -> None:
        waiting = asyncio.ensure_future(until_stop_signal())
        await asyncio.sleep(0.01)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting

    asyncio.run(scenario())
