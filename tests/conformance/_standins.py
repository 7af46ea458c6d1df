"""Stand-in servers for checks whose planted bug the relay cannot model.

`serving` runs a `socketserver` server on a loopback port in a daemon thread for the length of
a `with` block, so a test can hand a check a server with exactly the fault it is meant to see.
"""

from __future__ import annotations

import contextlib
import socketserver
import threading
from collections.abc import Iterator

__all__ = ["StandIn", "serving"]


class StandIn(socketserver.ThreadingTCPServer):
    """A threaded TCP server whose handler threads end with the test."""

    daemon_threads = True
    allow_reuse_address = True


@contextlib.contextmanager
def serving[S: socketserver.BaseServer](server: S) -> Iterator[S]:
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
