"""HTTP/2 multiplexing against one batch, each side served and driven by its fastest contender.

The seed comparison (HTTP/1.1 vs HTTP/2 for 500 REST items) found compound documents 1.8x to
3.3x faster than 500 HTTP/2 requests. A fair repeat needs an HTTP/2 side that is not held back
by its implementation, so N GETs of the same 1 KiB go, through relays with the same delay:

- ``h2``: ``h2load`` (nghttp2, C), h2c with prior knowledge, one connection, ``-m`` streams in
  flight (100, 250 and 1,000), against
    - hypercorn serving ``bench.asgi_app`` (a Python HTTP/2 stack, 1,000 streams allowed), and
    - nginx serving the same octets as a static file (C; ``bench.external.nginx_static``).
- ``batch``: one ``POST /batch`` of N GET parts, against
    - the mixbatch reference server, and
    - ``bench.asgi_app:batched`` (mixbatch's ASGI middleware) under uvicorn,
  each driven by ``h2load --h1 -n 1`` (C), ``curl --data-binary`` (C), and the benchmark's own
  Python client ``bench.http1``, which parses and checks every part.

The C clients' times include opening the connection (and the h2c SETTINGS exchange), on both
sides alike; ``bench.http1`` opens its connection before the clock starts, so its row is one
RTT shorter and is shown but never taken as the batch's best. Each row is a median over the
repetitions (rows interleaved inside each repetition); the best row per server is the one with
the lowest median, and ``<server>_over_batch`` divides that row by the best batch row
repetition by repetition: above 1 the batch wins, below 1 it loses.

Each cell also holds the best any batch could do over that path, ``batch_bound_seconds``: the
relay's configured RTT (which its timers never undercut) plus the N payloads at the fastest
rate the path's bulk probe carried, the floor of ``bench.methods_vs_floor`` without its CPU
term. ``ceiling_over_batch`` divides each server's best HTTP/2 row by that bound: no batch,
however fast its server and client, can beat that server by more, so a target above it asks
for the impossible. The HTTP/2 side pays a round trip the batch does not: nghttp2, like the
common browsers, sends at most 100 requests before the server's SETTINGS arrive (RFC 9113
§6.5.2 leaves the initial limit open), so N > 100 requests take two round trips.

When h2load, nginx or curl is missing the scenario records why and what installs them
(``bench.external.INSTALL_COMMAND``) and measures nothing.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import external, http1, network, processes
from .stats import log, paired_ratio, summarize

__all__ = ["FULL", "QUICK", "Plan", "batch_bound", "run"]

PAYLOAD = 1024
#: Clients whose times include opening the connection, like h2load's on the HTTP/2 side.
C_CLIENTS = ("h2load --h1", "curl")
#: The Python client's row label; it connects before the clock starts (see above).
PYTHON_CLIENT = "bench.http1 (Python)"


@dataclass(frozen=True, slots=True)
class Plan:
    one_way_ms: tuple[float, ...]
    counts: tuple[int, ...]
    streams: tuple[int, ...]


FULL = Plan((1.0, 10.0), (500, 2000), (100, 250, 1000))
QUICK = Plan((1.0, 10.0), (500,), (100, 250, 1000))


@dataclass(frozen=True, slots=True)
class Row:
    side: str  # "h2" or "batch"
    server: str
    client: str
    streams: int | None
    measure: Callable[[], float]

    def label(self) -> str:
        streams = f" -m {self.streams}" if self.streams else ""
        return f"{self.side} {self.server} / {self.client}{streams}"


def _rows(
    relays: dict[str, processes.Child], n: int, streams: tuple[int, ...], body: Path, ctype: str
) -> list[Row]:
    paths = [f"/random/{PAYLOAD}"] * n
    lengths = [PAYLOAD] * n
    prepared = (ctype, body.read_bytes())
    rows: list[Row] = []
    for server in ("hypercorn", "nginx"):
        url = f"http://{relays[server].host}:{relays[server].port}/random/{PAYLOAD}"
        for m in streams:
            rows.append(
                Row("h2", server, "h2load", m, lambda u=url, m=m: external.h2load(u, n, m).seconds)
            )
    for server in ("reference", "middleware (uvicorn)"):
        relay = relays[server]
        url = f"http://{relay.host}:{relay.port}/batch"
        headers = {"Content-Type": ctype, "Accept": "multipart/mixed"}
        rows += [
            Row(
                "batch",
                server,
                "h2load --h1",
                None,
                lambda u=url, h=headers: (
                    external.h2load(u, 1, 1, h1=True, data=body, headers=h).seconds
                ),
            ),
            Row(
                "batch",
                server,
                "curl",
                None,
                lambda u=url: external.curl_post(u, body, ctype, n * PAYLOAD),
            ),
            Row(
                "batch",
                server,
                PYTHON_CLIENT,
                None,
                lambda a=relay.address: http1.batch(a, paths, lengths, prepared=prepared).seconds,
            ),
        ]
    return rows


def _best(
    rows: list[Row], times: list[list[float]], failed: dict[int, str], pick: Callable[[Row], bool]
) -> int | None:
    """The picked row with the lowest median among those that never failed, or None."""
    chosen = [i for i, row in enumerate(rows) if pick(row) and i not in failed]
    return min(chosen, key=lambda i: summarize(times[i])["median"]) if chosen else None


def _measure(row: Row, i: int, times: list[list[float]] | None, failed: dict[int, str]) -> None:
    """One measurement of a row; a row whose client reports a failed request (h2load counting
    fewer 2xx than it sent, curl a short answer) is a result too: it is recorded with the
    reason and not measured again, so one peer's refusal never stops the whole run."""
    if i in failed:
        return
    try:
        seconds = row.measure()
    except external.ExternalError as exc:
        failed[i] = str(exc)
        log(f"http2_vs_batch: {row.label()} failed: {exc}")
        return
    if times is not None:
        times[i].append(seconds)


def batch_bound(path: network.Path, n: int) -> float:
    """Seconds no batch of ``n`` payloads can beat over ``path`` (see the module docstring)."""
    return 2 * path["configured_one_way_ms"] / 1000 + n * PAYLOAD / (
        path["bandwidth_mbyte_s"] * 1e6
    )


def _cell(
    relays: dict[str, processes.Child],
    n: int,
    plan: Plan,
    repeats: int,
    tmp: Path,
    path: network.Path,
) -> dict[str, Any]:
    ctype, content = http1.batch_body([f"/random/{PAYLOAD}"] * n)
    body = tmp / f"batch-{n}.bin"
    body.write_bytes(content)
    rows = _rows(relays, n, plan.streams, body, ctype)
    failed: dict[int, str] = {}
    for i, row in enumerate(rows):  # warm every server and path once, off the clock
        _measure(row, i, None, failed)
    times: list[list[float]] = [[] for _ in rows]
    for _ in range(repeats):
        for i, row in enumerate(rows):
            _measure(row, i, times, failed)
    batch = _best(rows, times, failed, lambda r: r.side == "batch" and r.client in C_CLIENTS)
    if batch is None:
        raise external.ExternalError(f"no batch row completed at N={n}: {failed}")
    chosen = {
        server: _best(rows, times, failed, lambda r, s=server: r.side == "h2" and r.server == s)
        for server in ("hypercorn", "nginx")
    }
    best = {server: index for server, index in chosen.items() if index is not None}
    bound = batch_bound(path, n)
    return {
        "n": n,
        "rows": [
            {
                "side": row.side,
                "server": row.server,
                "client": row.client,
                "streams": row.streams,
                "label": row.label(),
                "seconds": None if i in failed else summarize(times[i]),
                "failed": failed.get(i),
            }
            for i, row in enumerate(rows)
        ],
        "best_batch": batch,
        "best_h2": best,
        "over_batch": {
            server: paired_ratio(times[index], times[batch]) for server, index in best.items()
        },
        "batch_bound_seconds": bound,
        "ceiling_over_batch": {
            server: summarize([t / bound for t in times[index]]) for server, index in best.items()
        },
    }


def run(quick: bool, repeats: int) -> dict[str, Any]:
    reason = external.missing_message()
    if reason is not None:
        log(f"http2_vs_batch: {reason}")
        return {"available": False, "reason": reason}
    plan = QUICK if quick else FULL
    random_file = {f"/random/{PAYLOAD}": os.urandom(PAYLOAD)}
    with ExitStack() as stack, tempfile.TemporaryDirectory(prefix="mixbatch-h2-") as tmp:
        servers = {
            "hypercorn": processes.start_hypercorn(),
            "reference": processes.start_reference_server(),
            "middleware (uvicorn)": processes.start_uvicorn("bench.asgi_app:batched"),
        }
        for child in servers.values():
            stack.callback(child.stop)
        nginx = stack.enter_context(external.nginx_static(random_file))
        processes.pin_server(nginx.pid)
        servers["nginx"] = nginx
        grids = []
        for one_way in plan.one_way_ms:
            relays = {}
            for name, server in servers.items():
                relays[name] = processes.start_relay(server.address, one_way)
                stack.callback(relays[name].stop)
            path = network.measure_path(
                servers["reference"].address,
                relays["reference"].address,
                one_way,
                bulk_bytes=1024 * 1024,
            )
            cells = []
            for n in plan.counts:
                log(
                    f"http2_vs_batch: N={n}, RTT measured {path['rtt_measured_ms']:.2f} ms, "
                    f"x{repeats}"
                )
                cells.append(_cell(relays, n, plan, repeats, Path(tmp), path))
            grids.append({"path": path, "cells": cells})
            for relay in relays.values():
                relay.stop()
        return {
            "available": True,
            "payload_bytes": PAYLOAD,
            "streams": list(plan.streams),
            "servers": {
                "hypercorn": "hypercorn (Python, h2c) serving bench.asgi_app",
                "nginx": "nginx (C, h2c) serving the same octets as a static file",
                "reference": "mixbatch reference server",
                "middleware (uvicorn)": "mixbatch ASGI middleware under uvicorn",
            },
            "grids": grids,
        }
