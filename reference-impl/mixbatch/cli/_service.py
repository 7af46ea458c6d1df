"""What ``mixbatch serve`` and ``mixbatch proxy`` share: build the config from the options,
set up logging, run the service until a signal, and map failures to exit codes (2 for an
invalid option, 1 when the address cannot be bound)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Callable, Coroutine
from typing import Any

__all__ = ["run_service"]


def run_service[Config](
    command: str,
    args: argparse.Namespace,
    config_from_args: Callable[[argparse.Namespace], Config],
    serve: Callable[[Config], Coroutine[Any, Any, None]],
) -> int:
    try:
        config = config_from_args(args)
    except ValueError as exc:
        print(f"mixbatch {command}: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level=args.log_level, format="%(asctime)s %(name)s %(message)s")
    try:
        asyncio.run(serve(config))
    except KeyboardInterrupt:
        pass
    except OSError as exc:
        print(
            f"mixbatch {command}: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr
        )
        return 1
    return 0
