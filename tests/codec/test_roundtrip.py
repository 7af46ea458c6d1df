"""Writer output parses back to the same sub-requests, however the bytes are chunked."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mixbatch.codec import (
    BatchEnd,
    BatchParser,
    BatchWriter,
    Event,
    PartData,
    PartEnd,
    RequestPartStart,
    ResponsePartStart,
    Role,
)

from .strategies import SUB_REQUESTS, SubRequest, boundaries, chunkings


def parse(boundary: str, data: bytes, cuts: list[int], role: Role = Role.REQUEST) -> list[Event]:
    parser = BatchParser(boundary, role)
    events: list[Event] = []
    last = 0
    for cut in [*cuts, len(data)]:
        events += parser.feed(data[last:cut])
        last = cut
    return events + parser.feed_eof()


def collect(events: list[Event]) -> list[tuple[object, bytes]]:
    """Group events into (start event, body) pairs, checking their order on the way."""
    parts: list[tuple[object, bytes]] = []
    body = bytearray()
    start: object = None
    for ev in events:
        if isinstance(ev, (RequestPartStart, ResponsePartStart)):
            assert start is None
            start, body = ev, bytearray()
        elif isinstance(ev, PartData):
            assert start is not None
            assert ev.index == start.index
            body += ev.data
        elif isinstance(ev, PartEnd):
            assert start is not None
            assert ev.length == len(body)
            parts.append((start, bytes(body)))
            start = None
    assert isinstance(events[-1], BatchEnd)
    assert events[-1].parts == len(parts)
    return parts


def write(boundary: str, subs: list[SubRequest]) -> bytes:
    writer = BatchWriter(boundary)
    out = b"".join(writer.request_part(s.method, s.target, s.fields, s.body) for s in subs)
    return out + writer.close()


@st.composite
def batches(draw: st.DrawFn) -> tuple[str, list[SubRequest]]:
    subs = draw(st.lists(SUB_REQUESTS, min_size=1, max_size=6))
    return draw(boundaries([s.body for s in subs])), subs


@settings(max_examples=300)
@given(batches(), st.data())
def test_request_batches_round_trip_under_any_chunking(
    batch: tuple[str, list[SubRequest]], data: st.DataObject
) -> None:
    boundary, subs = batch
    wire = write(boundary, subs)
    cuts = data.draw(chunkings(len(wire)))
    parts = collect(parse(boundary, wire, cuts))
    assert len(parts) == len(subs)
    for (start, body), sub in zip(parts, subs, strict=True):
        assert isinstance(start, RequestPartStart)
        assert (start.method, start.target, body) == (sub.method, sub.target, sub.body)
        assert list(start.fields.without("Content-Length")) == list(sub.fields)
        assert start.fields.get("content-length") == str(len(sub.body))


@given(batches())
def test_byte_by_byte_feeding_gives_the_same_parts_as_one_feed(
    batch: tuple[str, list[SubRequest]],
) -> None:
    boundary, subs = batch
    wire = write(boundary, subs)
    whole = collect(parse(boundary, wire, []))
    single = collect(parse(boundary, wire, list(range(1, len(wire)))))
    assert whole == single


@given(batches(), st.binary(max_size=64))
def test_trailing_garbage_after_the_close_delimiter_is_an_ignored_epilogue(
    batch: tuple[str, list[SubRequest]], garbage: bytes
) -> None:
    boundary, subs = batch
    wire = write(boundary, subs)
    assert collect(parse(boundary, wire + garbage, [len(wire)])) == collect(
        parse(boundary, wire, [])
    )


@given(st.lists(st.tuples(st.integers(100, 599), st.binary(max_size=200)), min_size=1, max_size=5))
def test_response_batches_round_trip(parts: list[tuple[int, bytes]]) -> None:
    writer = BatchWriter()
    wire = (
        b"".join(
            writer.response_part(
                status, f"items/{i}", [("Content-Type", "application/octet-stream")], body
            )
            for i, (status, body) in enumerate(parts)
        )
        + writer.close()
    )
    got = collect(parse(writer.boundary, wire, [], Role.RESPONSE))
    for i, ((start, body), (status, sent)) in enumerate(zip(got, parts, strict=True)):
        assert isinstance(start, ResponsePartStart)
        assert (start.status, start.content_id, start.outcome, body) == (
            status,
            f"items/{i}",
            None,
            sent,
        )


def test_skipped_and_aborted_parts_carry_no_status() -> None:
    writer = BatchWriter("b0und4ry")
    wire = (
        writer.response_part(404, "a")
        + writer.response_part(None, "b", outcome="skipped")
        + writer.response_part(
            None, None, [("Content-Type", "application/problem+json")], b"{}", outcome="aborted"
        )
        + writer.close()
    )
    got = collect(parse("b0und4ry", wire, [], Role.RESPONSE))
    assert [(s.status, s.outcome) for s, _ in got] == [
        (404, None),
        (None, "skipped"),
        (None, "aborted"),
    ]  # type: ignore[attr-defined]
