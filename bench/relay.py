"""A TCP relay that delays each direction and can cap its bandwidth: netem in user space.

The machine has no ``tc netem``, so the network is simulated by a relay between client and
server. Each accepted connection gets its own upstream connection and two one-way *links*. A
link reads what its sender wrote, cuts it into slices of at most ``TokenBucket.burst`` octets,
and delivers each slice no earlier than

    departure = the moment the link's token bucket holds len(slice) tokens     (serialization)
    delivery  = departure + one_way_delay                                       (propagation)

The bucket fills at the link's bandwidth (octets/s) up to ``burst`` octets and each slice takes
its length in tokens, so N octets take about N / bandwidth however they are written, the
first octets arrive after one slice's worth rather than after a whole 64 KiB read, and an idle
link may send one burst at once, as a bottleneck wire with a small queue would. An uncapped
link adds pure propagation delay. Timers fire no earlier than asked (asyncio rounds epoll
timeouts up to the millisecond), so the real delay is at least the configured one and usually a
little more: benchmarks therefore state the RTT they *measured* through the relay, never the
configured figure. The relay terminates TCP on both sides, so the kernel's own windows and ACKs
run over loopback undelayed; the relay buffers up to ``QUEUE_CHUNKS`` slices per direction,
which plays the role of a large TCP window.

Run alone: ``python -m bench.relay --upstream 127.0.0.1:8080 --delay-ms 1 --bandwidth-mbit 1``
prints ``relay listening on 127.0.0.1:PORT`` and relays until SIGTERM/SIGINT.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from dataclasses import dataclass

__all__ = [
    "ANNOUNCEMENT",
    "MIN_BURST",
    "QUEUE_CHUNKS",
    "READ_CHUNK",
    "DelayRelay",
    "LinkConfig",
    "TokenBucket",
    "main",
]

#: Bytes read per ``read`` call; a capped link cuts each read into bucket-sized slices.
READ_CHUNK = 64 * 1024
#: Slices a link may hold in flight before it stops reading from its sender (backpressure).
QUEUE_CHUNKS = 512
#: The smallest bucket: one Ethernet frame's payload, so a slow link still moves whole packets.
MIN_BURST = 1500
#: A bucket holds at most this many seconds of the link's rate: 10 ms, the granularity the
#: relay's timers can keep, so the cap holds at any time scale a benchmark can measure.
BURST_SECONDS = 0.01
#: The line a relay process prints once it listens (parsed by ``bench.processes``).
ANNOUNCEMENT = "relay listening on {host}:{port}"


@dataclass(frozen=True, slots=True)
class LinkConfig:
    """One direction of the simulated network: propagation delay and optional bandwidth cap."""

    delay_s: float = 0.0
    bandwidth_bps: float | None = None  # bytes per second; None = unlimited

    def __post_init__(self) -> None:
        if self.delay_s < 0:
            raise ValueError(f"LinkConfig.delay_s must be >= 0, got {self.delay_s!r}")
        if self.bandwidth_bps is not None and self.bandwidth_bps <= 0:
            raise ValueError(
                f"LinkConfig.bandwidth_bps must be positive or None, got {self.bandwidth_bps!r}"
            )


class TokenBucket:
    """Tokens (octets) fill at ``rate`` per second up to ``burst``; a send takes its length.

    ``reserve`` is given the current time and a slice's length and answers when that slice may
    leave: at once while the bucket holds enough, otherwise when the rate has refilled the
    deficit. The bucket may go into debt (a later slice waits for an earlier one), so the
    departure times of a stream of slices grow by exactly their total length / rate after the
    first burst. It keeps no clock of its own, which makes it testable without sleeping.
    """

    def __init__(self, rate: float, burst: int | None = None) -> None:
        if not rate > 0:
            raise ValueError(f"TokenBucket rate must be positive octets/s, got {rate!r}")
        self.rate = rate
        self.burst = burst if burst is not None else max(MIN_BURST, int(rate * BURST_SECONDS))
        if self.burst < 1:
            raise ValueError(f"TokenBucket burst must be at least 1 octet, got {self.burst!r}")
        self._tokens = float(self.burst)
        self._stamp: float | None = None

    def reserve(self, now: float, size: int) -> float:
        """Take ``size`` tokens; return the time at which the slice may depart."""
        if self._stamp is not None:
            self._tokens = min(self.burst, self._tokens + (now - self._stamp) * self.rate)
        self._stamp = now
        self._tokens -= size
        if self._tokens >= 0:
            return now
        # In debt: the slice leaves when the refill has paid the deficit back.
        return now - self._tokens / self.rate


async def _link(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, config: LinkConfig
) -> None:
    """Move bytes from ``reader`` to ``writer`` with the link's delay and serialization."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[float, bytes] | None] = asyncio.Queue(QUEUE_CHUNKS)

    bucket = None if config.bandwidth_bps is None else TokenBucket(config.bandwidth_bps)

    async def receive() -> None:
        try:
            while True:
                data = await reader.read(READ_CHUNK)
                if not data:
                    break
                if bucket is None:
                    await queue.put((loop.time() + config.delay_s, data))
                    continue
                view = memoryview(data)
                for start in range(0, len(data), bucket.burst):
                    piece = bytes(view[start : start + bucket.burst])
                    departure = bucket.reserve(loop.time(), len(piece))
                    await queue.put((departure + config.delay_s, piece))
        except (ConnectionError, OSError):
            pass
        finally:
            await queue.put(None)

    async def deliver() -> None:
        try:
            while (item := await queue.get()) is not None:
                due, data = item
                wait = due - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                writer.write(data)
                await writer.drain()
            if writer.can_write_eof():
                writer.write_eof()
        except (ConnectionError, OSError):
            pass

    receiving = asyncio.ensure_future(receive())
    try:
        await deliver()
    finally:
        receiving.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await receiving


class DelayRelay:
    """Listens on ``host:port`` and relays every connection to ``upstream`` through two links."""

    def __init__(
        self,
        upstream: tuple[str, int],
        up: LinkConfig,
        down: LinkConfig,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self.upstream = upstream
        self.up = up
        self.down = down
        self.host = host
        self.port = port
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._accept, self.host, self.port)
        self.host, self.port = self._server.sockets[0].getsockname()[:2]

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=2.0)

    async def _accept(self, c_reader: asyncio.StreamReader, c_writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        u_writer: asyncio.StreamWriter | None = None
        try:
            u_reader, u_writer = await asyncio.open_connection(*self.upstream)
            await asyncio.gather(
                _link(c_reader, u_writer, self.up), _link(u_reader, c_writer, self.down)
            )
        except (ConnectionError, OSError):
            pass
        finally:
            self._tasks.discard(task)
            for w in (c_writer, u_writer):
                if w is not None:
                    w.close()
                    with contextlib.suppress(ConnectionError, OSError, asyncio.CancelledError):
                        await w.wait_closed()


async def _serve(args: argparse.Namespace) -> None:
    host, _, port = args.upstream.rpartition(":")
    bandwidth = args.bandwidth_mbit * 1e6 / 8 if args.bandwidth_mbit else None
    link = LinkConfig(args.delay_ms / 1000.0, bandwidth)
    relay = DelayRelay((host, int(port)), link, link, port=args.port)
    await relay.start()
    print(ANNOUNCEMENT.format(host=relay.host, port=relay.port), flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        # Bounded even if nobody signals: a forgotten relay exits on its own.
        await asyncio.wait_for(stop.wait(), timeout=args.max_seconds)
    except TimeoutError:
        print("relay: --max-seconds reached, exiting", file=sys.stderr)
    finally:
        await relay.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.relay", description=__doc__)
    parser.add_argument("--upstream", required=True, help="HOST:PORT to relay to")
    parser.add_argument("--delay-ms", type=float, default=1.0, help="one-way delay per direction")
    parser.add_argument("--bandwidth-mbit", type=float, default=0.0, help="cap; 0 = none")
    parser.add_argument("--port", type=int, default=0, help="listening port (0 = ephemeral)")
    parser.add_argument("--max-seconds", type=float, default=3600.0, help="exit after this long")
    asyncio.run(_serve(parser.parse_args(argv)))


if __name__ == "__main__":
    main()
