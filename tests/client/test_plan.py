"""Encoding sub-requests as parts and splitting them into batches within limits (MB-LIMIT-3)."""

from __future__ import annotations

import itertools

import pytest

from mixbatch.client import SubRequest
from mixbatch.client._plan import Chunk, EncodedPart, encode_parts, join_parts, plan_chunks
from mixbatch.codec import (
    BatchParser,
    Limits,
    LocalProtocolError,
    PartData,
    RequestPartStart,
    Role,
)


def _requests(*bodies: bytes) -> list[SubRequest]:
    return [
        SubRequest("POST", f"/items/{i}", (("Content-Type", "text/plain"),), body)
        for i, body in enumerate(bodies)
    ]


def _encoded(requests: list[SubRequest]) -> tuple[str, list[EncodedPart]]:
    boundary, parts = encode_parts(requests, range(len(requests)))
    return boundary, [parts[i] for i in range(len(requests))]


def _parse(boundary: str, content: bytes) -> list[tuple[str, str, bytes]]:
    parser = BatchParser(boundary, Role.REQUEST)
    seen: list[tuple[str, str, bytes]] = []
    for event in parser.feed(content) + parser.feed_eof():
        if isinstance(event, RequestPartStart):
            seen.append((event.method, event.target, b""))
        elif isinstance(event, PartData):
            method, target, body = seen[-1]
            seen[-1] = (method, target, body + bytes(event.data))
    return seen


def test_joined_parts_are_a_batch_the_codec_parses_back_in_order() -> None:
    requests = _requests(b"one", b"", b"three\r\n--not-a-delimiter")
    boundary, parts = _encoded(requests)
    for count in range(1, len(parts) + 1):
        parsed = _parse(boundary, join_parts(boundary, parts[:count]))
        assert parsed == [(r.method, r.target, r.body) for r in requests[:count]]


def test_an_encoded_part_measures_its_header_section_and_body() -> None:
    boundary, (part,) = _encoded(_requests(b"x" * 10))
    framing = 2 * (len(boundary) + 4)  # "--" boundary CRLF ... CRLF "--" boundary
    assert part.body_bytes == 10
    assert part.header_bytes + part.body_bytes + framing == len(part.data)
    assert part.data.startswith(f"--{boundary}\r\nHttp-Method: POST\r\n".encode())


def test_a_body_that_contains_the_boundary_gets_a_fresh_boundary(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fresh = iter(["collides-with-the-body-0", "second-boundary-0123456"])
    monkeypatch.setattr("mixbatch.client._plan.make_boundary", lambda: next(fresh))
    boundary, _ = encode_parts(_requests(b"\r\n--collides-with-the-body-0\r\n"), [0])
    assert boundary == "second-boundary-0123456"  # MB-WIRE-6: no body contains the delimiter


def test_a_sub_request_the_spec_forbids_fails_locally() -> None:
    with pytest.raises(LocalProtocolError) as caught:
        encode_parts([SubRequest("CONNECT", "/x")], [0])
    assert caught.value.requirement == "MB-SUB-3"


def test_without_limits_everything_is_one_batch() -> None:
    boundary, parts = _encoded(_requests(*[b"x" * 100] * 5))
    assert plan_chunks(parts, boundary, None) == [Chunk((0, 1, 2, 3, 4), True)]


def test_max_parts_splits_into_consecutive_batches() -> None:
    boundary, parts = _encoded(_requests(*[b"x"] * 5))
    chunks = plan_chunks(parts, boundary, Limits(max_parts=2))
    assert chunks == [Chunk((0, 1), True), Chunk((2, 3), True), Chunk((4,), True)]


@pytest.mark.parametrize("sizes", [(1, 50, 3, 200, 7, 7, 7, 90), (120,) * 6, (0, 0, 0, 300, 0)])
def test_every_batch_fits_max_batch_bytes_and_takes_as_many_parts_as_fit(
    sizes: tuple[int, ...],
) -> None:
    boundary, parts = _encoded(_requests(*(b"y" * n for n in sizes)))
    by_index = {p.index: p for p in parts}
    smallest = min(len(join_parts(boundary, [p])) for p in parts)
    for limit in range(smallest, len(join_parts(boundary, parts)) + 2):
        chunks = plan_chunks(parts, boundary, Limits(max_batch_bytes=limit))
        assert [i for c in chunks for i in c.indexes] == list(range(len(parts)))  # order kept
        for chunk, following in itertools.zip_longest(chunks, chunks[1:]):
            if not chunk.batch:
                continue
            members = [by_index[i] for i in chunk.indexes]
            assert len(join_parts(boundary, members)) <= limit
            if following is not None and following.batch:
                grown = [*members, by_index[following.indexes[0]]]
                assert len(join_parts(boundary, grown)) > limit  # the chunk was full


def test_a_part_that_fits_no_batch_travels_standalone_between_batches() -> None:
    boundary, parts = _encoded(_requests(b"a", b"b", b"z" * 500, b"c"))
    chunks = plan_chunks(parts, boundary, Limits(max_part_bytes=100))
    assert chunks == [Chunk((0, 1), True), Chunk((2,), False), Chunk((3,), True)]


def test_a_part_header_section_over_its_limit_travels_standalone() -> None:
    requests = [SubRequest("GET", "/a"), SubRequest("GET", "/b", (("X-Big", "v" * 300),))]
    boundary, parts = _encoded(requests)
    chunks = plan_chunks(parts, boundary, Limits(max_part_header_bytes=200))
    assert chunks == [Chunk((0,), True), Chunk((1,), False)]


def test_a_part_alone_over_max_batch_bytes_travels_standalone() -> None:
    boundary, parts = _encoded(_requests(b"s", b"L" * 400))
    limit = len(join_parts(boundary, parts[:1])) + 10
    chunks = plan_chunks(parts, boundary, Limits(max_batch_bytes=limit))
    assert chunks == [Chunk((0,), True), Chunk((1,), False)]
