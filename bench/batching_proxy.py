"""The batching proxy (thesis §4.3) on the thesis' own link shape: a 3G client, a LAN origin.

The thesis' example puts the client on "a latency of 300 ms and a capacity of 1 Mb/s (...
typical of a cellular 3G link)" and the proxy next to the server on "a latency of 1 ms and a
capacity of 1 Gb/s (typical of a LAN)", and sends 10,000 requests of 8,000 bits: about 3,080 s
one by one, about 90.4 s as one batch through the proxy. Its model charges the latency once per
request, so it is taken here as the round trip: the relay delays each direction by half of it
and caps each direction with its token bucket (``bench.relay``):

    direct:  client --3G relay (RTT 300 ms, 1 Mb/s)--> origin            (serial, and pipelined)
    proxied: client --3G relay--> mixbatch proxy --LAN relay (RTT 1 ms, 1 Gb/s)--> origin

The origin knows nothing of batches (uvicorn serving ``bench.asgi_app``). The link shape is the
thesis'; only the item count is scaled down (N GETs of 1,000 octets, the thesis' 8,000 bits,
instead of 10,000), because 10,000 serial requests over that link take most of an hour. Next to
each measured time the result holds what the thesis' model predicts for the same N, and the
thesis' own N = 10,000 figures, so the shape can be compared.

The model's third line, which the thesis does not draw, is direct pipelining: the same N
requests written back to back on one connection over the 3G link pay the latency once too, and
carry the same octets, with no proxy at all:

    serial      N x (RTT + bits / C_3G)
    pipelined   RTT + N x bits / C_3G
    proxied     RTT + N x bits / C_3G + N x (RTT_LAN + bits / C_LAN)   (the thesis' formula)

(The thesis prints the batch's upload time as 8,300 ms; its total of 90,380 ms needs the
80,300 ms that 80 Mbit take at 1 Mb/s, which is what the model here computes.)

When this checkout has no ``mixbatch.proxy`` the scenario records that and measures nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import http1, processes
from .stats import log, paired_ratio, summarize

__all__ = ["FAST", "PAYLOAD", "SLOW", "Link", "N", "model_seconds", "run"]

#: The thesis' 8,000 bits per request.
PAYLOAD = 1000
#: Items per run; the thesis' example has 10,000.
N = {"quick": 20, "full": 100}
THESIS_N = 10_000


@dataclass(frozen=True, slots=True)
class Link:
    rtt_ms: float
    mbit_per_s: float

    @property
    def octets_per_s(self) -> float:
        return self.mbit_per_s * 1e6 / 8


#: The thesis' 3G link and LAN (§4.3).
SLOW = Link(rtt_ms=300.0, mbit_per_s=1.0)
FAST = Link(rtt_ms=1.0, mbit_per_s=1000.0)
METHODS = ("direct_serial", "direct_pipelined", "proxy_batch")


def model_seconds(n: int, octets: int = PAYLOAD) -> dict[str, float]:
    """The thesis' §4.3 model for n items, with direct pipelining added (seconds)."""
    slow_rtt, fast_rtt = SLOW.rtt_ms / 1000, FAST.rtt_ms / 1000
    on_slow = octets / SLOW.octets_per_s
    on_fast = octets / FAST.octets_per_s
    return {
        "direct_serial": n * (slow_rtt + on_slow),
        "direct_pipelined": slow_rtt + n * on_slow,
        "proxy_batch": slow_rtt + n * on_slow + n * (fast_rtt + on_fast),
    }


def run(quick: bool, repeats: int) -> dict[str, Any]:
    if not processes.proxy_available():
        return {"available": False, "reason": "mixbatch.proxy is not in this checkout"}
    n = N["quick" if quick else "full"]
    children: list[processes.Child] = []
    try:
        origin = processes.start_uvicorn()
        children.append(origin)
        fast = processes.start_relay(origin.address, FAST.rtt_ms / 2, FAST.mbit_per_s)
        children.append(fast)
        proxy = processes.start_proxy(fast.address)
        children.append(proxy)
        slow_direct = processes.start_relay(origin.address, SLOW.rtt_ms / 2, SLOW.mbit_per_s)
        children.append(slow_direct)
        slow_proxy = processes.start_relay(proxy.address, SLOW.rtt_ms / 2, SLOW.mbit_per_s)
        children.append(slow_proxy)
        rtt_slow = min(http1.ping(slow_direct.address, "/random/0", 3))
        rtt_fast = min(http1.ping(fast.address, "/random/0", 10))
        paths = [f"/random/{PAYLOAD}"] * n
        lengths = [PAYLOAD] * n
        prepared = http1.batch_body(paths)
        times: dict[str, list[float]] = {m: [] for m in METHODS}
        bytes_in: dict[str, int] = {}
        log(
            f"batching_proxy: N={n}, 3G RTT {rtt_slow * 1000:.0f} ms at {SLOW.mbit_per_s:g} "
            f"Mb/s, LAN RTT {rtt_fast * 1000:.1f} ms, x{repeats}"
        )
        for _ in range(repeats):
            for name, transfer in (
                ("direct_serial", lambda: http1.serial(slow_direct.address, paths, lengths)),
                ("direct_pipelined", lambda: http1.pipelined(slow_direct.address, paths, lengths)),
                (
                    "proxy_batch",
                    lambda: http1.batch(slow_proxy.address, paths, lengths, prepared=prepared),
                ),
            ):
                done = transfer()
                times[name].append(done.seconds)
                bytes_in[name] = done.bytes_in
        model = model_seconds(n)
        thesis = model_seconds(THESIS_N)
        return {
            "available": True,
            "n": n,
            "payload_bytes": PAYLOAD,
            "origin": f"uvicorn ({origin.extra['http_implementation']})",
            "slow_link": {"rtt_ms": SLOW.rtt_ms, "mbit_per_s": SLOW.mbit_per_s},
            "fast_link": {"rtt_ms": FAST.rtt_ms, "mbit_per_s": FAST.mbit_per_s},
            "slow_rtt_ms_measured": rtt_slow * 1000,
            "fast_rtt_ms_measured": rtt_fast * 1000,
            "bytes_in": bytes_in,
            "seconds": {k: summarize(v) for k, v in times.items()},
            "model_seconds": model,
            "thesis_n": THESIS_N,
            "thesis_model_seconds": thesis,
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
