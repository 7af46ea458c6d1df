"""Methods against a floor: serial vs pipelined vs one multipart batch (thesis ch. 6).

N GETs of ``/random/{size}`` to the reference server through the delay relay, by three methods
on one shared client (``bench.http1``): serial keep-alive, pipelined, and one ``POST /batch``.
"1 kB" is read as 1024 octets, as in the thesis' own ``random/1024`` (ch. 5.2). Request bytes are
prepared before the clock starts for pipelining and the batch alike.

For each cell the result holds each method's time, the pipelined/serial and batch/serial
percentages next to the thesis' own (ch. 6.1 and 6.2 tables), and each method's ratio to a
floor that no way of fetching the same N responses over this path can beat:

    floor = configured RTT + max(transfer bound, CPU bound)

- One RTT: the request must reach the server and the last answer octet come back. The term is
  the relay's configured delay both ways, which it never undercuts (its timers fire no earlier
  than asked). The measured RTT is larger by the relay's own work per round trip, and a warm
  path can come in under a figure probed with a few pings, so it is reported, not used.
- Transfer bound: the fewest octets any method received in the cell, at the fastest rate this
  relay path was seen to carry in the whole grid: the bulk probe of ``bench.network``, or any
  method's octets received over its time less one RTT. Every method was timed over that path,
  so none received its octets faster than that rate: the term cannot exceed any method's own
  transfer time. (The uncapped relay has no configured capacity to quote instead.)
- CPU bound: the least server CPU any method used for the cell in that repetition (from
  ``/proc/PID/task/*/schedstat``, nanoseconds), less the CPU the server spends on a connection
  that carries one empty GET (the least of a few; accepting and closing a connection need not
  happen between the request's arrival and the last answer octet, and the bound must not count
  them). The server cannot answer before it has done the rest, and that work cannot start
  before the request arrives.

Transfer and CPU may overlap (a server streams answers while it computes the next), so the
floor takes the larger of the two, not their sum. ``bench.targets`` fails the run when any
method, in any repetition, comes in under it.

A second measurement, ``throughput``, runs serial and batch directly (no relay) to compare the
server's sequential keep-alive requests/s with its sub-requests/s inside one batch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import http1, network, processes
from .stats import Summary, log, paired_ratio, summarize

__all__ = ["FULL", "QUICK", "THESIS", "Grid", "connection_cpu", "fastest_rate", "floors", "run"]

SIZES = (1024, 10 * 1024, 50 * 1024)


@dataclass(frozen=True, slots=True)
class Grid:
    """One RTT and the N x payload cells measured at it."""

    one_way_ms: float
    counts: tuple[int, ...]
    sizes: tuple[int, ...] = SIZES


FULL = (Grid(1.0, (1000, 5000, 10000)), Grid(10.0, (100, 500)))
QUICK = (Grid(1.0, (200, 500)), Grid(10.0, (30,)))
THROUGHPUT_N = {"full": 10000, "quick": 2000}

#: The thesis' ch. 6 tables (ms, two significant digits; % of serial), keyed by payload then N.
THESIS: dict[str, dict[int, dict[int, float]]] = {
    "serial_ms": {
        1024: {1000: 1000, 5000: 5000, 10000: 10000},
        10240: {1000: 1800, 5000: 9100, 10000: 18000},
        51200: {1000: 6200, 5000: 30000, 10000: 56000},
    },
    "pipelined_ms": {
        1024: {1000: 460, 5000: 2300, 10000: 4600},
        10240: {1000: 1000, 5000: 5000, 10000: 10000},
        51200: {1000: 4700, 5000: 24000, 10000: 45000},
    },
    "pipelined_pct": {
        1024: {1000: 46, 5000: 46, 10000: 46},
        10240: {1000: 56, 5000: 55, 10000: 56},
        51200: {1000: 76, 5000: 80, 10000: 80},
    },
    "batch_ms": {
        1024: {1000: 200, 5000: 1000, 10000: 2000},
        10240: {1000: 390, 5000: 1900, 10000: 3900},
        51200: {1000: 1200, 5000: 6000, 10000: 12000},
    },
    "batch_pct": {
        1024: {1000: 20, 5000: 20, 10000: 20},
        10240: {1000: 20, 5000: 21, 10000: 22},
        51200: {1000: 19, 5000: 21, 10000: 20},
    },
}

METHODS: dict[str, Callable[..., http1.Transfer]] = {
    "serial": http1.serial,
    "pipelined": http1.pipelined,
    "batch": http1.batch,
}


@dataclass
class _Raw:
    """One cell's raw measurements, kept until the grid's fastest rate is known."""

    n: int
    size: int
    times: dict[str, list[float]]
    cpu: dict[str, list[float]]
    bytes_in: dict[str, int]
    first_part: list[float]


def _measure(
    server: processes.Child, address: tuple[str, int], n: int, size: int, repeats: int
) -> _Raw:
    paths = [f"/random/{size}"] * n
    lengths = [size] * n
    prepared = http1.batch_body(paths)
    raw = _Raw(n, size, {m: [] for m in METHODS}, {m: [] for m in METHODS}, {}, [])
    for _ in range(repeats):
        for name, method in METHODS.items():
            cpu_before = processes.cpu_seconds(server.pid)
            if name == "batch":
                transfer = method(address, paths, lengths, prepared=prepared)
            else:
                transfer = method(address, paths, lengths)
            raw.cpu[name].append(processes.cpu_seconds(server.pid) - cpu_before)
            raw.times[name].append(transfer.seconds)
            raw.bytes_in[name] = transfer.bytes_in
            if name == "batch" and transfer.first_part_seconds is not None:
                raw.first_part.append(transfer.first_part_seconds)
    return raw


def fastest_rate(path: network.Path, raws: list[_Raw]) -> float:
    """Octets/s: the best the path carried, from the bulk probe or any method's transfer."""
    rtt = path["rtt_measured_ms"] / 1000
    best = path["bandwidth_mbyte_s"] * 1e6
    for raw in raws:
        for name, times in raw.times.items():
            for seconds in times:
                best = max(best, raw.bytes_in[name] / max(seconds - rtt, 1e-9))
    return best


def connection_cpu(server: processes.Child, address: tuple[str, int], tries: int = 10) -> float:
    """The least server CPU seconds of one connection carrying one ``GET /random/0``."""
    spent = []
    for _ in range(tries):
        before = processes.cpu_seconds(server.pid)
        http1.serial(address, ["/random/0"], [0])
        spent.append(processes.cpu_seconds(server.pid) - before)
    return min(spent)


def _rtt_bound(path: network.Path) -> float:
    """Seconds of the floor's RTT term: the configured delay both ways (see above)."""
    return 2 * path["configured_one_way_ms"] / 1000


def floors(
    path: network.Path, raw: _Raw, rate: float, per_connection: float = 0.0
) -> tuple[list[float], list[float]]:
    """Per repetition: the floor and its CPU bound (seconds)."""
    rtt = _rtt_bound(path)
    transfer = min(raw.bytes_in.values()) / rate
    cpu = [max(min(rep) - per_connection, 0.0) for rep in zip(*raw.cpu.values(), strict=True)]
    return [rtt + max(transfer, c) for c in cpu], cpu


def _cell(path: network.Path, raw: _Raw, rate: float, per_connection: float) -> dict[str, Any]:
    floor, cpu = floors(path, raw, rate, per_connection)
    times = raw.times
    cell: dict[str, Any] = {
        "n": raw.n,
        "payload_bytes": raw.size,
        "seconds": {m: summarize(v) for m, v in times.items()},
        "bytes_in": raw.bytes_in,
        "percent_of_serial": {
            "pipelined": _percent(paired_ratio(times["pipelined"], times["serial"])),
            "batch": _percent(paired_ratio(times["batch"], times["serial"])),
        },
        "floor_seconds": summarize(floor),
        "floor_terms": {
            "rtt_seconds": _rtt_bound(path),
            "transfer_seconds": min(raw.bytes_in.values()) / rate,
            "cpu_seconds": summarize(cpu),
            "per_connection_cpu_seconds": per_connection,
        },
        "server_cpu_seconds": {m: summarize(v) for m, v in raw.cpu.items()},
        "server_cpu_per_part_us": summarize([c / raw.n * 1e6 for c in raw.cpu["batch"]]),
        "ratio_to_floor": {m: paired_ratio(v, floor) for m, v in times.items()},
        "thesis": _thesis(raw.n, raw.size),
    }
    if raw.first_part:
        cell["batch_first_part_seconds"] = summarize(raw.first_part)
    return cell


def _percent(ratio: Summary) -> Summary:
    return summarize([v * 100 for v in ratio["values"]])


def _thesis(n: int, size: int) -> dict[str, float] | None:
    if n not in THESIS["serial_ms"].get(size, {}):
        return None
    return {key: table[size][n] for key, table in THESIS.items()}


def _throughput(server: processes.Child, n: int, repeats: int) -> dict[str, Any]:
    """Serial requests/s vs sub-requests/s in one batch, straight to the server (no relay)."""
    paths = ["/random/1024"] * n
    lengths = [1024] * n
    prepared = http1.batch_body(paths)
    rates: dict[str, list[float]] = {"serial": [], "batch": []}
    cpu: dict[str, list[float]] = {"serial": [], "batch": []}
    for _ in range(repeats):
        for name in rates:
            before = processes.cpu_seconds(server.pid)
            if name == "batch":
                transfer = http1.batch(server.address, paths, lengths, prepared=prepared)
            else:
                transfer = http1.serial(server.address, paths, lengths)
            cpu[name].append((processes.cpu_seconds(server.pid) - before) / n * 1e6)
            rates[name].append(n / transfer.seconds)
    return {
        "n": n,
        "payload_bytes": 1024,
        "requests_per_second": {k: summarize(v) for k, v in rates.items()},
        "server_cpu_per_request_us": {k: summarize(v) for k, v in cpu.items()},
        "batch_over_serial": paired_ratio(rates["batch"], rates["serial"]),
    }


def run(quick: bool, repeats: int) -> dict[str, Any]:
    grids = QUICK if quick else FULL
    largest = max(max(g.counts) for g in grids)
    server = processes.start_reference_server(max_parts=max(largest, 10000))
    relays: list[processes.Child] = []
    try:
        results: dict[str, Any] = {"grids": []}
        for grid in grids:
            relay = processes.start_relay(server.address, grid.one_way_ms)
            relays.append(relay)
            path = network.measure_path(
                server.address,
                relay.address,
                grid.one_way_ms,
                bulk_bytes=(4 if quick else 16) * 1024 * 1024,
            )
            log(
                f"methods_vs_floor: RTT configured {2 * grid.one_way_ms:g} ms, measured "
                f"{path['rtt_measured_ms']:.2f} ms, bulk {path['bandwidth_mbyte_s']:.0f} MB/s"
            )
            raws = []
            for n in grid.counts:
                for size in grid.sizes:
                    log(f"methods_vs_floor: N={n} payload={size} x{repeats}")
                    raws.append(_measure(server, relay.address, n, size, repeats))
            rate = fastest_rate(path, raws)
            per_connection = connection_cpu(server, relay.address)
            cells = [_cell(path, raw, rate, per_connection) for raw in raws]
            results["grids"].append(
                {"path": path, "fastest_rate_mbyte_s": rate / 1e6, "cells": cells}
            )
            relay.stop()
        n = THROUGHPUT_N["quick" if quick else "full"]
        log(f"methods_vs_floor: throughput, N={n} direct")
        results["throughput"] = _throughput(server, n, repeats)
        return results
    finally:
        for relay in relays:
            relay.stop()
        server.stop()
