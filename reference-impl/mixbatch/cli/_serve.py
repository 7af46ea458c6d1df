"""``mixbatch serve``: run the reference server until interrupted.

Prints ``mixbatch listening on http://HOST:PORT`` on one line once bound (``--port 0`` picks an
ephemeral port), so scripts and tests can read the port from it. Every limit and timeout of
``ServerConfig`` can be set from the command line.
"""

from __future__ import annotations

import argparse
from typing import Any

from mixbatch.codec import Limits
from mixbatch.server import ServerConfig, serve

from ._service import run_service

__all__ = ["add_parser", "config_from_args", "run"]

_defaults = ServerConfig()
_limits = Limits()


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("serve", help="run the reference server")
    parser.add_argument("--host", default=_defaults.host, help="address to bind (%(default)s)")
    parser.add_argument(
        "--port", type=int, default=_defaults.port, help="port to bind, 0 for any (%(default)s)"
    )
    limits = parser.add_argument_group("batch limits (published by OPTIONS /batch)")
    for name, doc in (
        ("max_parts", "most parts in one batch"),
        ("max_batch_bytes", "most octets of batch content"),
        ("max_part_bytes", "most octets of one part body"),
        ("max_part_header_bytes", "most octets of one part header section"),
        ("max_part_fields", "most field lines in one part header section"),
    ):
        limits.add_argument(
            "--" + name.replace("_", "-"),
            type=int,
            default=getattr(_limits, name),
            help=f"{doc} (%(default)s)",
        )
    conn = parser.add_argument_group("connection limits and timeouts (seconds)")
    for name, kind, doc in (
        ("max_request_header_bytes", int, "most octets of a request header section"),
        ("max_request_body_bytes", int, "most octets of a standalone request body"),
        ("header_read_timeout", float, "time allowed for a request header section"),
        ("idle_timeout", float, "time an idle keep-alive connection stays open"),
        ("body_read_timeout", float, "longest wait for the next chunk of a request body"),
        ("max_discard_bytes", int, "most octets of refused content read after the response"),
        ("discard_timeout", float, "time allowed for reading refused content"),
        ("batch_timeout", float, "time allowed for one whole batch"),
        ("shutdown_grace", float, "time in-flight requests get on shutdown"),
        ("max_batches_in_flight", int, "most batches held at once; more get 503"),
        ("max_batch_bytes_in_flight", int, "most octets of batch content held at once"),
        ("busy_retry_after", int, "Retry-After seconds of a 503 for a batch over that budget"),
    ):
        conn.add_argument(
            "--" + name.replace("_", "-"),
            type=kind,
            default=getattr(_defaults, name),
            help=f"{doc} (%(default)s)",
        )
    front = parser.add_argument_group(
        "behind a TLS terminator or HTTP/2 front end (absolute part targets, MB-SUB-2)"
    )
    front.add_argument(
        "--public-origin",
        metavar="URL",
        default=None,
        help="the origin clients reach the server at, e.g. https://api.example.test; a "
        "request whose Host names its authority is taken to use its scheme (default: the "
        "request's own, http)",
    )
    front.add_argument(
        "--trust-forwarded",
        action="store_true",
        help="take the request's scheme and host from Forwarded (proto, host) or "
        "X-Forwarded-Proto / X-Forwarded-Host; only when the front end alone reaches the "
        "server and sets those fields itself, since a client could forge them (off)",
    )
    parser.add_argument(
        "--data",
        metavar="DIR",
        default=None,
        help="directory of the demo resources' SQLite database, kept across restarts "
        "(default: a temporary directory removed on exit)",
    )
    parser.add_argument(
        "--log-level",
        default="INFO",
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        help="access and error log level (%(default)s); logs go to stderr",
    )
    parser.set_defaults(run=run)


def config_from_args(args: argparse.Namespace) -> ServerConfig:
    """The ``ServerConfig`` the parsed options describe; raises ValueError if invalid."""
    limits = Limits(
        max_parts=args.max_parts,
        max_batch_bytes=args.max_batch_bytes,
        max_part_bytes=args.max_part_bytes,
        max_part_header_bytes=args.max_part_header_bytes,
        max_part_fields=args.max_part_fields,
    )
    return ServerConfig(
        host=args.host,
        port=args.port,
        limits=limits,
        max_request_header_bytes=args.max_request_header_bytes,
        max_request_body_bytes=args.max_request_body_bytes,
        header_read_timeout=args.header_read_timeout,
        idle_timeout=args.idle_timeout,
        body_read_timeout=args.body_read_timeout,
        max_discard_bytes=args.max_discard_bytes,
        discard_timeout=args.discard_timeout,
        batch_timeout=args.batch_timeout,
        shutdown_grace=args.shutdown_grace,
        max_batches_in_flight=args.max_batches_in_flight,
        max_batch_bytes_in_flight=args.max_batch_bytes_in_flight,
        busy_retry_after=args.busy_retry_after,
        data_dir=args.data,
        public_origin=args.public_origin,
        trust_forwarded=args.trust_forwarded,
    )


def run(args: argparse.Namespace) -> int:
    return run_service("serve", args, config_from_args, serve)
