"""What the simulated network really is: RTT and bulk bandwidth measured through the relay.

The relay's configured delay is a lower bound (see ``bench.relay``), so every scenario measures
the path it uses. RTT: the fastest of a few dozen ``GET /random/0`` on one keep-alive connection
through the relay, minus the fastest of the same sent directly; the difference is what the relay
adds, that is, the network round trip without the server's own per-request time. Bandwidth: the
best of three 16 MiB (quick: 4 MiB) downloads through the relay, less one RTT. With no cap
configured this is whatever relay, client and server manage together on this machine, which is
the link the batch really has.
"""

from __future__ import annotations

from typing import TypedDict

from . import http1

__all__ = ["Path", "measure_path"]


class Path(TypedDict):
    configured_one_way_ms: float
    bandwidth_cap_mbit: float
    rtt_direct_ms: float
    rtt_through_relay_ms: float
    rtt_measured_ms: float
    bandwidth_mbyte_s: float


def measure_path(
    direct: tuple[str, int],
    relayed: tuple[str, int],
    one_way_ms: float,
    cap_mbit: float = 0.0,
    *,
    pings: int = 30,
    bulk_bytes: int = 16 * 1024 * 1024,
) -> Path:
    direct_min = min(http1.ping(direct, "/random/0", pings))
    relayed_min = min(http1.ping(relayed, "/random/0", pings))
    bulk = min(http1.ping(relayed, f"/random/{bulk_bytes}", 3))
    transfer = max(bulk - relayed_min, 1e-6)
    return {
        "configured_one_way_ms": one_way_ms,
        "bandwidth_cap_mbit": cap_mbit,
        "rtt_direct_ms": direct_min * 1000,
        "rtt_through_relay_ms": relayed_min * 1000,
        "rtt_measured_ms": (relayed_min - direct_min) * 1000,
        "bandwidth_mbyte_s": bulk_bytes / transfer / 1e6,
    }
