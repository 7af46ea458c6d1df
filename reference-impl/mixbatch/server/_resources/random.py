"""``/random/{n}``: exactly n random octets, the thesis' workload (ch. 5.2: "random/1024 would
return 1024 bytes of body").

``?seed=S`` makes the octets a deterministic function of S and n, so that the same request always
gets the same answer; this is what lets a test compare a sub-request with the same request sent
alone. Without a seed the octets come from ``os.urandom``: up to ``POOLED_MAX_BYTES`` they are a
slice, at a random offset, of one block of ``POOL_BYTES`` drawn from it when the process starts,
and above that they are drawn afresh. MB-TEST-5 asks for exactly n octets and lets them differ
from one request to the next; drawing 1 KiB from the kernel costs more than everything else a
small GET does, and this resource is a workload, not a source of secrets. n above the
configured cap is 413.
"""

from __future__ import annotations

import os
import random as _random
from collections.abc import Mapping
from urllib.parse import parse_qs

from mixbatch._http.messages import Request, Response
from mixbatch._http.problems import problem

from .._router import Route

__all__ = ["POOLED_MAX_BYTES", "POOL_BYTES", "routes"]

#: Octets drawn from os.urandom once, which small unseeded answers are sliced from.
POOL_BYTES = 1024 * 1024
#: The largest unseeded answer sliced from the pool: 1/16 of it, so that offsets vary widely.
POOLED_MAX_BYTES = 64 * 1024
_POOL = os.urandom(POOL_BYTES)
# Picks offsets only; seeded from os.urandom by default.
_offset = _random.Random().random
#: The fields of every answer, copied into each (a HEAD answer gains Content-Length).
_FIELDS = (("Content-Type", "application/octet-stream"), ("Cache-Control", "no-store"))


def _unseeded(size: int) -> bytes:
    if size > POOLED_MAX_BYTES:
        return os.urandom(size)
    start = int(_offset() * (POOL_BYTES - size + 1))
    return _POOL[start : start + size]


def routes(max_bytes: int) -> list[Route]:
    """The /random/{n} route, refusing n above ``max_bytes``."""

    # It never waits, so it answers at once rather than as a coroutine (``Handler``).
    def get_random(request: Request, params: Mapping[str, str]) -> Response:
        raw = params["n"]
        if not raw.isdigit() or len(raw) > 12:
            return problem(400, "invalid-size", f"{raw!r} is not a decimal octet count")
        size = int(raw)
        if size > max_bytes:
            return problem(
                413,
                "content-too-large",
                f"{size} octets is over the limit of {max_bytes}",
                max_bytes=max_bytes,
            )
        _, _, query = request.target.partition("?")
        seeds = parse_qs(query).get("seed") if query else None
        # A seeded generator is not for secrets, only for reproducible test payloads.
        body = _random.Random(f"{seeds[0]}/{size}").randbytes(size) if seeds else _unseeded(size)
        return Response(200, list(_FIELDS), body)

    return [Route("/random/{n}", {"GET": get_random})]
