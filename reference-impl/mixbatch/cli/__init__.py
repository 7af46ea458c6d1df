"""The ``mixbatch`` command line: ``serve``, ``send``, ``inspect``, ``conformance``, ``proxy``.

Each subcommand lives in its own module with an ``add_parser(subparsers)`` that declares its
options (with help text) and a ``run(args) -> int`` that returns the exit status; ``send``'s
command line, request, exchange and exit statuses sit beside it in ``_send_*`` modules. Two commands
read their own argument list: ``conformance`` forwards it to ``mixbatch_conformance.cli.main``,
imported only when used, so the suite's options are its own; ``send`` ties each per-part option
to the sub-request before it, which needs the list in order. Both are still declared here, so
``mixbatch --help`` lists them.

Every command exits 2 on a usage error. A closed stdout (``mixbatch send ... | head -1``) is not
a failure of the command: it stops quietly with ``EXIT_BROKEN_PIPE``, the status a shell reports
for a process ended by SIGPIPE, as other Unix tools do.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from mixbatch import __version__, spec_version

from . import _conformance, _inspect, _proxy, _send, _serve
from ._display import exit_status_epilog

__all__ = ["EXIT_BROKEN_PIPE", "build_parser", "main", "version_text"]

_COMMANDS = (_serve, _send, _inspect, _conformance, _proxy)
#: Commands that parse their own argument list.
_SELF_PARSING: dict[str, Callable[[list[str]], int]] = {
    _conformance.NAME: _conformance.dispatch,
    _send.NAME: _send.main,
}
#: 128 + SIGPIPE (13): what a shell reports for a writer whose reader went away.
EXIT_BROKEN_PIPE = 141
#: ``serve`` and ``proxy`` exit through ``_service.run_service``.
_SERVICE_EXIT_STATUSES = {
    0: "stopped by SIGINT or SIGTERM after a graceful shutdown",
    1: "the address cannot be bound",
    2: "usage error or an invalid option value",
}
_EXIT_STATUSES = {"serve": _SERVICE_EXIT_STATUSES, "proxy": _SERVICE_EXIT_STATUSES}
_TOP_EPILOG = (
    "Every command exits 2 on a usage error, and 141 without a message when its output is "
    "closed early (e.g. piped into head). Each command's --help lists its exit statuses."
)


def version_text() -> str:
    """``mixbatch X.Y.Z (spec draft-NN)``: the package version and the spec it implements."""
    return f"mixbatch {__version__} (spec {spec_version()})"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mixbatch",
        description="Batch HTTP requests in one multipart/mixed message.",
        epilog=_TOP_EPILOG,
    )
    parser.add_argument(
        "--version",
        action="version",
        version=version_text(),
        help="print the package version and the spec version it implements, then exit",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in _COMMANDS:
        command.add_parser(subparsers)
    for name, statuses in _EXIT_STATUSES.items():
        sub = subparsers.choices[name]
        sub.epilog = exit_status_epilog(statuses)
        sub.formatter_class = argparse.RawDescriptionHelpFormatter
    return parser


def _silence_stdout() -> None:
    """Point stdout at /dev/null so that the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass  # stdout is not a file descriptor (e.g. captured); nothing to flush later


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    try:
        run = _SELF_PARSING.get(args_list[0]) if args_list else None
        if run is not None:
            status = run(args_list[1:])
        else:
            args = build_parser().parse_args(args_list)
            status = args.run(args)
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    return int(status)
