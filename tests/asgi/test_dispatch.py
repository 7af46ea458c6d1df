"""One part run in-process as a full ASGI request: the sub-request's scope is what an ASGI server
would build for the request sent alone (MB-SUB-1), the body is handed out once and disconnect
follows only when the part is done, framing and part-control fields are dropped from the answer
(MB-RESP-4), HEAD/204/304 carry no content, and a failure before a complete response is a 500."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest

from mixbatch.asgi._dispatch import FRAMING_FIELDS, SubResponse, build_scope, run_part
from mixbatch.asgi._types import Message, Receive, Scope, Send

OUTER: Scope = {
    "type": "http",
    "asgi": {"version": "3.0", "spec_version": "2.4"},
    "http_version": "1.1",
    "method": "POST",
    "scheme": "https",
    "path": "/batch",
    "raw_path": b"/batch",
    "query_string": b"",
    "root_path": "/api",
    "headers": [(b"host", b"example.test"), (b"authorization", b"Bearer outer")],
    "client": ("127.0.0.1", 50000),
    "server": ("127.0.0.1", 443),
    "state": {"db": "pool"},
}


def test_scope_is_a_fresh_http_request_with_the_parts_method_and_target() -> None:
    scope = build_scope(OUTER, "get", "/caf%C3%A9/a%2Fb?q=1&r=%20", [("Host", "example.test")])
    assert scope["type"] == "http"
    assert scope["method"] == "get"
    assert scope["path"] == "/café/a/b"
    assert scope["raw_path"] == b"/caf%C3%A9/a%2Fb"
    assert scope["query_string"] == b"q=1&r=%20"


def test_scope_inherits_only_the_connection_facts_of_the_batch() -> None:
    scope = build_scope(OUTER, "GET", "/x", [("Host", "example.test")])
    assert scope["scheme"] == "https"
    assert scope["client"] == ("127.0.0.1", 50000)
    assert scope["server"] == ("127.0.0.1", 443)
    assert scope["root_path"] == "/api"
    assert scope["asgi"] == OUTER["asgi"]
    assert scope["extensions"] == {}
    # MB-SUB-6: no outer field is applied besides those the caller passed in.
    assert scope["headers"] == [(b"host", b"example.test")]


def test_scope_headers_are_lowercased_latin_1_octets_in_order() -> None:
    scope = build_scope(OUTER, "GET", "/", [("X-B", "2"), ("X-A", "café"), ("x-b", "3")])
    assert scope["headers"] == [(b"x-b", b"2"), (b"x-a", b"caf\xe9"), (b"x-b", b"3")]


def test_scope_state_is_a_copy_per_part() -> None:
    scope = build_scope(OUTER, "GET", "/", [])
    scope["state"]["db"] = "changed"
    assert OUTER["state"] == {"db": "pool"}
    assert "state" not in build_scope({"type": "http"}, "GET", "/", [])


def test_scope_defaults_when_the_outer_scope_is_sparse() -> None:
    scope = build_scope({"type": "http"}, "GET", "/", [])
    assert scope["asgi"] == {"version": "3.0"}
    assert scope["http_version"] == "1.1"
    assert scope["scheme"] == "http"
    assert scope["root_path"] == ""


def _app(
    status: int = 200,
    headers: list[tuple[bytes, bytes]] | None = None,
    chunks: tuple[bytes, ...] = (b"ok",),
) -> Any:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": status, "headers": headers or []})
        for i, chunk in enumerate(chunks):
            more = i < len(chunks) - 1
            await send({"type": "http.response.body", "body": chunk, "more_body": more})

    return app


def _run(app: Any, method: str = "GET", body: bytes = b"") -> SubResponse:
    return asyncio.run(
        asyncio.wait_for(run_part(app, build_scope(OUTER, method, "/r", []), body), 5)
    )


def test_part_response_collects_status_fields_and_every_chunk() -> None:
    app = _app(201, [(b"Content-Type", b"text/plain"), (b"Location", b"/r/1")], (b"ab", b"", b"cd"))
    assert _run(app) == SubResponse(
        201, [("Content-Type", "text/plain"), ("Location", "/r/1")], b"abcd"
    )


def test_part_response_drops_framing_and_part_control_fields() -> None:
    headers = [
        (b"Content-Type", b"text/plain"),
        (b"Transfer-Encoding", b"chunked"),
        (b"Connection", b"close"),
        (b"Content-Id", b"<forged>"),
        (b"Batch-Outcome", b"skipped"),
        (b"Http-Status-Code", b"200"),
    ]
    assert _run(_app(200, headers)).headers == [("Content-Type", "text/plain")]
    assert {"content-id", "batch-outcome", "transfer-encoding"} <= FRAMING_FIELDS


@pytest.mark.parametrize(("method", "status"), [("HEAD", 200), ("GET", 204), ("GET", 304)])
def test_part_response_has_no_content_for_head_204_and_304(method: str, status: int) -> None:
    response = _run(_app(status, [(b"Content-Length", b"5")], (b"hello",)), method)
    assert response.status == status
    assert response.body == b""


def test_receive_hands_out_the_body_once_then_disconnect_only_after_the_part() -> None:
    seen: list[Message] = []
    still_waiting: list[bool] = []

    async def scenario() -> SubResponse:
        watchers: list[asyncio.Future[Message]] = []

        async def app(scope: Scope, receive: Receive, send: Send) -> None:
            seen.append(await receive())
            # A streaming app watches for the client going away while it answers.
            watchers.append(asyncio.ensure_future(receive()))
            await asyncio.sleep(0.01)
            still_waiting.append(not watchers[0].done())
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"x"})

        response = await run_part(app, build_scope(OUTER, "POST", "/r", []), b"payload")
        seen.append(await asyncio.wait_for(watchers[0], 5))
        return response

    assert asyncio.run(scenario()).body == b"x"
    assert still_waiting == [True]
    assert seen == [
        {"type": "http.request", "body": b"payload", "more_body": False},
        {"type": "http.disconnect"},
    ]


def _problem(response: SubResponse) -> Any:
    assert response.status == 500
    assert response.headers == [("Content-Type", "application/problem+json")]
    return json.loads(response.body)


def test_an_app_that_raises_before_answering_gives_a_500_problem(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        raise ValueError("boom")

    with caplog.at_level(logging.ERROR, logger="mixbatch.asgi"):
        document = _problem(_run(app))
    assert document["status"] == 500
    assert "GET /r" in caplog.text


def test_an_app_that_stops_mid_body_gives_a_500() -> None:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"half", "more_body": True})

    _problem(_run(app))


def test_an_app_that_never_answers_gives_a_500() -> None:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        return None

    _problem(_run(app))


def test_an_app_that_raises_after_answering_keeps_its_answer() -> None:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await _app(418, [], (b"teapot",))(scope, receive, send)
        raise RuntimeError("re-raised after the error page")

    assert _run(app) == SubResponse(418, [], b"teapot")


def test_content_before_the_response_start_is_a_500() -> None:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.body", "body": b"x"})

    _problem(_run(app))


def test_a_second_response_start_is_a_500() -> None:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.start", "status": 201, "headers": []})

    _problem(_run(app))


def test_trailers_and_other_messages_are_ignored() -> None:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": [], "trailers": True})
        await send({"type": "http.response.body", "body": b"x"})
        await send({"type": "http.response.trailers", "headers": [(b"x-t", b"1")]})

    assert _run(app) == SubResponse(200, [], b"x")
