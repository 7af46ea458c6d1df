"""``/echo``: reflects the request as the handler saw it, as JSON.

The document holds the method, the origin-form target, the authority the request was addressed
to (its Host, or the enclosing batch's for a sub-request), the end-to-end header fields in order
(names in their received case) and the content: as text when it is UTF-8, else as base64. Host
and framing fields are not among the fields: they belong to the connection, not the request,
and a sub-request has none of them. The authority lets a batching proxy's origin show that the
proxy named the origin in Host (MB-PROXY-4). A test that sends the same request alone and inside a batch and
compares the two echoes therefore checks exactly what a handler can observe.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import Any

from mixbatch._http.messages import Request, Response
from mixbatch._http.problems import problem

from .._router import Route

__all__ = ["MAX_ECHO_BYTES", "routes"]

#: The echo keeps the request content in memory, so it accepts at most 1 MiB.
MAX_ECHO_BYTES = 1024 * 1024


async def _echo(request: Request, params: Mapping[str, str]) -> Response:
    content = await request.body.read(MAX_ECHO_BYTES)
    document: dict[str, Any] = {
        "method": request.method,
        "target": request.target,
        "authority": request.authority,
        "headers": [[name, value] for name, value in request.headers],
    }
    try:
        document["body"] = content.decode("utf-8")
    except UnicodeDecodeError:
        document["body_base64"] = base64.b64encode(content).decode("ascii")
    body = json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return Response(200, [("Content-Type", "application/json")], body)


#: Methods no sub-request may carry (MB-SUB-3), so the echo has no reason to answer them.
NOT_ECHOED = frozenset({"CONNECT", "TRACE"})


async def _echo_extension(request: Request, params: Mapping[str, str]) -> Response:
    """MB-TEST-2: the echo answers "every request ... whose method a sub-request may carry",
    which is any method token but CONNECT and TRACE: PROPFIND or an unregistered one alike."""
    if request.method in NOT_ECHOED:
        allow = ", ".join(sorted({*_METHODS, "HEAD"}))
        return problem(
            405,
            "method-not-allowed",
            f"{request.method} is not allowed on {request.path!r}",
            headers=[("Allow", allow)],
        )
    return await _echo(request, params)


_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "QUERY", "OPTIONS")


def routes() -> list[Route]:
    """The /echo route, answering every method a sub-request may carry."""
    return [Route("/echo", dict.fromkeys(_METHODS, _echo), on_unlisted=_echo_extension)]
