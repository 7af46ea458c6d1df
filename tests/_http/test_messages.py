"""The server's request/response model: bounded body reads (BodyTooLarge before or during the
read), spool slices read in bounded chunks, the target split into path and query, and a
response's case-insensitive field look-up."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator

import pytest

from mixbatch._http.messages import (
    FRAMING_AND_HOP_FIELDS,
    BodyTooLarge,
    BytesBody,
    Request,
    RequestBody,
    Response,
    SpooledBody,
)
from mixbatch.codec import Fields


class _Chunks(RequestBody):
    """A streamed body of unknown length (chunked), counting the chunks handed out."""

    def __init__(self, *chunks: bytes | bytearray | memoryview) -> None:
        self._chunks = chunks
        self.handed_out = 0

    async def stream(self) -> AsyncIterator[bytes | bytearray | memoryview]:
        for chunk in self._chunks:
            self.handed_out += 1
            yield chunk


async def _collect(body: RequestBody) -> list[bytes]:
    return [bytes(chunk) async for chunk in body.stream()]


def test_bytes_body_reads_whole_within_its_limit() -> None:
    body = BytesBody(b"hello")
    assert body.length == 5
    assert asyncio.run(body.read(5)) == b"hello"


def test_empty_bytes_body_streams_no_chunk() -> None:
    assert asyncio.run(_collect(BytesBody())) == []


def test_declared_length_over_the_limit_is_refused_before_reading() -> None:
    body = _Chunks(b"x" * 10)
    body.length = 10
    with pytest.raises(BodyTooLarge) as caught:
        asyncio.run(body.read(9))
    assert caught.value.limit == 9
    assert body.handed_out == 0


def test_streamed_body_is_refused_once_it_passes_the_limit() -> None:
    body = _Chunks(b"aaaa", b"bbbb", b"cccc", b"dddd")
    with pytest.raises(BodyTooLarge, match="exceeds 10 octets"):
        asyncio.run(body.read(10))
    # The third chunk crosses the limit; the fourth is never pulled.
    assert body.handed_out == 3


def test_streamed_body_exactly_at_the_limit_is_read_whole() -> None:
    assert asyncio.run(_Chunks(b"ab", bytearray(b"cd"), memoryview(b"e")).read(5)) == b"abcde"


def test_spooled_body_reads_only_its_slice_of_the_spool() -> None:
    spool = io.BytesIO(b"----PART-ONE----PART-TWO----")
    body = SpooledBody(spool, 16, 8)
    assert asyncio.run(body.read(8)) == b"PART-TWO"


def test_spooled_body_streams_in_bounded_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(SpooledBody, "CHUNK", 4)
    spool = io.BytesIO(b"ab0123456789z")
    assert asyncio.run(_collect(SpooledBody(spool, 2, 10))) == [b"0123", b"4567", b"89"]


def test_spooled_body_stops_at_the_end_of_a_short_spool() -> None:
    assert asyncio.run(_collect(SpooledBody(io.BytesIO(b"abc"), 1, 100))) == [b"bc"]


def test_request_splits_its_target_into_path_and_query() -> None:
    request = Request("GET", "/books/1?fields=a&x=?", Fields())
    assert request.path == "/books/1"
    assert request.query == "fields=a&x=?"
    bare = Request("GET", "/books", Fields())
    assert (bare.path, bare.query) == ("/books", "")


def test_request_defaults_to_an_empty_body_and_no_trailers() -> None:
    request = Request("GET", "/", Fields())
    assert asyncio.run(request.body.read(0)) == b""
    assert request.accepts_trailers is False
    assert request.scheme == "http"


def test_response_header_lookup_ignores_case_and_returns_the_first() -> None:
    response = Response(200, [("Content-Type", "text/plain"), ("content-type", "x/y")])
    assert response.header("CONTENT-TYPE") == "text/plain"
    assert response.header("ETag") is None


def test_framing_and_hop_fields_name_what_a_response_part_drops() -> None:
    # MB-RESP-4: a response part carries the sub-response's fields "less hop-by-hop and
    # framing fields".
    assert {"connection", "transfer-encoding", "te", "keep-alive"} <= FRAMING_AND_HOP_FIELDS
    assert "content-type" not in FRAMING_AND_HOP_FIELDS
