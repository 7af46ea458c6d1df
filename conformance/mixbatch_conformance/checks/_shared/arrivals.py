"""An answer read as it arrives, each event with the time it came, for the checks that judge
when parts are written (MB-PROC-4).

Theory of operation: the request is sent whole on a connection of its own, and h11 reads the
answer; each event is handed on with the seconds since the request was sent: the head (an
`h11.Response`), each piece of content as h11 frees it from the transfer coding (bytes), and
`None` once the answer has ended. A connection closed before the answer ended yields nothing
more.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import h11

from mixbatch_conformance.core.context import Context

__all__ = ["Arrival", "arrivals"]

#: The head of the answer, a piece of its content, or None at its end.
Arrival = h11.Response | bytes | None


def arrivals(ctx: Context, request: bytes) -> Iterator[tuple[float, Arrival]]:
    """Each event of the answer to `request`, with the seconds since it was sent."""
    conn = h11.Connection(h11.CLIENT)
    started = time.monotonic()
    with socket.create_connection((ctx.host, ctx.port), timeout=ctx.timeout) as sock:
        sock.sendall(request)
        # h11 is told of a request so it reads the answer; what went out is `request` itself.
        conn.send(h11.Request(method="POST", target="/", headers=[("Host", "x")]))
        conn.send(h11.EndOfMessage())
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                chunk = sock.recv(65536)
                conn.receive_data(chunk)
                if not chunk:
                    break
                continue
            if isinstance(event, h11.Response):
                yield time.monotonic() - started, event
            elif isinstance(event, h11.Data):
                yield time.monotonic() - started, bytes(event.data)
            else:
                if isinstance(event, h11.EndOfMessage):
                    yield time.monotonic() - started, None
                break
