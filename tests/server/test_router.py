"""The router's table: the first route in table order whose pattern matches the whole path."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Mapping

import pytest

from mixbatch._http.messages import Handler
from mixbatch.codec import Fields
from mixbatch.server import Request, Response
from mixbatch.server._router import MATCH_CACHE_PATH_MAX, MATCH_CACHE_SIZE, Route, Router


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


def test_a_remembered_match_answers_as_the_first_one_did() -> None:
    for _ in range(3):
        assert route_of("/books/7") == "book"
        assert route_of("/books/7/pages") == "404"
        assert route_of("/films/latest") == "latest"


def test_remembered_parameters_cannot_be_changed_by_a_handler() -> None:
    found = ROUTER.match("/books/8")
    assert found is not None
    params = found[1]
    assert params == {"id": "8"}
    with pytest.raises(TypeError):
        params["id"] = "9"  # type: ignore[index]


def test_more_distinct_paths_than_are_remembered_still_route() -> None:
    router = Router([Route("/books/{id}", {"GET": _answer("book")})])
    for n in range(MATCH_CACHE_SIZE + 10):
        found = router.match(f"/books/{n}")
        assert found is not None
        assert found[1]["id"] == str(n)
    long = "/books/" + "9" * MATCH_CACHE_PATH_MAX
    found = router.match(long)
    assert found is not None
    assert found[1]["id"] == "9" * MATCH_CACHE_PATH_MAX
    assert len(router._matched) <= MATCH_CACHE_SIZE
    assert long not in router._matched


def _now(name: str) -> Handler:
    def handler(request: Request, params: Mapping[str, str]) -> Response:
        return Response(200, [("Route", name)], repr(sorted(params.items())).encode())

    return handler


def _raising(request: Request, params: Mapping[str, str]) -> Response:
    raise RuntimeError("boom")


NOW = Router(
    [
        Route("/now/{id}", {"GET": _now("now"), "POST": _raising}),
        Route("/later/{id}", {"GET": _answer("later")}),
    ]
)


def test_a_handler_that_never_waits_is_answered_without_a_coroutine() -> None:
    answer = NOW.respond(Request("GET", "/now/1", Fields()))
    assert isinstance(answer, Response)
    assert (answer.status, answer.body) == (200, b"[('id', '1')]")


def test_a_coroutine_handler_is_answered_by_a_coroutine_with_the_same_outcome() -> None:
    answer = NOW.respond(Request("GET", "/later/1", Fields()))
    assert not isinstance(answer, Response)
    response = asyncio.run(_wait(answer))
    assert (response.status, response.body) == (200, b"[('id', '1')]")


async def _wait(answer: Awaitable[Response]) -> Response:
    return await answer


def test_handle_awaits_the_answer_of_either_kind_of_handler() -> None:
    for path in ("/now/2", "/later/2"):
        response = asyncio.run(NOW.handle(Request("GET", path, Fields())))
        assert (response.status, response.body) == (200, b"[('id', '2')]")


def test_a_refusal_before_any_handler_is_answered_at_once() -> None:
    answer = NOW.respond(Request("GET", "/nowhere", Fields()))
    assert isinstance(answer, Response)
    assert answer.status == 404


def test_a_handler_that_raises_at_once_is_that_request_s_500() -> None:
    answer = NOW.respond(Request("POST", "/now/3", Fields()))
    assert isinstance(answer, Response)
    assert answer.status == 500


def test_a_head_answered_at_once_keeps_its_length_and_drops_its_content() -> None:
    head = NOW.respond(Request("HEAD", "/now/4", Fields()))
    later = asyncio.run(NOW.handle(Request("HEAD", "/later/4", Fields())))
    assert isinstance(head, Response)
    for response in (head, later):
        assert response.body == b""
        assert response.header("Content-Length") == str(len(b"[('id', '4')]"))
