"""uvicorn pipelining: another HTTP/1.1 server, pipelined, vs a mixbatch batch to the reference server.

uvicorn serves ``bench.asgi_app`` (the same ``/random/{n}``) with httptools when installed and
with h11 otherwise; the results name the one used. Through relays with the same delay, N GETs of
``/random/1024`` are sent pipelined to uvicorn and as one batch to the reference server; the
reference server's own pipelining and uvicorn's serial keep-alive run too, so that the server's
share and the method's share of the difference can be told apart.
"""

from __future__ import annotations

from typing import Any

from . import http1, network, processes
from .stats import log, paired_ratio, summarize

__all__ = ["run"]

PAYLOAD = 1024
N = {"quick": 500, "full": 2000}


def run(quick: bool, repeats: int, one_way_ms: float = 1.0) -> dict[str, Any]:
    n = N["quick" if quick else "full"]
    reference = processes.start_reference_server()
    uvicorn = processes.start_uvicorn()
    children = [reference, uvicorn]
    try:
        ref_relay = processes.start_relay(reference.address, one_way_ms)
        uvi_relay = processes.start_relay(uvicorn.address, one_way_ms)
        children += [ref_relay, uvi_relay]
        path = network.measure_path(
            reference.address, ref_relay.address, one_way_ms, bulk_bytes=4 * 1024 * 1024
        )
        paths = [f"/random/{PAYLOAD}"] * n
        lengths = [PAYLOAD] * n
        prepared = http1.batch_body(paths)
        methods = {
            "uvicorn_serial": lambda: http1.serial(uvi_relay.address, paths, lengths),
            "uvicorn_pipelined": lambda: http1.pipelined(uvi_relay.address, paths, lengths),
            "reference_pipelined": lambda: http1.pipelined(ref_relay.address, paths, lengths),
            "reference_batch": lambda: http1.batch(
                ref_relay.address, paths, lengths, prepared=prepared
            ),
        }
        times: dict[str, list[float]] = {k: [] for k in methods}
        log(
            f"uvicorn_pipelining: N={n}, uvicorn {uvicorn.extra['http_implementation']}, x{repeats}"
        )
        for _ in range(repeats):
            for name, method in methods.items():
                times[name].append(method().seconds)
        return {
            "n": n,
            "payload_bytes": PAYLOAD,
            "path": path,
            "uvicorn_http": uvicorn.extra["http_implementation"],
            "seconds": {k: summarize(v) for k, v in times.items()},
            "uvicorn_pipelined_over_batch": paired_ratio(
                times["uvicorn_pipelined"], times["reference_batch"]
            ),
            "reference_pipelined_over_batch": paired_ratio(
                times["reference_pipelined"], times["reference_batch"]
            ),
            "uvicorn_serial_over_batch": paired_ratio(
                times["uvicorn_serial"], times["reference_batch"]
            ),
        }
    finally:
        for child in reversed(children):
            child.stop()
