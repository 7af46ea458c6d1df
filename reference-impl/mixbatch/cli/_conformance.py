"""``mixbatch conformance ...``: run the conformance suite (``mixbatch_conformance``).

The suite is a separate package; it is imported only when this subcommand runs. A missing suite,
or a suite whose own dependencies (the ``conformance`` extra) are not installed, is reported in
one line with exit status 2 rather than a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from typing import Any

__all__ = ["HINT", "NAME", "SUITE_DEPENDENCIES", "add_parser", "dispatch"]

NAME = "conformance"
#: Exit status when the suite is not installed (2: a usage or environment error, as argparse).
MISSING_SUITE = 2
_MODULE = "mixbatch_conformance.cli"
#: The top-level modules the suite needs beyond the core install: ``mixbatch[conformance]``.
SUITE_DEPENDENCIES = frozenset({"h2", "hypothesis", "jsonschema", "pytest", "rich"})
HINT = "install mixbatch[conformance]"


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        NAME,
        help="run the conformance suite against a server (options: mixbatch conformance --help)",
        add_help=False,
    )
    parser.add_argument("suite_args", nargs=argparse.REMAINDER, help="passed to the suite")
    parser.set_defaults(run=lambda args: dispatch(args.suite_args))


def dispatch(argv: list[str]) -> int:
    """Call ``mixbatch_conformance.cli.main(argv)``; 2 if the suite is not installed."""
    try:
        found = importlib.util.find_spec(_MODULE) is not None
    except (ModuleNotFoundError, ValueError):
        found = False
    if not found:
        print(
            f"mixbatch conformance: the conformance suite ({_MODULE}) is not installed: {HINT}",
            file=sys.stderr,
        )
        return MISSING_SUITE
    try:
        module = importlib.import_module(_MODULE)
        status = module.main(argv)
    except ModuleNotFoundError as error:
        missing = (error.name or "").partition(".")[0]
        if missing not in SUITE_DEPENDENCIES:
            raise
        print(
            f"mixbatch conformance: the suite needs {missing}, which is not installed: {HINT}",
            file=sys.stderr,
        )
        return MISSING_SUITE
    return int(status or 0)
