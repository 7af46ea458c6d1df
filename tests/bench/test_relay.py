"""The delay relay: bytes pass unchanged, each round trip takes at least the configured delay,
and a capped link carries N octets in about N / bandwidth, starting at once.

Delays are asserted as lower bounds (the relay may be slower on a busy machine, never faster);
the bandwidth cap is asserted both ways, with a generous upper tolerance and a hard time bound.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from bench.relay import MIN_BURST, DelayRelay, LinkConfig, TokenBucket

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
    # 200 kB at 1 MB/s: at least 0.19 s one way (the first 10 kB leave with the full bucket).
    cap = LinkConfig(0.0, bandwidth_bps=1_000_000)
    times = asyncio.run(_round_trips(cap, LinkConfig(0.0), bytes(200_000), 1))
    assert min(times) >= 0.19


async def _one_way(link: LinkConfig, size: int) -> tuple[float, float]:
    """Send ``size`` octets through a relay whose up link is ``link``; (first, last) arrival."""
    arrivals: list[float] = []
    done = asyncio.Event()
    received = 0

    async def sink(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal received
        while data := await reader.read(65536):
            arrivals.append(time.perf_counter())
            received += len(data)
            if received >= size:
                done.set()
        writer.close()

    server = await asyncio.start_server(sink, "127.0.0.1", 0)
    relay = DelayRelay(server.sockets[0].getsockname()[:2], link, LinkConfig(0.0))
    await relay.start()
    try:
        _, writer = await asyncio.open_connection(relay.host, relay.port)
        started = time.perf_counter()
        writer.write(bytes(size))
        await writer.drain()
        await asyncio.wait_for(done.wait(), 10)
        writer.close()
        return arrivals[0] - started, arrivals[-1] - started
    finally:
        await relay.close()
        server.close()
        await server.wait_closed()


def test_capped_link_carries_n_octets_in_about_n_over_b() -> None:
    # 96 KiB at 400 kB/s: 0.246 s, less the bucket's first burst (4 kB, 10 ms).
    size, rate = 96 * 1024, 400_000.0
    _, last = asyncio.run(_one_way(LinkConfig(0.0, bandwidth_bps=rate), size))
    expected = size / rate
    assert expected * 0.9 <= last <= expected * 1.5 + 0.1


def test_capped_link_delivers_the_first_octets_before_the_whole_read() -> None:
    # A 64 KiB write at 100 kB/s takes 0.66 s; its first slice must not wait for all of it.
    first, last = asyncio.run(_one_way(LinkConfig(0.0, bandwidth_bps=100_000.0), 64 * 1024))
    assert first < 0.15
    assert last >= 0.6


def test_token_bucket_spaces_a_stream_at_its_rate() -> None:
    bucket = TokenBucket(1000.0, burst=100)
    departures = [bucket.reserve(0.0, 100) for _ in range(11)]
    # The first 100 octets go with the full bucket; each further 100 waits 0.1 s more.
    assert departures[0] == 0.0
    assert departures[-1] == pytest.approx(1.0)


def test_token_bucket_refills_while_idle_but_not_beyond_its_burst() -> None:
    bucket = TokenBucket(1000.0, burst=100)
    assert bucket.reserve(0.0, 100) == 0.0
    assert bucket.reserve(10.0, 100) == 10.0  # refilled after a long pause
    assert bucket.reserve(10.0, 100) == pytest.approx(10.1)  # but holds one burst only


def test_token_bucket_burst_is_at_least_one_frame() -> None:
    assert TokenBucket(1000.0).burst == MIN_BURST
    with pytest.raises(ValueError, match="rate"):
        TokenBucket(0.0)


def test_relay_passes_binary_payload_unchanged() -> None:
    payload = bytes(range(256)) * 1000
    asyncio.run(_round_trips(LinkConfig(0.001), LinkConfig(0.001), payload, 2))


def test_link_config_rejects_negative_delay() -> None:
    with pytest.raises(ValueError, match="delay_s"):
        LinkConfig(-1.0)
