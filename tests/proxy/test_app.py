"""``ProxyApp`` called directly: each refusal comes in the documented order, as a problem
document, and before anything reaches the origin (its pool opens no connection)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence

import pytest

from mixbatch._http import Request, Response
from mixbatch._http.messages import BytesBody
from mixbatch.codec import Fields, Limits
from mixbatch.proxy import ProxyConfig, Upstream
from mixbatch.proxy._app import REFUSED_METHODS, ProxyApp

BOUNDARY = "b"
MULTIPART = f"multipart/mixed; boundary={BOUNDARY}"
#: A batch with one GET part (never forwarded here: each case is refused first).
BATCH = b"--b\r\nContent-Type: application/http\r\n\r\nGET /books/1 HTTP/1.1\r\n\r\n\r\n--b--\r\n"


def _answer(
    method: str,
    target: str,
    headers: Sequence[tuple[str, str]] = (),
    body: bytes | BytesBody = b"",
    limits: Limits | None = None,
) -> tuple[Response, int]:
    """The app's response to one request, and how many upstream connections it opened."""
    # Port 9 (discard) on loopback: a connection attempt would fail the case, not hang it.
    config = ProxyConfig(Upstream.parse("http://127.0.0.1:9"), limits=limits or Limits())
    request = Request(
        method,
        target,
        Fields(headers),
        body if isinstance(body, BytesBody) else BytesBody(body),
        scheme="http",
        authority="proxy.test",
    )

    async def call() -> tuple[Response, int]:
        app = ProxyApp(config)
        try:
            return await app(request), app.pool.opened
        finally:
            await app.aclose()

    return asyncio.run(call())


def _problem(response: Response) -> dict[str, object]:
    assert response.header("Content-Type") == "application/problem+json"
    assert isinstance(response.body, bytes)
    document = json.loads(response.body)
    assert isinstance(document, dict)
    assert document["status"] == response.status
    return document


def test_options_on_the_batch_path_is_the_capabilities_document() -> None:
    response, opened = _answer("OPTIONS", "/batch")
    assert response.status == 200
    assert response.header("Accept-Post") == "multipart/mixed"
    assert isinstance(response.body, bytes)
    assert json.loads(response.body)["limits"]["max_parts"] == Limits().max_parts
    assert opened == 0


def test_another_method_on_the_batch_path_is_405_with_allow() -> None:
    response, opened = _answer("DELETE", "/batch")
    assert (response.status, response.header("Allow")) == (405, "OPTIONS, POST")
    assert _problem(response)["requirement"] == "MB-METHOD-2"
    assert opened == 0


#: (what the request adds to a well-formed batch POST, status, problem type ending, field).
#: Each case also carries every fault of the cases after it, so an answer out of the documented
#: order names the wrong fault.
_LATER_FAULTS = [("Content-Encoding", "gzip"), ("Accept", "application/json")]


@pytest.mark.parametrize(
    ("headers", "status", "slug", "field"),
    [
        (
            [("Batch-Mode", "atomic"), ("Content-Type", "text/plain"), *_LATER_FAULTS],
            501,
            "batch-mode-unsupported",
            None,
        ),
        (
            [("Content-Type", "text/plain"), *_LATER_FAULTS],
            415,
            "unsupported-media-type",
            ("Accept-Post", "multipart/mixed"),
        ),
        (
            [("Content-Type", MULTIPART), *_LATER_FAULTS],
            415,
            "unsupported-content-coding",
            ("Accept-Encoding", "identity"),
        ),
        ([("Content-Type", MULTIPART), _LATER_FAULTS[1]], 406, "not-acceptable", None),
    ],
    ids=["batch-mode", "media-type", "content-coding", "accept"],
)
def test_a_batch_is_refused_in_the_documented_order_before_anything_is_forwarded(
    headers: list[tuple[str, str]], status: int, slug: str, field: tuple[str, str] | None
) -> None:
    response, opened = _answer("POST", "/batch", headers, BATCH)
    assert response.status == status
    assert str(_problem(response)["type"]).endswith("/" + slug)
    if field is not None:
        assert response.header(field[0]) == field[1]
    assert opened == 0


class _WatchedBody(BytesBody):
    """Content whose declared length is known up front; notes whether anyone read it."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.read_from = False

    async def stream(self) -> AsyncIterator[bytes]:
        self.read_from = True
        async for chunk in super().stream():
            yield chunk


def test_a_batch_declared_over_the_proxy_s_limit_is_413_unread_and_unforwarded() -> None:
    body = _WatchedBody(BATCH)
    limits = Limits(max_batch_bytes=len(BATCH) - 1)
    response, opened = _answer("POST", "/batch", [("Content-Type", MULTIPART)], body, limits)
    assert response.status == 413
    _problem(response)
    assert not body.read_from
    assert opened == 0


def test_a_repeated_content_type_is_refused_before_it_is_read() -> None:
    headers = [("Content-Type", MULTIPART), ("Content-Type", "text/plain")]
    response, opened = _answer("POST", "/batch", headers, BATCH)
    assert response.status == 400
    problem = _problem(response)
    assert str(problem["type"]).endswith("/repeated-field")
    assert problem["field"] == "Content-Type"
    assert opened == 0


@pytest.mark.parametrize("method", sorted(REFUSED_METHODS))
def test_connect_and_trace_are_not_forwarded(method: str) -> None:
    response, opened = _answer(method, "/books/1")
    assert response.status == 405
    assert str(_problem(response)["type"]).endswith("/method-not-forwarded")
    assert opened == 0


def test_an_absolute_target_for_another_origin_is_refused_not_forwarded() -> None:
    response, opened = _answer("GET", "http://elsewhere.test/books/1")
    assert response.status == 400
    _problem(response)
    assert opened == 0
