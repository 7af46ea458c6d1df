"""The middleware's in-flight batch budget (MB-LIMIT-6): a batch beyond it is 503 with
Retry-After before any part runs, with the reference server's defaults and options of its own."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from mixbatch._http.budget import BUSY_RETRY_AFTER, MAX_BATCHES_IN_FLIGHT
from mixbatch.asgi import BatchMiddleware
from mixbatch.codec import BatchWriter


def _batch() -> tuple[list[tuple[bytes, bytes]], bytes]:
    writer = BatchWriter()
    content = writer.request_part("GET", "/ran", [], b"") + writer.close()
    return [(b"content-type", writer.content_type.encode())], content


def _scope(headers: list[tuple[bytes, bytes]]) -> dict[str, Any]:
    return {
        "type": "http",
        "method": "POST",
        "path": "/batch",
        "raw_path": b"/batch",
        "query_string": b"",
        "headers": [(b"host", b"test"), *headers],
        "scheme": "http",
    }


async def _inner(scope: dict[str, Any], receive: Any, send: Any) -> None:
    ran.append(scope["path"])
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


ran: list[str] = []


async def _post(middleware: BatchMiddleware, first_chunk_only: asyncio.Event | None) -> list[Any]:
    """POST one batch; with ``first_chunk_only`` the content stops half-way until it is set."""
    headers, content = _batch()
    half = len(content) // 2
    chunks = [content[:half], content[half:]]
    sent: list[Any] = []

    async def receive() -> dict[str, Any]:
        chunk = chunks.pop(0)
        if not chunks and first_chunk_only is not None:
            await first_chunk_only.wait()
        return {"type": "http.request", "body": chunk, "more_body": bool(chunks)}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await middleware(_scope(headers), receive, send)
    return sent


def _status(sent: list[Any]) -> tuple[int, dict[bytes, bytes], bytes]:
    start = sent[0]
    body = b"".join(m.get("body", b"") for m in sent[1:])
    return start["status"], dict(start["headers"]), body


def test_the_defaults_are_the_servers() -> None:
    middleware = BatchMiddleware(_inner)
    assert middleware.budget.max_batches == MAX_BATCHES_IN_FLIGHT
    assert middleware.busy_retry_after == BUSY_RETRY_AFTER


def test_a_batch_beyond_the_budget_is_503_with_retry_after_and_runs_nothing() -> None:
    middleware = BatchMiddleware(_inner, max_batches_in_flight=1, busy_retry_after=7)

    async def main() -> tuple[list[Any], list[Any]]:
        hold = asyncio.Event()
        first = asyncio.create_task(_post(middleware, hold))
        await asyncio.sleep(0.01)  # the first batch is admitted and half received
        ran.clear()
        second = await _post(middleware, None)
        assert ran == []  # no part of the refused batch ran
        hold.set()
        return await first, second

    first, second = asyncio.run(main())
    status, headers, body = _status(second)
    assert status == 503
    assert headers[b"retry-after"] == b"7"
    document = json.loads(body)
    assert document["requirement"] == "MB-LIMIT-6"
    assert document["budget"] == "max_batches_in_flight"
    assert _status(first)[0] == 200
    assert middleware.budget.batches == 0  # both tickets were given back


def test_a_batch_after_one_ended_fits_again() -> None:
    middleware = BatchMiddleware(_inner, max_batches_in_flight=1)
    for _ in range(3):
        assert _status(asyncio.run(_post(middleware, None)))[0] == 200
    assert middleware.budget.batches == 0


@pytest.mark.parametrize("option", ["max_batches_in_flight", "busy_retry_after"])
def test_a_budget_option_that_is_not_positive_is_refused(option: str) -> None:
    with pytest.raises(ValueError, match=option):
        BatchMiddleware(_inner, **{option: 0})
