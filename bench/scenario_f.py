"""Scenario F: the batching proxy of thesis §4.3, scaled down.

Topology: a client on a slow link (RTT 20 ms) and an origin that knows nothing of batches
(uvicorn serving ``bench.asgi_app``) behind a fast link (RTT 1 ms) from the proxy:

    direct:  client --slow relay--> origin                      (serial, and pipelined)
    proxied: client --slow relay--> mixbatch proxy --fast relay--> origin   (one batch)

The proxy answers the batch by sending each part to the origin as a standalone request over its
keep-alive pool, pipelining safe ones, so only the cheap link carries N round trips. The result
is direct time / proxied time for N GETs of ``/random/1024``. When this checkout has no
``mixbatch.proxy`` the scenario records that and measures nothing.
"""

from __future__ import annotations

from typing import Any

from . import http1, processes
from .stats import log, paired_ratio, summarize

__all__ = ["run"]

PAYLOAD = 1024
SLOW_ONE_WAY_MS = 10.0
FAST_ONE_WAY_MS = 0.5
N = {"quick": 50, "full": 200}


def run(quick: bool, repeats: int) -> dict[str, Any]:
    if not processes.proxy_available():
        return {"available": False, "reason": "mixbatch.proxy is not in this checkout"}
    n = N["quick" if quick else "full"]
    children: list[processes.Child] = []
    try:
        origin = processes.start_uvicorn()
        children.append(origin)
        fast = processes.start_relay(origin.address, FAST_ONE_WAY_MS)
        children.append(fast)
        proxy = processes.start_proxy(fast.address)
        children.append(proxy)
        slow_direct = processes.start_relay(origin.address, SLOW_ONE_WAY_MS)
        children.append(slow_direct)
        slow_proxy = processes.start_relay(proxy.address, SLOW_ONE_WAY_MS)
        children.append(slow_proxy)
        rtt_slow = min(http1.ping(slow_direct.address, "/random/0", 10))
        rtt_fast = min(http1.ping(fast.address, "/random/0", 10))
        paths = [f"/random/{PAYLOAD}"] * n
        lengths = [PAYLOAD] * n
        prepared = http1.batch_body(paths)
        times: dict[str, list[float]] = {
            "direct_serial": [],
            "direct_pipelined": [],
            "proxy_batch": [],
        }
        log(f"F: N={n}, slow RTT {rtt_slow * 1000:.1f} ms, fast RTT {rtt_fast * 1000:.1f} ms")
        for _ in range(repeats):
            times["direct_serial"].append(http1.serial(slow_direct.address, paths, lengths).seconds)
            times["direct_pipelined"].append(
                http1.pipelined(slow_direct.address, paths, lengths).seconds
            )
            times["proxy_batch"].append(
                http1.batch(slow_proxy.address, paths, lengths, prepared=prepared).seconds
            )
        return {
            "available": True,
            "n": n,
            "payload_bytes": PAYLOAD,
            "origin": f"uvicorn ({origin.extra['http_implementation']})",
            "slow_rtt_ms_measured": rtt_slow * 1000,
            "fast_rtt_ms_measured": rtt_fast * 1000,
            "seconds": {k: summarize(v) for k, v in times.items()},
            "direct_serial_over_proxy_batch": paired_ratio(
                times["direct_serial"], times["proxy_batch"]
            ),
            "direct_pipelined_over_proxy_batch": paired_ratio(
                times["direct_pipelined"], times["proxy_batch"]
            ),
        }
    finally:
        for child in reversed(children):
            child.stop()
