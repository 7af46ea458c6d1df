"""Run the mixbatch reference server for a benchmark, with the limits the scenario needs.

The scale scenario sends batches far above the default limits (64 MiB, 10,000 parts), so the
server must start with raised ones. This launcher builds ``ServerConfig`` through the server's
public API (``mixbatch.server.serve``) rather than through the CLI, so the benchmark does not
depend on the CLI's option names; the server code that runs is the same. It prints the server's
own announcement line, ``mixbatch listening on http://HOST:PORT``.
"""

from __future__ import annotations

import argparse
import asyncio

from mixbatch.codec import Limits
from mixbatch.server import ServerConfig, serve

__all__ = ["main"]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.reference_server", description=__doc__)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--max-parts", type=int, default=0, help="0 keeps the default")
    parser.add_argument("--max-batch-bytes", type=int, default=0, help="0 keeps the default")
    parser.add_argument("--max-part-bytes", type=int, default=0, help="0 keeps the default")
    args = parser.parse_args(argv)
    defaults = Limits()
    limits = Limits(
        max_parts=args.max_parts or defaults.max_parts,
        max_part_header_bytes=defaults.max_part_header_bytes,
        max_part_bytes=args.max_part_bytes or defaults.max_part_bytes,
        max_batch_bytes=args.max_batch_bytes or defaults.max_batch_bytes,
    )
    config = ServerConfig(
        host="127.0.0.1",
        port=args.port,
        limits=limits,
        # A 1 GiB batch takes longer to arrive than the default two minutes on a busy machine.
        batch_timeout=1800.0,
        body_read_timeout=120.0,
    )
    asyncio.run(serve(config))


if __name__ == "__main__":
    main()
