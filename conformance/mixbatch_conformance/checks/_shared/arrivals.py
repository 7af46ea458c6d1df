"""An answer read as it arrives, each event with the time it came, and the quick and slow parts
it is asked for, for the checks that judge when parts are written (MB-PROC-4).

Theory of operation: the request is sent whole on a connection of its own, and h11 reads the
answer; each event is handed on with the seconds since the request was sent: the head (an
`h11.Response`), each piece of content as h11 frees it from the transfer coding (bytes), and
`None` once the answer has ended. A connection closed before the answer ended yields nothing
more. `quick_and_slow` gives the batch such a check sends: a GET of `ok`, then a GET of the
delay resource for the wait asked, or N/A where the timing cannot be read (TLS, HTTP/2) or the
wait would outlast the batch's declared time limit or the delay resource's declared largest.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import h11

from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.transport.http import connect

__all__ = ["Arrival", "arrivals", "quick_and_slow"]

#: The head of the answer, a piece of its content, or None at its end.
Arrival = h11.Response | bytes | None


def arrivals(ctx: Context, request: bytes) -> Iterator[tuple[float, Arrival]]:
    """Each event of the answer to `request`, with the seconds since it was sent."""
    conn = h11.Connection(h11.CLIENT)
    started = time.monotonic()
    with connect(ctx.host, ctx.port, ctx.timeout) as sock:
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


def quick_and_slow(
    ctx: Context, judge: Judge, delay_ms: int, version: str = "HTTP/1.1"
) -> tuple[SubRequest, SubRequest]:
    """A quick part (a GET of `ok`) and a slow one (the delay resource for `delay_ms`), or N/A
    when the timing cannot be read or the slow part would outlast what the target declares."""
    if ctx.tls is not None or ctx.settings.http2:
        judge.not_applicable(f"the timing is read from a plain {version} connection")
    limit = ctx.target.batch_timeout_ms
    if limit is not None and limit <= delay_ms + 500:
        judge.not_applicable(f"the slow part would outlast the declared batch_timeout_ms {limit}")
    largest = ctx.target.delay_max_ms
    if largest is not None and largest < delay_ms:
        judge.not_applicable(f"the delay resource declares no wait as long as {delay_ms} ms")
    slow = ctx.path(ctx.resource(judge, "delay").replace("{ms}", str(delay_ms)))
    return SubRequest("GET", ctx.path(ctx.resource(judge, "ok"))), SubRequest("GET", slow)
