"""Stand-in servers for checks whose planted bug the relay cannot model.

`serving` runs a `socketserver` server on a loopback port in a daemon thread for the length of
a `with` block, so a test can hand a check a server with exactly the fault it is meant to see.
"""

from __future__ import annotations

import contextlib
import socketserver
import threading
from collections.abc import Iterator

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.target import Target

__all__ = ["StandIn", "serving", "standin_context"]


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


def standin_context(server: socketserver.BaseServer, *profiles: str) -> Context:
    """A suite context for `server` on loopback: its batch endpoint at /batch, `ok`, `not_found`
    and `echo` at /ok, /missing and /echo, the core profile and `profiles`."""
    port = server.server_address[1]
    return Context(
        Target(
            f"http://127.0.0.1:{port}",
            batch_endpoint="/batch",
            resources={"ok": "/ok", "not_found": "/missing", "echo": "/echo"},
            profiles=frozenset({"core", *profiles}),
            timeout=5.0,
        )
    )
