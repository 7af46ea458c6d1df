"""``/status/{code}``: answers with the status code it is asked for (200-599).

The content is a small JSON document naming the status, except for 204 and 304, which carry no
content (RFC 9110 §15.3.5, §15.4.5). Codes outside 200-599 are 400: 1xx are not final responses.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from mixbatch._http.messages import Request, Response
from mixbatch._http.problems import problem, reason

from .._router import Route

__all__ = ["routes"]

_NO_CONTENT = frozenset({204, 304})


async def _status(request: Request, params: Mapping[str, str]) -> Response:
    raw = params["code"]
    # DIGIT is US-ASCII (RFC 5234 B.1): str.isdigit alone would take other scripts' digits.
    if not (len(raw) == 3 and raw.isascii() and raw.isdigit() and 200 <= int(raw) <= 599):
        return problem(400, "invalid-status", f"{raw!r} is not a final status code (200-599)")
    code = int(raw)
    if code in _NO_CONTENT:
        return Response(code)
    body = json.dumps({"status": code, "reason": reason(code)}, separators=(",", ":"))
    return Response(code, [("Content-Type", "application/json")], body.encode("ascii"))


def routes() -> list[Route]:
    """The /status/{code} route for the methods a test is likely to send."""
    methods = ("GET", "POST", "PUT", "PATCH", "DELETE")
    return [Route("/status/{code}", dict.fromkeys(methods, _status))]
