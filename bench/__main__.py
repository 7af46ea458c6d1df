"""``python -m bench``: run the scenarios, evaluate the targets, write JSON, Markdown and PNGs.

The default run is the full one (about 20 minutes on two cores: the HTTP/2 grid and 100 serial
requests over the 3G link add about six to the 14 of the lettered harness); ``--quick`` shrinks
every scenario (small N, 64 MiB instead of 1 GiB) to finish in about three minutes. Every run is
bounded: fixed counts, socket timeouts, and children that are stopped by pid on the way out.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import (
    batching_proxy,
    http2_vs_batch,
    methods_vs_floor,
    parsers,
    plots,
    processes,
    report,
    scale,
    targets,
    uvicorn_pipelining,
)
from .stats import log

__all__ = ["LETTERS", "SCENARIOS", "main"]

RESULTS_DIR = Path(__file__).resolve().parent / "results"

#: Each scenario by what it measures; its name is also its key in results.json.
SCENARIOS: dict[str, Callable[[bool, int], dict[str, Any]]] = {
    "methods_vs_floor": methods_vs_floor.run,
    "http2_vs_batch": http2_vs_batch.run,
    "uvicorn_pipelining": uvicorn_pipelining.run,
    "parsers": parsers.run,
    "scale": scale.run,
    "batching_proxy": batching_proxy.run,
}
#: The letters earlier releases used (A-F), still accepted by ``--scenario`` for one release.
LETTERS = dict(zip("ABCDEF", SCENARIOS, strict=True))

METHOD = [
    "- Latency: an asyncio relay (`bench/relay.py`) delays each direction by a configured one-way "
    "delay; the RTT shown is the one measured through it (fastest GET /random/0 via the relay "
    "minus the fastest direct), never the configured one.",
    "- Bandwidth: uncapped unless stated (the batching proxy's slow link is capped by the "
    "relay's token bucket); the floor uses the fastest rate the path was seen to carry.",
    "- Clients: serial, pipelined and batch share one lean blocking HTTP/1.1 client "
    "(`bench/http1.py`) that checks every status and body length; request bytes are prepared "
    "before the clock starts. http2_vs_batch drives both sides with C clients (h2load for "
    "HTTP/2, h2load --h1 and curl for the batch), whose times include the connection set-up.",
    "- Servers: the reference server runs without access logging (the `mixbatch serve` CLI logs "
    "every request at INFO by default). uvicorn and hypercorn serve `bench/asgi_app.py`; "
    "nginx serves the same octets as a static file.",
    "- Placement: server pinned to the last core, client to the first, relay unpinned; with two "
    "cores and other jobs running, absolute times are noisy, ratios less so.",
    "- Repetitions: methods are interleaved inside each repetition; ratios are paired per "
    "repetition; median with min-max spread.",
]


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes, about two minutes")
    parser.add_argument(
        "--scenario",
        default=",".join(SCENARIOS),
        help="comma-separated subset of "
        + ", ".join(SCENARIOS)
        + " (default: all); the letters A-F name them in that order",
    )
    parser.add_argument("--repeats", type=int, default=3, help="repetitions per figure (>= 3)")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR, help="output directory")
    parser.add_argument(
        "--no-profile", action="store_true", help="skip profiling the code behind missed targets"
    )
    args = parser.parse_args(argv)
    given = [s.strip() for s in args.scenario.split(",") if s.strip()]
    chosen = [LETTERS.get(s.upper(), s.lower()) for s in given]
    unknown = [g for g, c in zip(given, chosen, strict=True) if c not in SCENARIOS]
    if unknown:
        parser.error(
            f"--scenario: unknown {', '.join(unknown)}; choose from {', '.join(SCENARIOS)} "
            f"or {', '.join(LETTERS)}"
        )
    chosen = list(dict.fromkeys(chosen))
    if args.repeats < 1:
        parser.error(f"--repeats must be at least 1, got {args.repeats}")
    args.chosen = chosen
    return args


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    processes.pin_client()
    started = time.time()
    meta: dict[str, Any] = {
        "command": "python -m bench " + " ".join(sys.argv[1:] if argv is None else argv),
        "started": time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime(started)),
        "quick": args.quick,
        "repeats": args.repeats,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "placement": processes.placement(),
        "loadavg_before": list(os.getloadavg()),
        "method": METHOD,
    }
    results: dict[str, Any] = {}
    for key in args.chosen:
        log(f"scenario {key}")
        results[key] = SCENARIOS[key](args.quick, args.repeats)
    records = targets.evaluate(results)
    if not args.no_profile:
        log("profiling the code behind missed targets")
        targets.explain(records, results, args.quick)
    meta["loadavg_after"] = list(os.getloadavg())
    meta["duration_s"] = time.time() - started
    document = {"meta": meta, "targets": records, "scenarios": results}
    args.out.mkdir(parents=True, exist_ok=True)
    # The folder holds one run: plots an earlier run left (another mode, other shapes) would
    # be published beside figures they do not belong to.
    for stale in args.out.glob("*.png"):
        stale.unlink()
    (args.out / "results.json").write_text(json.dumps(document, indent=1) + "\n")
    (args.out / "summary.md").write_text(report.render(document))
    written = plots.write_plots(results, args.out)
    for record in records:
        verdict = {True: "pass", False: "FAIL", None: "not run"}[record["passed"]]
        measured = "-" if record["measured"] is None else f"{record['measured']:.3g}"
        print(f"{verdict:8} {record['statement']}: {measured} {record['unit']} ({record['where']})")
    print(f"wrote {args.out / 'results.json'}, summary.md and {len(written)} plots")
    return 0


if __name__ == "__main__":
    sys.exit(main())
