"""python3 -m mbserver --port N [--host H] [--batch-timeout-ms MS]"""

import argparse
import os
import asyncio
import signal
import sys

from . import limits as L
from .server import App


async def main(args):
    app = None
    loop = asyncio.get_running_loop()
    app = App(args.batch_timeout_ms, None)
    server = await asyncio.start_server(app.connection, args.host, args.port,
                                        limit=L.MAX_HEADER_BYTES + 2, reuse_address=True)
    sock = server.sockets[0]
    port = sock.getsockname()[1]
    shown = "127.0.0.1" if args.host in ("0.0.0.0", "127.0.0.1", "") else args.host
    app.default_authority = f"{shown}:{port}" if ":" not in shown else f"[{shown}]:{port}"
    sys.stdout.write(f"mbserver listening on http://{shown}:{port}\n")
    sys.stdout.flush()
    done = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, done.set)
    await done.wait()
    app.stopping.set()          # running batches end with an abort part (MB-STATUS-6)
    server.close()
    await asyncio.sleep(0.2)
    for t in list(app.conns):
        t.cancel()
    await asyncio.wait_for(asyncio.gather(*app.conns, return_exceptions=True), 0.3) if app.conns else None


def parse(argv):
    p = argparse.ArgumentParser(prog="mbserver", description="A mixbatch batch server.")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=18291)
    p.add_argument("--batch-timeout-ms", type=int, default=L.DEFAULT_BATCH_TIMEOUT_MS)
    a = p.parse_args(argv)
    if a.batch_timeout_ms < 1:
        p.error("--batch-timeout-ms must be at least 1")
    return a


if __name__ == "__main__":
    try:
        asyncio.run(main(parse(sys.argv[1:])))
    except KeyboardInterrupt:
        pass
    # Everything is closed; skip the interpreter's slow teardown so that SIGTERM ends
    # the process well within a second.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
