"""Server CPU per part: what one batch of N GETs of ``/random/{size}`` costs the reference server.

``python -m bench.server_cpu`` starts the reference server in a child process (pinned to its own
core where there are two), sends one batch of N GETs with the bench client (``bench.http1``) and
reads the server's CPU time from ``/proc`` (``processes.cpu_seconds``: every thread's schedstat,
in nanoseconds) before and after. CPU time, not wall time, is the figure: on a shared machine
the wall clock also counts the time the server waited for a core. Each figure is the median of
``--repeats`` batches on one warm server; the first batch of each N is a warm-up and not counted
(imports, first-request paths, caches filling).

The scale scenario's growth steps (``bench.scale``) publish their ``server_cpu_per_part_us`` by
this same function, ``measure``.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from . import http1, processes
from .stats import Summary, summarize

__all__ = ["main", "measure"]

#: The payload of each GET, as in the thesis' own ``random/1024``.
SIZE = 1024
#: Batch sizes measured by default.
COUNTS = (1000, 10_000)


def measure(
    server: processes.Child, n: int, size: int = SIZE, *, prepared: tuple[str, bytes] | None = None
) -> tuple[float, float]:
    """One batch of ``n`` GETs: (server CPU seconds, wall seconds)."""
    paths = [f"/random/{size}"] * n
    before = processes.cpu_seconds(server.pid)
    transfer = http1.batch(server.address, paths, [size] * n, prepared=prepared)
    return processes.cpu_seconds(server.pid) - before, transfer.seconds


def run(counts: tuple[int, ...], repeats: int, size: int = SIZE) -> dict[str, Any]:
    """Per N: server CPU us per part and wall seconds, medians over ``repeats`` batches."""
    server = processes.start_reference_server(max_parts=max(max(counts), 10_000))
    try:
        http1.ping(server.address, "/random/0", 3)
        out: dict[str, Any] = {"size": size, "placement": processes.placement(), "counts": []}
        for n in counts:
            prepared = http1.batch_body([f"/random/{size}"] * n)
            measure(server, n, size, prepared=prepared)  # warm-up, not counted
            cpu: list[float] = []
            wall: list[float] = []
            for _ in range(repeats):
                spent, seconds = measure(server, n, size, prepared=prepared)
                cpu.append(spent / n * 1e6)
                wall.append(seconds)
            per_part: Summary = summarize(cpu)
            out["counts"].append(
                {"n": n, "server_cpu_per_part_us": per_part, "wall_seconds": summarize(wall)}
            )
        return out
    finally:
        server.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.server_cpu", description=__doc__)
    parser.add_argument("--counts", default=",".join(map(str, COUNTS)), help="comma-separated N")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--size", type=int, default=SIZE)
    parser.add_argument("--json", action="store_true", help="print the whole result as JSON")
    args = parser.parse_args(argv)
    processes.pin_client()
    counts = tuple(int(c) for c in args.counts.split(",") if c.strip())
    result = run(counts, args.repeats, args.size)
    if args.json:
        print(json.dumps(result, indent=1))
    for entry in result["counts"]:
        cpu = entry["server_cpu_per_part_us"]
        wall = entry["wall_seconds"]
        print(
            f"N={entry['n']:>6} x {args.size} B: server CPU {cpu['median']:.1f} us/part "
            f"({cpu['min']:.1f}-{cpu['max']:.1f}); wall {wall['median'] * 1e3:.1f} ms "
            f"({wall['min'] * 1e3:.1f}-{wall['max'] * 1e3:.1f})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
