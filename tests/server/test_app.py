"""The application: standalone requests and sub-requests end in the same router, and each gets
one access-log line, a sub-request's marked with its part index (n parts log n + 1 lines)."""

from __future__ import annotations

import asyncio
import logging

import pytest

from mixbatch._http.messages import Request, Response
from mixbatch.codec import Fields
from mixbatch.server import ServerConfig, build_app
from mixbatch.server._app import App


def _get(target: str) -> Request:
    return Request("GET", target, Fields([("Host", "example.test")]), authority="example.test")


def test_build_app_wires_every_resource_and_the_batch_endpoint() -> None:
    app = build_app(clock=lambda: 1_700_000_000.0)
    assert isinstance(app, App)
    statuses = {
        target: asyncio.run(app(_get(target))).status
        for target in ("/status/418", "/echo", "/books", "/no-such-resource")
    }
    assert statuses == {"/status/418": 418, "/echo": 200, "/books": 200, "/no-such-resource": 404}
    options = Request("OPTIONS", "/batch", Fields([("Host", "example.test")]))
    assert asyncio.run(app(options)).status == 200


def test_a_sub_request_gets_the_same_answer_as_the_request_alone() -> None:
    app = build_app(ServerConfig(), clock=lambda: 1_700_000_000.0)
    alone = asyncio.run(app(_get("/books/1")))
    part = asyncio.run(app.run_subrequest(_get("/books/1"), 3))
    assert (part.status, part.headers, part.body) == (alone.status, alone.headers, alone.body)


def test_a_sub_request_whose_handler_never_waits_is_answered_at_once_as_alone() -> None:
    app = build_app(ServerConfig(), clock=lambda: 1_700_000_000.0)
    alone = asyncio.run(app(_get("/random/32?seed=7")))
    part = app.run_subrequest(_get("/random/32?seed=7"), 0)
    assert isinstance(part, Response)  # no coroutine, no task: a plain call
    assert (part.status, part.headers, part.body) == (alone.status, alone.headers, alone.body)
    head = app.run_subrequest(Request("HEAD", "/random/32", Fields()), 1)
    assert isinstance(head, Response)
    assert (head.body, head.header("Content-Length")) == (b"", "32")


def test_each_request_and_sub_request_logs_one_line(caplog: pytest.LogCaptureFixture) -> None:
    app = build_app(clock=lambda: 1_700_000_000.0)
    with caplog.at_level(logging.INFO, logger="mixbatch.server.access"):
        asyncio.run(app(_get("/status/204")))
        asyncio.run(app.run_subrequest(_get("/status/404"), 2))
    lines = [r.getMessage() for r in caplog.records if r.name == "mixbatch.server.access"]
    assert len(lines) == 2
    assert lines[0].startswith("request GET /status/204 -> 204 (")
    assert lines[1].startswith("sub-request[2] GET /status/404 -> 404 (")
