"""Writing a batch's answer: a sub-response the writer cannot carry is that part's 500, never
the batch's (MB-STATUS-5), in a streamed batch and in an atomic one that rolled back."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from mixbatch.asgi import BatchMiddleware
from mixbatch.codec import (
    BatchParser,
    BatchWriter,
    PartData,
    ResponsePartStart,
    Role,
    parse_batch_content_type,
)

#: A field value no part header section can carry (MB-PART-11 refuses a NUL).
UNWRITABLE = (b"x-trace", b"a\x00b")


async def _app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """``/unwritable`` answers 200 with a field the writer refuses; ``/missing`` 404; else 200."""
    path = scope["path"]
    headers = [(b"content-type", b"text/plain")]
    if path == "/unwritable":
        headers.append(UNWRITABLE)
    status = 404 if path == "/missing" else 200
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": path.encode()})


@contextlib.asynccontextmanager
async def _transaction() -> AsyncIterator[None]:
    yield


def _answer(
    middleware: BatchMiddleware, *targets: str, headers: dict[str, str] | None = None
) -> list[tuple[int | None, str | None, bytes]]:
    writer = BatchWriter()
    content = b"".join(writer.request_part("GET", t, [], b"") for t in targets) + writer.close()

    async def post() -> httpx.Response:
        transport = httpx.ASGITransport(app=middleware)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            return await client.post(
                "/batch",
                content=content,
                headers={"Content-Type": writer.content_type, **(headers or {})},
            )

    response = asyncio.run(post())
    assert response.status_code == 200, response.text
    parser = BatchParser(parse_batch_content_type(response.headers["content-type"]), Role.RESPONSE)
    parts: list[tuple[int | None, str | None, bytes]] = []
    for event in parser.feed(response.content) + parser.feed_eof():
        if isinstance(event, ResponsePartStart):
            parts.append((event.status, event.outcome, b""))
        elif isinstance(event, PartData):
            status, outcome, body = parts[-1]
            parts[-1] = (status, outcome, body + bytes(event.data))
    return parts


def _problem(body: bytes) -> dict[str, Any]:
    document = json.loads(body)
    assert isinstance(document, dict)
    return document


def test_a_part_the_writer_refuses_is_that_part_s_500_and_the_rest_stand(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.ERROR, logger="mixbatch.asgi"):
        parts = _answer(BatchMiddleware(_app), "/a", "/unwritable", "/b")
    assert [(status, outcome) for status, outcome, _ in parts] == [
        (200, None),
        (500, None),
        (200, None),
    ]
    assert (parts[0][2], parts[2][2]) == (b"/a", b"/b")
    problem = _problem(parts[1][2])
    assert (problem["status"], problem["requirement"]) == (500, "MB-PART-11")
    assert "x-trace" in problem["detail"]
    assert "part 1 cannot be written" in caplog.text


def test_in_a_rolled_back_batch_the_refused_part_keeps_its_rolled_back_mark() -> None:
    middleware = BatchMiddleware(_app, transaction=_transaction)
    parts = _answer(middleware, "/unwritable", "/missing", "/a", headers={"Batch-Mode": "atomic"})
    assert [(status, outcome) for status, outcome, _ in parts] == [
        (500, "rolled-back"),
        (404, None),
        (None, "skipped"),
    ]
    assert _problem(parts[0][2])["requirement"] == "MB-PART-11"


def test_in_a_committed_batch_the_refused_part_is_a_plain_500() -> None:
    middleware = BatchMiddleware(_app, transaction=_transaction)
    parts = _answer(middleware, "/a", "/unwritable", headers={"Batch-Mode": "atomic"})
    assert [(status, outcome) for status, outcome, _ in parts] == [(200, None), (500, None)]
