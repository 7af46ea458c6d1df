"""A request written in pieces with a pause between each, on a connection of its own, for the
checks that judge what a server does with content that arrives over time (MB-SEC-1's budget
counted from the first octet, MB-INTER-5's chunked content read across reads)."""

from __future__ import annotations

import time

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.transport.http import (
    Exchange,
    ResponseError,
    TargetUnreachable,
    connect,
    read_response,
)

__all__ = ["split_evenly", "trickled"]


def split_evenly(body: bytes, count: int) -> list[bytes]:
    """`body` in `count` pieces of equal size (the last one shorter), fewer for a short body."""
    size = -(-len(body) // count)
    return [body[i : i + size] for i in range(0, len(body), size)]


def trickled(
    ctx: Context, judge: Judge, head: bytes, pieces: list[bytes], gap: float
) -> tuple[Exchange, float]:
    """Send `head` with the first piece, then each piece `gap` seconds after the one before;
    the exchange and the seconds from the first octet sent to the end of the answer."""
    request = head + b"".join(pieces)
    start = time.monotonic()
    try:
        sock = connect(ctx.host, ctx.port, ctx.timeout_for(judge), ctx.tls)
    except (OSError, TargetUnreachable) as exc:
        return Exchange(request, None, f"{type(exc).__name__}: {exc}"), 0.0
    try:
        sock.sendall(head + pieces[0])
        for piece in pieces[1:]:
            time.sleep(gap)
            sock.sendall(piece)
        resp = read_response(sock.makefile("rb"), "POST")
    except (ResponseError, OSError) as exc:
        error = f"{type(exc).__name__}: {exc}"
        raw = getattr(exc, "received", b"")
        return Exchange(request, None, error, raw=raw), time.monotonic() - start
    finally:
        sock.close()
    return Exchange(request, resp), time.monotonic() - start
