"""Writing a batch's answer: a sub-response the writer cannot carry is that part's 500, never
the batch's (MB-STATUS-5), in a streamed batch and in an atomic one that rolled back."""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest

from mixbatch.asgi import BatchMiddleware
from mixbatch.asgi._types import Receive, Scope, Send

from ._exchange import batch, call, parts_of

#: A field value no part header section can carry (MB-PART-11 refuses a NUL).
UNWRITABLE = (b"x-trace", b"a\x00b")


async def _app(scope: Scope, receive: Receive, send: Send) -> None:
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
    """(status, outcome, body) of each part of the answer to a batch of GETs of ``targets``."""
    batch_headers, content = batch(*(("GET", target, [], b"") for target in targets))
    response = call(middleware, "POST", "/batch", batch_headers | (headers or {}), content)
    return [(status, outcome, body) for status, outcome, _, body in parts_of(response)]


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
