"""The router's table: the first route in table order whose pattern matches the whole path."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from mixbatch._http.messages import Handler
from mixbatch.codec import Fields
from mixbatch.server import Request, Response
from mixbatch.server._router import Route, Router


def _answer(name: str) -> Handler:
    async def handler(request: Request, params: Mapping[str, str]) -> Response:
        return Response(200, [("Route", name)], repr(sorted(params.items())).encode())

    return handler


ROUTER = Router(
    [
        Route("/books/{id}", {"GET": _answer("book")}),
        Route("/{kind}/latest", {"GET": _answer("latest")}),
        Route("/books/latest", {"GET": _answer("shadowed")}),
        Route("/books", {"GET": _answer("books")}),
        Route("/{any}", {"GET": _answer("any")}),
    ]
)


def route_of(path: str) -> str | None:
    response = asyncio.run(ROUTER.handle(Request("GET", path, Fields())))
    return response.header("Route") if response.status == 200 else str(response.status)


def test_the_first_matching_route_in_table_order_wins() -> None:
    assert route_of("/books/latest") == "book"
    assert route_of("/films/latest") == "latest"
    assert route_of("/books") == "books"


def test_a_pattern_whose_first_segment_is_a_parameter_matches_any_first_segment() -> None:
    assert route_of("/films") == "any"
    assert route_of("/books.json") == "any"


def test_a_path_no_pattern_matches_whole_is_404() -> None:
    assert route_of("/books/1/pages") == "404"
    assert route_of("/films/latest/x") == "404"
    assert route_of("/") == "404"


def test_parameters_are_captured_from_the_matching_route() -> None:
    response = asyncio.run(ROUTER.handle(Request("GET", "/films/latest", Fields())))
    assert response.body == b"[('kind', 'films')]"
