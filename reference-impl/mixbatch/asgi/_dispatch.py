"""Running one part in-process as a full ASGI HTTP request to the wrapped application.

MB-SUB-1: "A server MUST subject each sub-request to the same routing, authentication,
authorisation, rate-limit, input-validation and audit checks as the same request sent on its
own". The middleware therefore never calls a route handler: it calls the whole wrapped
application with a fresh HTTP scope, exactly what the ASGI server would have built for the
standalone request (method, percent-decoded path and raw path, query string, the batch's
scheme, client and server, Host), so every middleware, dependency and auth check of the app
runs for the part as it would alone (the thesis' "recursive" requests, ch. 5.2).

The scope's headers are the part's own fields plus ``Host`` (the batch's authority: a part never
names another, MB-PART-9) and the inherited credentials (MB-SUB-5: ``Authorization`` and
``Cookie`` when the part has none of its own); no other outer field is applied (MB-SUB-6).
``receive`` hands out the part body once and then waits until the part is done, answering
``http.disconnect`` only afterwards, so streaming responses that watch for a disconnect behave
as they do on a live connection. The response is collected whole: a part needs its length.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from urllib.parse import unquote

from mixbatch._constants import PROBLEM_MEDIA_TYPE
from mixbatch.codec import HOP_BY_HOP_FIELDS, PART_CONTROL_FIELDS

from ._types import ASGIApp, Message, Scope

__all__ = ["FRAMING_FIELDS", "SubResponse", "build_scope", "run_part"]

_log = logging.getLogger("mixbatch.asgi")

#: MB-RESP-4: a response part carries the sub-response's fields "less hop-by-hop and framing
#: fields"; the part's own control fields may not be forged by the application either.
FRAMING_FIELDS = HOP_BY_HOP_FIELDS | PART_CONTROL_FIELDS


@dataclass(slots=True)
class SubResponse:
    """What the application answered to one part."""

    status: int
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""


def build_scope(
    outer: Scope,
    method: str,
    target: str,
    headers: Sequence[tuple[str, str]],
) -> Scope:
    """The HTTP scope of a sub-request, as an ASGI server would build it standalone."""
    raw_path, _, query = target.partition("?")
    scope: Scope = {
        "type": "http",
        "asgi": dict(outer.get("asgi") or {"version": "3.0"}),
        "http_version": outer.get("http_version", "1.1"),
        # MB-SUB-1: the method as the part wrote it. A method is case-sensitive (RFC 9110
        # §9.1), so `get` is not GET and must not run as GET where alone it would be refused.
        "method": method,
        "scheme": outer.get("scheme", "http"),
        "path": unquote(raw_path),
        "raw_path": raw_path.encode("ascii"),
        "query_string": query.encode("ascii"),
        "root_path": outer.get("root_path", ""),
        "headers": [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers],
        "client": outer.get("client"),
        "server": outer.get("server"),
        "extensions": {},
    }
    if "state" in outer:
        # Lifespan state: each request gets its own shallow copy, as servers give it.
        scope["state"] = dict(outer["state"])
    return scope


async def run_part(app: ASGIApp, scope: Scope, body: bytes) -> SubResponse:
    """Call ``app`` with ``scope`` and ``body``; a failure before a complete response is 500."""
    finished = asyncio.Event()
    delivered = False
    start: Message | None = None
    chunks: list[bytes] = []
    complete = False

    async def receive() -> Message:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        await finished.wait()
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        nonlocal start, complete
        kind = message["type"]
        if kind == "http.response.start":
            if start is not None:
                raise RuntimeError("the application started its response twice")
            start = message
        elif kind == "http.response.body":
            if start is None:
                raise RuntimeError("the application sent content before its response start")
            chunks.append(bytes(message.get("body", b"")))
            if not message.get("more_body", False):
                complete = True
        # Other messages (trailers, informational responses) have no place in a part:
        # MB-RESP-9 discards interim responses.

    try:
        await app(scope, receive, send)
    except Exception:
        if not complete:
            _log.exception("part %s %s failed", scope["method"], scope["path"])
            return _internal_error()
        # The app answered, then raised (Starlette's error middleware re-raises after its
        # 500 page): the answer stands, as it would on a live connection.
        _log.debug("part %s %s raised after responding", scope["method"], scope["path"])
    finally:
        finished.set()
    if start is None or not complete:
        return _internal_error()
    fields = [
        (k.decode("latin-1"), v.decode("latin-1"))
        for k, v in start.get("headers", [])
        if k.decode("latin-1").lower() not in FRAMING_FIELDS
    ]
    status = int(start["status"])
    # RFC 9110 §9.3.2: a HEAD response carries no content, nor does a 204 or 304 (§15.3.5,
    # §15.4.5). An ASGI server drops what the app sent anyway; here the middleware is the server.
    content = b"" if scope["method"] == "HEAD" or status in (204, 304) else b"".join(chunks)
    return SubResponse(status, fields, content)


def _internal_error() -> SubResponse:
    body = (
        b'{"type":"https://mixbatch.dev/problems/internal-error","title":"Internal Server Error",'
        b'"status":500,"detail":"the application failed before completing its response"}'
    )
    return SubResponse(500, [("Content-Type", PROBLEM_MEDIA_TYPE)], body)
