"""``/delay/{ms}``: answers after sleeping ms milliseconds (at most the configured cap).

It gives tests and benchmarks a slow part without a slow machine: head-of-line blocking,
whole-batch timeouts and graceful shutdown with a request in flight all use it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping

from mixbatch._http.messages import Request, Response
from mixbatch._http.problems import problem

from .._router import Route

__all__ = ["routes"]


def routes(max_ms: int) -> list[Route]:
    """The /delay/{ms} route, refusing ms above ``max_ms``."""

    async def delay(request: Request, params: Mapping[str, str]) -> Response:
        raw = params["ms"]
        if not (raw.isascii() and raw.isdigit()) or len(raw) > 9 or int(raw) > max_ms:
            return problem(
                400, "invalid-delay", f"{raw!r} is not a delay of 0 to {max_ms} milliseconds"
            )
        await asyncio.sleep(int(raw) / 1000)
        body = json.dumps({"delayed_ms": int(raw)}, separators=(",", ":")).encode("ascii")
        return Response(200, [("Content-Type", "application/json")], body)

    return [Route("/delay/{ms}", {"GET": delay, "POST": delay})]
