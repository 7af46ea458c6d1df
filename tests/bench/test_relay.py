"""The delay relay: bytes pass unchanged, and each round trip takes at least the configured delay.

Only a lower bound is asserted: the relay may be slower on a busy machine, never faster.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from bench.relay import DelayRelay, LinkConfig

ONE_WAY = 0.02


async def _echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    while data := await reader.read(65536):
        writer.write(data)
        await writer.drain()
    writer.close()


async def _round_trips(up: LinkConfig, down: LinkConfig, payload: bytes, count: int) -> list[float]:
    echo = await asyncio.start_server(_echo, "127.0.0.1", 0)
    relay = DelayRelay(echo.sockets[0].getsockname()[:2], up, down)
    await relay.start()
    try:
        reader, writer = await asyncio.open_connection(relay.host, relay.port)
        times = []
        for _ in range(count):
            started = time.perf_counter()
            writer.write(payload)
            await writer.drain()
            got = await asyncio.wait_for(reader.readexactly(len(payload)), 10)
            times.append(time.perf_counter() - started)
            assert got == payload
        writer.close()
        return times
    finally:
        await relay.close()
        echo.close()
        await echo.wait_closed()


def test_relay_round_trip_takes_at_least_both_delays() -> None:
    link = LinkConfig(ONE_WAY)
    times = asyncio.run(_round_trips(link, link, b"ping", 3))
    assert min(times) >= 2 * ONE_WAY


def test_relay_delays_each_direction_separately() -> None:
    times = asyncio.run(_round_trips(LinkConfig(0.0), LinkConfig(ONE_WAY), b"x", 2))
    assert min(times) >= ONE_WAY


def test_relay_bandwidth_cap_serializes_a_burst() -> None:
    # 200 kB at 1 MB/s must take at least 0.2 s one way.
    cap = LinkConfig(0.0, bandwidth_bps=1_000_000)
    times = asyncio.run(_round_trips(cap, LinkConfig(0.0), bytes(200_000), 1))
    assert min(times) >= 0.2


def test_relay_passes_binary_payload_unchanged() -> None:
    payload = bytes(range(256)) * 1000
    asyncio.run(_round_trips(LinkConfig(0.001), LinkConfig(0.001), payload, 2))


def test_link_config_rejects_negative_delay() -> None:
    with pytest.raises(ValueError, match="delay_s"):
        LinkConfig(-1.0)
