"""``mixbatch proxy --upstream URL``: run the batching proxy of thesis §4.3 until interrupted.

Prints ``mixbatch proxy listening on http://HOST:PORT -> UPSTREAM`` once bound (``--port 0``
picks an ephemeral port), so scripts and tests can read the port from it. ``--limits`` takes
``name=value`` pairs separated by commas, named as in the capabilities document
(``max_parts=100,max_part_bytes=65536``); ``--timeout`` is the per-sub-request timeout after
which a part becomes a 504 (MB-PROXY-2).
"""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any

from mixbatch.codec import Limits
from mixbatch.proxy import (
    BATCH_PATH,
    CONNECT_TIMEOUT,
    MAX_CONNECTIONS,
    MAX_PIPELINE_DEPTH,
    SUBREQUEST_TIMEOUT,
    ProxyConfig,
    Upstream,
    serve_proxy,
)

from ._service import run_service

__all__ = ["add_parser", "config_from_args", "parse_limits", "run"]

_LIMIT_NAMES = tuple(f.name for f in dataclasses.fields(Limits))
#: The budget options' defaults, read from the one place that declares them.
_BUDGET_DEFAULTS = ProxyConfig(Upstream.parse("http://127.0.0.1"))


def parse_limits(text: str | None) -> Limits:
    """``Limits`` from ``name=value,name=value``; raises ValueError naming the bad member."""
    if not text:
        return Limits()
    values: dict[str, int] = {}
    for member in text.split(","):
        name, sep, raw = member.strip().partition("=")
        if not sep or name not in _LIMIT_NAMES:
            raise ValueError(
                f"--limits member {member.strip()!r} is not NAME=VALUE with NAME one of "
                f"{', '.join(_LIMIT_NAMES)}"
            )
        try:
            values[name] = int(raw)
        except ValueError:
            raise ValueError(f"--limits {name} must be an integer, got {raw!r}") from None
    return Limits(**values)


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "proxy", help="run the batching proxy in front of an origin that knows nothing of batches"
    )
    parser.add_argument(
        "--upstream", required=True, help="the one origin to forward to, e.g. http://127.0.0.1:8000"
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (%(default)s)")
    parser.add_argument(
        "--port", type=int, default=8081, help="port to bind, 0 for any (%(default)s)"
    )
    parser.add_argument(
        "--batch-path", default=BATCH_PATH, help="path of the batch endpoint (%(default)s)"
    )
    parser.add_argument(
        "--limits",
        metavar="NAME=VALUE,...",
        help=f"batch limits to enforce and publish ({', '.join(_LIMIT_NAMES)})",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=SUBREQUEST_TIMEOUT,
        help="seconds one sub-request may take before its part is a 504 (%(default)s)",
    )
    parser.add_argument(
        "--connect-timeout",
        type=float,
        default=CONNECT_TIMEOUT,
        help="seconds to open an upstream connection before the part is a 502 (%(default)s)",
    )
    parser.add_argument(
        "--max-connections",
        type=int,
        default=MAX_CONNECTIONS,
        help="upstream keep-alive connections at most (%(default)s)",
    )
    parser.add_argument(
        "--pipeline-depth",
        type=int,
        default=MAX_PIPELINE_DEPTH,
        help="safe sub-requests pipelined on one connection at most (%(default)s)",
    )
    for name, doc in (
        ("max_batches_in_flight", "most batches held at once; more get 503"),
        ("max_batch_bytes_in_flight", "most octets of batch content held at once"),
        ("busy_retry_after", "Retry-After seconds of a 503 for a batch over that budget"),
    ):
        parser.add_argument(
            "--" + name.replace("_", "-"),
            type=int,
            default=getattr(_BUDGET_DEFAULTS, name),
            help=f"{doc} (%(default)s)",
        )
    parser.add_argument(
        "--log-level",
        default="INFO",
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        help="log level (%(default)s); logs go to stderr",
    )
    parser.set_defaults(run=run)


def config_from_args(args: argparse.Namespace) -> ProxyConfig:
    """The ``ProxyConfig`` the parsed options describe; raises ValueError if invalid."""
    return ProxyConfig(
        Upstream.parse(args.upstream),
        host=args.host,
        port=args.port,
        batch_path=args.batch_path,
        limits=parse_limits(args.limits),
        subrequest_timeout=args.timeout,
        connect_timeout=args.connect_timeout,
        max_connections=args.max_connections,
        max_pipeline_depth=args.pipeline_depth,
        max_batches_in_flight=args.max_batches_in_flight,
        max_batch_bytes_in_flight=args.max_batch_bytes_in_flight,
        busy_retry_after=args.busy_retry_after,
    )


def run(args: argparse.Namespace) -> int:
    return run_service("proxy", args, config_from_args, serve_proxy)
