"""The router: one table from path patterns to per-method handlers, for every request.

Every standalone request and every sub-request is routed and answered by the very same method,
``Router.respond`` (thesis ch. 5.2: "one code path per operation"; MB-SUB-1: each sub-request
"passes the same routing ... checks as the same request sent alone"). A handler either returns
its ``Response`` (it never waits) or is a coroutine function; ``respond`` returns the response
itself in the first case and a coroutine in the second, so that a batch runs a part that never
waits as a plain call. ``Router.handle`` is ``respond`` awaited, for the connection.

A ``Route`` is a path pattern such as ``/books/{id}`` plus a mapping of method to handler.
Anything not in the table is an error response, never a guess: an unknown path is 404, a known
path with an unlisted method is 405 with ``Allow``. HEAD is answered by the GET handler with the
content dropped (RFC 9110 §9.3.2), OPTIONS by an empty 204 with ``Allow`` unless the route lists
its own. A handler that raises yields a 500 problem for that request alone. A HEAD response of
any status has its content dropped, and a request that repeats a field that is not a list
(``mixbatch._http.refusals.SINGLETON_FIELDS``) is answered 400.
"""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator, Awaitable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from mixbatch._http.messages import BodyReadError, BodyTooLarge, Handler, Request, Response
from mixbatch._http.problems import from_body_error, problem
from mixbatch._http.refusals import refuse_repeated_field

__all__ = ["MATCH_CACHE_PATH_MAX", "MATCH_CACHE_SIZE", "Route", "Router"]

#: Distinct paths whose match is remembered per router: the parts of a batch mostly repeat a
#: few targets, and a regular expression per request is most of routing's cost.
MATCH_CACHE_SIZE = 1024
#: Only paths up to this long are remembered, so the cache holds at most about 256 KiB of them
#: whatever paths clients send.
MATCH_CACHE_PATH_MAX = 256

_log = logging.getLogger("mixbatch.server")
_PARAM = re.compile(r"\{([a-z_]+)\}")


def _compile(pattern: str) -> re.Pattern[str]:
    parts: list[str] = []
    pos = 0
    for match in _PARAM.finditer(pattern):
        parts.append(re.escape(pattern[pos : match.start()]))
        parts.append(f"(?P<{match.group(1)}>[^/]+)")
        pos = match.end()
    parts.append(re.escape(pattern[pos:]))
    return re.compile("".join(parts))


def _first_segment(path: str) -> str:
    """The first segment of a path: ``books`` for ``/books/1``."""
    return path[1:].partition("/")[0]


def _literal_first_segment(pattern: str) -> str | None:
    """A pattern's first segment, or None when it holds a parameter (it matches any)."""
    segment = _first_segment(pattern)
    return None if "{" in segment else segment


@dataclass(frozen=True, slots=True)
class Route:
    """A path pattern with ``{name}`` segments and the handlers of each method it allows."""

    pattern: str
    handlers: Mapping[str, Handler]
    #: Answers methods not in ``handlers`` instead of the default 405 (it must still refuse).
    on_unlisted: Handler | None = None
    #: A batch endpoint: its refusals name the mixbatch requirement they answer under.
    batch: bool = False
    regex: re.Pattern[str] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.pattern.startswith("/"):
            raise ValueError(f"Route.pattern must start with '/', got {self.pattern!r}")
        if not self.handlers:
            raise ValueError(f"Route {self.pattern!r} has no handlers")
        object.__setattr__(self, "regex", _compile(self.pattern))

    def allow(self) -> str:
        methods = set(self.handlers)
        if "GET" in methods:
            methods.add("HEAD")
        methods.add("OPTIONS")
        return ", ".join(sorted(methods))


class Router:
    """Dispatches requests to the first route whose pattern matches the whole path."""

    def __init__(self, routes: Sequence[Route]) -> None:
        self._routes = tuple(routes)
        # Only routes that can match are tried, still in table order: each literal first
        # segment has its own list, and a route whose first segment holds a parameter is in
        # every list and in the one for all other paths. Every request pays for routing, and
        # this is one dictionary look-up instead of a regular expression per route.
        table = [(route, _literal_first_segment(route.pattern)) for route in self._routes]
        self._anywhere = tuple(route for route, segment in table if segment is None)
        self._by_segment = {
            segment: tuple(route for route, other in table if other in (segment, None))
            for _, segment in table
            if segment is not None
        }
        #: path -> the match, its parameters read-only since every request with that path
        #: shares them; emptied whole when full, which a workload of few paths never sees.
        self._matched: dict[str, tuple[Route, Mapping[str, str]] | None] = {}

    @property
    def routes(self) -> tuple[Route, ...]:
        return self._routes

    def match(self, path: str) -> tuple[Route, Mapping[str, str]] | None:
        try:
            return self._matched[path]
        except KeyError:
            pass
        found = self._match(path)
        if len(path) <= MATCH_CACHE_PATH_MAX:
            if len(self._matched) >= MATCH_CACHE_SIZE:
                self._matched.clear()
            self._matched[path] = found
        return found

    def _match(self, path: str) -> tuple[Route, Mapping[str, str]] | None:
        for route in self._by_segment.get(_first_segment(path), self._anywhere):
            found = route.regex.fullmatch(path)
            if found is not None:
                return route, MappingProxyType(found.groupdict())
        return None

    def respond(self, request: Request) -> Response | Coroutine[Any, Any, Response]:
        """Route ``request`` and answer it: the response itself when the handler answered
        without waiting (a synchronous handler, or a refusal before any handler), else a
        coroutine that finishes it. Every request and sub-request is routed here, and only
        here; ``handle`` is its face for callers that always await."""
        routed = self._route(request)
        if isinstance(routed, Response):
            response = routed
        else:
            handler, params = routed
            try:
                answer = handler(request, params)
            except Exception as exc:
                response = _failed(request, exc)
            else:
                if not isinstance(answer, Response):
                    return _awaited(request, answer)
                response = answer
        if request.method == "HEAD":
            return _head(response)
        return response

    async def handle(self, request: Request) -> Response:
        """``respond``, awaited."""
        answer = self.respond(request)
        if isinstance(answer, Response):
            return answer
        return await answer

    def _route(self, request: Request) -> tuple[Handler, Mapping[str, str]] | Response:
        """The handler and path parameters for ``request``, or the response that refuses it."""
        found = self.match(request.target.partition("?")[0])
        refused = refuse_repeated_field(request.headers, batch=found is not None and found[0].batch)
        if refused is not None:
            return refused
        if found is None:
            return problem(404, "not-found", f"no resource at {request.path!r}")
        route, params = found
        method = request.method
        handler = route.handlers.get(method)
        if handler is None and method == "HEAD":
            handler = route.handlers.get("GET")
        if handler is None and route.on_unlisted is not None and method != "OPTIONS":
            handler = route.on_unlisted
        if handler is None:
            if method == "OPTIONS":
                return Response(204, [("Allow", route.allow())])
            return problem(
                405,
                "method-not-allowed",
                f"{method} is not allowed on {request.path!r}",
                headers=[("Allow", route.allow())],
            )
        return handler, params


async def _awaited(request: Request, answer: Awaitable[Response]) -> Response:
    """The answer of a handler that may wait, finished as ``Router.respond`` finishes one."""
    try:
        response = await answer
    except Exception as exc:
        response = _failed(request, exc)
    if request.method == "HEAD":
        headed = _head(response)
        return headed if isinstance(headed, Response) else await headed
    return response


def _failed(request: Request, exc: Exception) -> Response:
    """The response for a handler that raised ``exc``."""
    if isinstance(exc, (BodyTooLarge, BodyReadError)):
        return from_body_error(exc)
    # One failing handler is that request's 500, never the server's or the batch's
    # (MB-STATUS-5).
    _log.error("handler for %s %s failed", request.method, request.target, exc_info=exc)
    return problem(500, "internal-error", f"the handler for {request.method} failed")


def _head(response: Response) -> Response | Coroutine[Any, Any, Response]:
    """Turn a GET response into its HEAD form: same fields, no content. RFC 9110 §9.3.2: a HEAD
    response carries no content, whatever its status; a part is answered as the same request
    alone (MB-PART-8), so its HEAD has none either. Content that streams is closed first."""
    body = response.body
    if isinstance(body, bytes):
        if response.header("Content-Length") is None:
            response.headers.append(("Content-Length", str(len(body))))
        response.body = b""
        return response
    return _closed_head(response, body)


async def _closed_head(response: Response, body: AsyncIterator[bytes]) -> Response:
    aclose = getattr(body, "aclose", None)
    if aclose is not None:
        await aclose()
    response.body = b""
    return response
