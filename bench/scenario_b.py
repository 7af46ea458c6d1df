"""Scenario B: HTTP/2 multiplexing vs one mixbatch batch vs HTTP/1.1 on six connections.

The seed comparison (HTTP/1.1 vs HTTP/2 for 500 REST items) found compound documents 1.8x to
3.3x faster than 500 HTTP/2 requests. Here the same 500 GETs of ``/random/1024`` go, through
relays with the same delay:

- ``h2``: httpx (``http2=True``, prior-knowledge h2c) to hypercorn serving ``bench.asgi_app``,
  all 500 requests issued at once on one connection (hypercorn's stream limit applies).
- ``h1x6``: httpx over HTTP/1.1 to the same hypercorn, at most six connections, as a browser.
- ``batch``: one ``POST /batch`` to the reference server with the lean client (``bench.http1``).

Connections are opened and warmed before the clock starts, for every method. The ratio
h2 / batch is the figure of interest; h2 and h1x6 share server and client library, so their
ratio isolates the protocol.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx

from . import http1, network, processes
from .stats import log, paired_ratio, summarize

__all__ = ["run"]

PAYLOAD = 1024
#: The seed comparison's larger collection.
N_ITEMS = 500


async def _httpx_run(base_url: str, n: int, http2: bool, repeats: int) -> list[float]:
    limits = httpx.Limits(max_connections=1 if http2 else 6, max_keepalive_connections=6)
    times: list[float] = []
    async with httpx.AsyncClient(
        http1=not http2, http2=http2, base_url=base_url, limits=limits, timeout=120.0
    ) as client:
        warm = await asyncio.gather(*[client.get("/random/0") for _ in range(6)])
        if any(r.status_code != 200 for r in warm):
            raise http1.BenchError("warm-up request failed")
        for _ in range(repeats):
            started = time.perf_counter()
            responses = await asyncio.gather(*[client.get(f"/random/{PAYLOAD}") for _ in range(n)])
            times.append(time.perf_counter() - started)
            want = "HTTP/2" if http2 else "HTTP/1.1"
            for r in responses:
                if r.status_code != 200 or len(r.content) != PAYLOAD or r.http_version != want:
                    raise http1.BenchError(f"{want}: {r.status_code} {len(r.content)} octets")
    return times


def run(quick: bool, repeats: int, one_way_ms: float = 1.0) -> dict[str, Any]:
    n = N_ITEMS
    reference = processes.start_reference_server()
    hypercorn = processes.start_hypercorn()
    children = [reference, hypercorn]
    try:
        ref_relay = processes.start_relay(reference.address, one_way_ms)
        children.append(ref_relay)
        hyp_relay = processes.start_relay(hypercorn.address, one_way_ms)
        children.append(hyp_relay)
        path = network.measure_path(
            reference.address, ref_relay.address, one_way_ms, bulk_bytes=4 * 1024 * 1024
        )
        base = f"http://{hyp_relay.host}:{hyp_relay.port}"
        paths = [f"/random/{PAYLOAD}"] * n
        lengths = [PAYLOAD] * n
        prepared = http1.batch_body(paths)
        times: dict[str, list[float]] = {"h2": [], "h1x6": [], "batch": []}
        log(f"B: {n} items, RTT measured {path['rtt_measured_ms']:.2f} ms, x{repeats}")
        # Interleave by repetition so the three methods see the same machine load.
        for _ in range(repeats):
            times["h2"] += asyncio.run(_httpx_run(base, n, True, 1))
            times["h1x6"] += asyncio.run(_httpx_run(base, n, False, 1))
            times["batch"].append(
                http1.batch(ref_relay.address, paths, lengths, prepared=prepared).seconds
            )
        return {
            "n": n,
            "payload_bytes": PAYLOAD,
            "path": path,
            "servers": {"h2": "hypercorn", "h1x6": "hypercorn", "batch": "mixbatch reference"},
            "clients": {"h2": "httpx (h2)", "h1x6": "httpx", "batch": "bench.http1 + codec"},
            "seconds": {k: summarize(v) for k, v in times.items()},
            "h2_over_batch": paired_ratio(times["h2"], times["batch"]),
            "h1x6_over_batch": paired_ratio(times["h1x6"], times["batch"]),
            "h1x6_over_h2": paired_ratio(times["h1x6"], times["h2"]),
        }
    finally:
        for child in reversed(children):
            child.stop()
