"""The ``mixbatch`` command line: ``serve``, ``send``, ``inspect`` and ``conformance``.

Each subcommand lives in its own module with an ``add_parser(subparsers)`` that declares its
options (with help text) and a ``run(args) -> int`` that returns the exit status. ``conformance``
forwards its whole argument list to ``mixbatch_conformance.cli.main``, imported only when used,
so the suite's options are its own.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import _conformance, _inspect, _proxy, _send, _serve

__all__ = ["build_parser", "main"]

_COMMANDS = (_serve, _send, _inspect, _conformance, _proxy)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mixbatch",
        description="Batch HTTP requests in one multipart/mixed message.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in _COMMANDS:
        command.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] == _conformance.NAME:
        # The suite parses its own options, including --help.
        return _conformance.dispatch(args_list[1:])
    args = build_parser().parse_args(args_list)
    status: int = args.run(args)
    return status
