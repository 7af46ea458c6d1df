"""``mixbatch send URL METHOD TARGET [part options] ...``: send a batch, show each answer.

This module is the command: it reads the command line (``_send_args``), builds the batch
request (``_send_request``), runs one exchange (``_send_exchange``) and returns its exit status
(``_send_exits``). Each part is shown as soon as it is complete: as text for a person, or with
``--json`` as one JSON object per line (``_display``). ``--raw`` writes the response octets
exactly as received instead.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from mixbatch.client import BatchProtocolError
from mixbatch.codec import MixbatchError

from ._display import HumanOutput, JsonOutput, Output, exit_status_epilog
from ._send_args import PartOption, UsageError, declare_options, split_argv
from ._send_exchange import NetworkError, connect, exchange, request_octets
from ._send_exits import EXIT_NETWORK, EXIT_PROTOCOL, EXIT_STATUSES, EXIT_USAGE
from ._send_request import batch_fields, build_request

__all__ = [
    "EXIT_STATUSES",
    "NAME",
    "PartOption",
    "UsageError",
    "add_parser",
    "build_request",
    "main",
    "parse_args",
    "split_argv",
]

NAME = "send"


def _description() -> str:
    return (
        "Send a batch and print each response part as it arrives.\n\n"
        "example:\n"
        "  mixbatch send http://127.0.0.1:8080/batch GET /books/1 \\\n"
        "      POST /books -H 'Content-Type: application/json' --data '{\"title\": \"T\"}'"
    )


def _parser_options() -> dict[str, Any]:
    return {
        "description": _description(),
        "epilog": exit_status_epilog(EXIT_STATUSES),
        "formatter_class": argparse.RawDescriptionHelpFormatter,
        "allow_abbrev": False,  # an abbreviated option would hide whether it takes a value
    }


def _configure(parser: argparse.ArgumentParser) -> frozenset[str]:
    """Declare send's options and its ``run``; returns the global options that take a value."""
    valued = declare_options(parser)
    parser.set_defaults(run=run)
    return valued


def add_parser(subparsers: Any) -> None:
    """Declare ``send`` for ``mixbatch --help``; ``main`` parses its arguments itself."""
    parser = subparsers.add_parser(
        NAME, help="send a batch and print each response part", **_parser_options()
    )
    _configure(parser)


def _standalone_parser() -> tuple[argparse.ArgumentParser, frozenset[str]]:
    parser = argparse.ArgumentParser(prog=f"mixbatch {NAME}", **_parser_options())
    return parser, _configure(parser)


def parse_args(argv: Sequence[str]) -> tuple[argparse.Namespace, list[PartOption]]:
    """Parse send's command line (argparse exits 2 on a usage error, as usual)."""
    parser, valued = _standalone_parser()
    try:
        rest, options = split_argv(argv, valued)
    except UsageError as exc:
        parser.error(str(exc))
    return parser.parse_intermixed_args(rest), options


def run(args: argparse.Namespace, options: Sequence[PartOption] = ()) -> int:
    url = urlsplit(args.url)
    if url.scheme != "http" or not url.hostname:
        print(f"mixbatch send: only http:// URLs are supported, got {args.url!r}", file=sys.stderr)
        return EXIT_USAGE
    port = url.port or 80
    target = (url.path or "/") + (f"?{url.query}" if url.query else "")
    try:
        content_type, content, expected = build_request(args, options)
        headers = batch_fields(args, url.netloc, content_type, len(content))
    except UsageError as exc:
        print(f"mixbatch send: {exc}", file=sys.stderr)
        return EXIT_USAGE
    request = request_octets(target, headers, content)
    out = sys.stdout
    output: Output = JsonOutput(out) if args.json else HumanOutput(out, args.max_body)
    try:
        with connect(url.hostname, port, args.timeout) as sock:
            return exchange(args, sock, request, output, sys.stdout.buffer, expected)
    except NetworkError as exc:
        print(f"mixbatch send: {args.url}: {exc}", file=sys.stderr)
        return EXIT_NETWORK
    except (MixbatchError, BatchProtocolError) as exc:
        output.fault(exc)
        output.end([], EXIT_PROTOCOL)
        return EXIT_PROTOCOL


def main(argv: Sequence[str]) -> int:
    """``mixbatch send`` with its own argument list (the per-part options need their order)."""
    args, options = parse_args(argv)
    return run(args, options)
