"""``/collections/empty``: a collection that exists and never has a member.

A collection retrieval of it is answered 204 (MB-STATUS-11: "A collection retrieval of an
existing collection with no members is answered 204"), so a conformance suite can check that
rule without emptying a collection it does not own. Asked for JSON, it is ``[]``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from mixbatch._http.messages import Request, Response
from mixbatch._http.negotiation import accept_of, choose
from mixbatch._http.problems import problem

from .. import _collection
from .._router import Route

__all__ = ["PATH", "routes"]

PATH = "/collections/empty"
_JSON = "application/json"


def routes(clock: Callable[[], float]) -> list[Route]:
    """The empty collection's one route."""

    async def list_members(request: Request, params: Mapping[str, str]) -> Response:
        if await request.body.read(1):
            # MB-METHOD-3: "A server rejects a GET batch or collection retrieval that has
            # content with 400."
            return problem(
                400,
                "get-with-content",
                "a collection retrieval carries no content",
                requirement="MB-METHOD-3",
            )
        chosen = choose(accept_of(request.headers), (_JSON, _collection.MEDIA_TYPE))
        if chosen == _collection.MEDIA_TYPE:
            return _collection.retrieve(request, [], now=clock())
        if chosen is None:
            return problem(
                406, "not-acceptable", f"{PATH} is available as {_JSON} or multipart/mixed"
            )
        return Response(200, [("Content-Type", _JSON), ("Vary", "Accept")], b"[]")

    return [Route(PATH, {"GET": list_members})]
