"""Scenario A, the thesis' chapter 6 experiment: serial vs pipelined vs one multipart batch.

N GETs of ``/random/{size}`` to the reference server through the delay relay, by three methods
on one shared client (``bench.http1``): serial keep-alive, pipelined, and one ``POST /batch``.
"1 kB" is read as 1024 octets, as in the thesis' own ``random/1024`` (ch. 5.2). Request bytes are
prepared before the clock starts for pipelining and the batch alike.

For each cell the result holds each method's time, the pipelined/serial and batch/serial
percentages next to the thesis' own (ch. 6.1 and 6.2 tables), and each method's ratio to the
physical floor

    floor = measured RTT + octets received / measured bandwidth + server CPU per part x N

where the server's CPU per part is its CPU time during the batch divided by N (from /proc). The
floor is a sum, so a method that overlaps transfer with server work may come in under it.

A second measurement, ``throughput``, runs serial and batch directly (no relay) to compare the
server's sequential keep-alive requests/s with its sub-requests/s inside one batch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import http1, network, processes
from .stats import Summary, log, paired_ratio, summarize

__all__ = ["FULL", "QUICK", "THESIS", "Grid", "run"]

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


def _cell(
    server: processes.Child,
    address: tuple[str, int],
    path: network.Path,
    n: int,
    size: int,
    repeats: int,
) -> dict[str, Any]:
    paths = [f"/random/{size}"] * n
    lengths = [size] * n
    prepared = http1.batch_body(paths)
    times: dict[str, list[float]] = {m: [] for m in METHODS}
    floors: list[float] = []
    cpu_per_part: list[float] = []
    first_part: list[float] = []
    bytes_in: dict[str, int] = {}
    for _ in range(repeats):
        for name, method in METHODS.items():
            cpu_before = processes.cpu_seconds(server.pid)
            if name == "batch":
                transfer = method(address, paths, lengths, prepared=prepared)
            else:
                transfer = method(address, paths, lengths)
            cpu = processes.cpu_seconds(server.pid) - cpu_before
            times[name].append(transfer.seconds)
            bytes_in[name] = transfer.bytes_in
            if name == "batch":
                cpu_per_part.append(cpu / n)
                if transfer.first_part_seconds is not None:
                    first_part.append(transfer.first_part_seconds)
                floors.append(
                    path["rtt_measured_ms"] / 1000
                    + transfer.bytes_in / (path["bandwidth_mbyte_s"] * 1e6)
                    + cpu
                )
    cell: dict[str, Any] = {
        "n": n,
        "payload_bytes": size,
        "seconds": {m: summarize(v) for m, v in times.items()},
        "bytes_in": bytes_in,
        "percent_of_serial": {
            "pipelined": _percent(paired_ratio(times["pipelined"], times["serial"])),
            "batch": _percent(paired_ratio(times["batch"], times["serial"])),
        },
        "floor_seconds": summarize(floors),
        "server_cpu_per_part_us": summarize([c * 1e6 for c in cpu_per_part]),
        "ratio_to_floor": {m: paired_ratio(v, floors) for m, v in times.items()},
        "thesis": _thesis(n, size),
    }
    if first_part:
        cell["batch_first_part_seconds"] = summarize(first_part)
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
                f"A: RTT configured {2 * grid.one_way_ms:g} ms, measured "
                f"{path['rtt_measured_ms']:.2f} ms, bulk {path['bandwidth_mbyte_s']:.0f} MB/s"
            )
            cells = []
            for n in grid.counts:
                for size in grid.sizes:
                    log(f"A: N={n} payload={size} x{repeats}")
                    cells.append(_cell(server, relay.address, path, n, size, repeats))
            results["grids"].append({"path": path, "cells": cells})
            relay.stop()
        n = THROUGHPUT_N["quick" if quick else "full"]
        log(f"A: throughput, N={n} direct")
        results["throughput"] = _throughput(server, n, repeats)
        return results
    finally:
        for relay in relays:
            relay.stop()
        server.stop()
