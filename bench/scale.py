"""Scale: A 1 GiB batch each way, and time and memory as N grows tenfold.

The reference server runs with raised limits (``bench.reference_server``), straight over
loopback: this scenario is about the server's memory and per-part cost, not the network.

- ``upload``: one batch of 1024 ``PUT /status/204`` parts of 1 MiB each (1 GiB of request),
  streamed by the client part by part from one reused block, never held whole. The server must
  receive and validate all of it before running a part (MB-PROC-1), spooling bodies to disk, so
  the time to the first response part is the upload time.
- ``download``: one batch of 1024 ``GET /random/1048576``: a 1 GiB response the server writes
  part by part as each is ready (MB-PROC-4).
- ``growth``: N = 10, 100, ... GETs of ``/random/1024``: seconds, seconds per part, the server's
  CPU time per part and its RSS growth.

Memory is the server's: VmRSS sampled every 10 ms during the run and VmHWM after it, against the
VmRSS just before it; each big run gets a fresh server so VmHWM belongs to that run alone. CPU
time is the server's too, from ``/proc`` (``processes.cpu_seconds``, as ``bench.server_cpu``
measures it): on a shared machine the wall clock also counts time the server waited for a core.
Quick mode: 64 MiB batches and N up to 10,000.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from typing import Any

from mixbatch.codec import BatchParser, BatchWriter, Limits, PartEnd, Role, parse_batch_content_type

from . import http1, processes
from .stats import log, summarize

__all__ = ["run"]

MIB = 1024 * 1024
#: Server limits for this scenario: room for 100,000 parts and a 1 GiB batch with headers.
SERVER_LIMITS = {"max_parts": 200_000, "max_batch_bytes": 2 * 1024 * MIB, "max_part_bytes": 2 * MIB}


#: (parts of 1 MiB in the big batches, the N steps) per mode.
SIZES = {
    "quick": (64, (10, 100, 1000, 10_000)),
    "full": (1024, (10, 100, 1000, 10_000, 100_000)),
}


def _upload(address: tuple[str, int], parts: int) -> http1.Transfer:
    """Stream ``parts`` PUTs of 1 MiB each; parse the (small) multipart response."""
    writer = BatchWriter()
    block = bytes(range(256)) * (MIB // 256)
    fields = [("Content-Type", "application/octet-stream")]
    # The first part opens with the dash-boundary, every later one with CRLF first: two shapes.
    first_part = writer.request_part("PUT", "status/204", fields, block)
    part = writer.request_part("PUT", "status/204", fields, block)
    close = writer.close()
    length = len(first_part) + len(part) * (parts - 1) + len(close)
    head = (
        f"POST /batch HTTP/1.1\r\nHost: bench\r\nContent-Type: {writer.content_type}\r\n"
        f"Content-Length: {length}\r\n\r\n"
    ).encode("ascii")
    sock = socket.create_connection(address, timeout=http1.SOCKET_TIMEOUT)
    errors: list[BaseException] = []

    def send() -> None:
        try:
            sock.sendall(head)
            sock.sendall(first_part)
            for _ in range(parts - 1):
                sock.sendall(part)  # every part is byte-identical: same target, same body
            sock.sendall(close)
        except OSError as exc:
            errors.append(exc)

    reader = http1.Reader(sock)
    try:
        started = time.perf_counter()
        thread = threading.Thread(target=send, daemon=True)
        thread.start()
        status, headers = http1.read_head(reader)
        if status != 200:
            raise http1.BenchError(f"upload batch: status {status}")
        boundary = parse_batch_content_type(headers["content-type"]).encode("ascii")
        parser = BatchParser(boundary, Role.RESPONSE, Limits(max_parts=parts))
        first: list[float] = []
        done = [0]

        def feed(data: bytes) -> None:
            for event in parser.feed(data):
                if type(event) is PartEnd:
                    done[0] += 1
                    if not first:
                        first.append(time.perf_counter() - started)

        http1.read_body(reader, headers, feed)
        parser.feed_eof()
        elapsed = time.perf_counter() - started
        thread.join(http1.SOCKET_TIMEOUT)
        if done[0] != parts or errors:
            raise http1.BenchError(f"upload batch: {done[0]} of {parts} parts, {errors!r}")
        return http1.Transfer(
            elapsed, parts, parts * MIB, reader.count, len(head) + length, first[0]
        )
    finally:
        reader.close()
        sock.close()


def _measured(run: Callable[[tuple[str, int]], http1.Transfer]) -> dict[str, Any]:
    """Run once against a fresh server; time, first part, and the server's RSS growth."""
    server = processes.start_reference_server(**SERVER_LIMITS)
    try:
        http1.ping(server.address, "/random/0", 3)  # warm: imports and first-request paths
        base = processes.rss_kib(server.pid)["VmRSS"]
        cpu = processes.cpu_seconds(server.pid)
        with processes.RssSampler(server.pid) as sampler:
            transfer = run(server.address)
        cpu = processes.cpu_seconds(server.pid) - cpu
        hwm = processes.rss_kib(server.pid)["VmHWM"]
        peak = max(sampler.peak_kib, hwm)
        return {
            "seconds": transfer.seconds,
            "first_part_seconds": transfer.first_part_seconds,
            "rss_base_mib": base / 1024,
            "rss_growth_mib": (peak - base) / 1024,
            "server_cpu_seconds": cpu,
            "bytes": transfer.payload_bytes,
        }
    finally:
        server.stop()


def _repeat(
    label: str, repeats: int, run: Callable[[tuple[str, int]], http1.Transfer]
) -> dict[str, Any]:
    runs = []
    for i in range(repeats):
        log(f"scale: {label} run {i + 1}/{repeats}")
        runs.append(_measured(run))
    out: dict[str, Any] = {
        key: summarize([r[key] for r in runs])
        for key in ("seconds", "rss_growth_mib", "rss_base_mib", "server_cpu_seconds")
    }
    firsts = [r["first_part_seconds"] for r in runs if r["first_part_seconds"] is not None]
    if firsts:
        out["first_part_seconds"] = summarize(firsts)
    out["bytes"] = runs[0]["bytes"]
    out["mbyte_per_second"] = summarize([r["bytes"] / r["seconds"] / 1e6 for r in runs])
    return out


def run(quick: bool, repeats: int) -> dict[str, Any]:
    big_parts, counts = SIZES["quick" if quick else "full"]
    results: dict[str, Any] = {"big_batch_bytes": big_parts * MIB, "limits": SERVER_LIMITS}
    results["upload"] = _repeat(
        f"upload {big_parts} MiB", repeats, lambda address: _upload(address, big_parts)
    )
    paths = [f"/random/{MIB}"] * big_parts
    prepared = http1.batch_body(paths)
    results["download"] = _repeat(
        f"download {big_parts} MiB",
        repeats,
        lambda address: http1.batch(address, paths, [MIB] * big_parts, prepared=prepared),
    )
    growth = []
    for n in counts:
        n_paths = ["/random/1024"] * n
        n_prepared = http1.batch_body(n_paths)
        entry = _repeat(
            f"N={n}",
            repeats,
            lambda address, p=n_paths, q=n_prepared: http1.batch(
                address, p, [1024] * len(p), prepared=q
            ),
        )
        entry["n"] = n
        entry["us_per_part"] = summarize([s / n * 1e6 for s in entry["seconds"]["values"]])
        entry["server_cpu_per_part_us"] = summarize(
            [s / n * 1e6 for s in entry["server_cpu_seconds"]["values"]]
        )
        growth.append(entry)
    results["growth"] = growth
    return results
