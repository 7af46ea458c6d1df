"""mixbatch.envelope: a batch received whole and validated before anything runs, its bodies
spooled, large header sections packed into the spool, and the spool dropped on any error."""

from __future__ import annotations

import pytest

from mixbatch.codec import BatchWriter, LimitExceeded, Limits, RemoteProtocolError
from mixbatch.envelope import INLINE_PART_BYTES, EnvelopeReader, check_declared_length


def _reader(boundary: str, **options: object) -> EnvelopeReader:
    return EnvelopeReader(
        boundary,
        base="/batch",
        scheme="http",
        authority="test",
        batch_paths=("/batch",),
        limits=options.pop("limits", Limits()),  # type: ignore[arg-type]
        **options,  # type: ignore[arg-type]
    )


def _content(*parts: tuple[str, str, list[tuple[str, str]], bytes]) -> tuple[str, bytes]:
    writer = BatchWriter()
    data = b"".join(writer.request_part(m, t, f, b) for m, t, f, b in parts) + writer.close()
    return writer.boundary, data


def test_parts_come_out_in_order_with_their_targets_fields_and_bodies() -> None:
    boundary, data = _content(
        ("GET", "/books/1", [("Accept", "application/json")], b""),
        ("PUT", "books/2", [("Content-Type", "text/plain")], b"two"),
    )
    reader = _reader(boundary)
    for octet in range(0, len(data), 7):  # in small chunks, as a socket delivers it
        reader.feed(data[octet : octet + 7])
    envelope = reader.finish()
    try:
        assert [(p.index, p.method, p.target) for p in envelope.parts] == [
            (0, "GET", "/books/1"),
            (1, "PUT", "/books/2"),  # resolved against the batch's own target
        ]
        assert envelope.parts[0].fields.get("Accept") == "application/json"
        assert [envelope.body(p) for p in envelope.parts] == [b"", b"two"]
    finally:
        envelope.close()


def test_a_large_header_section_is_packed_into_the_spool_and_read_back() -> None:
    fields = [(f"X-F{n}", "v" * 40) for n in range(40)]
    boundary, data = _content(("GET", "/a", fields, b""), ("GET", "/b", [], b"body"))
    reader = _reader(boundary)
    reader.feed(data)
    envelope = reader.finish()
    try:
        big, small = envelope.parts
        assert big.packed
        assert not small.packed
        assert [f for f in big.fields if f[0].startswith("X-F")] == fields
        assert big.target == "/a"
        assert envelope.body(small) == b"body"
        assert sum(len(n) + len(v) for n, v in fields) * 3 > INLINE_PART_BYTES
    finally:
        envelope.close()


def test_a_packed_part_has_no_attribute_beyond_a_part_s() -> None:
    fields = [(f"X-F{n}", "v" * 40) for n in range(40)]
    boundary, data = _content(("GET", "/a", fields, b""))
    reader = _reader(boundary)
    reader.feed(data)
    envelope = reader.finish()
    try:
        (big,) = envelope.parts
        assert big.packed
        assert (big.method, big.content_id) == ("GET", "/a")
        with pytest.raises(AttributeError, match="no_such"):
            big.no_such  # type: ignore[attr-defined]  # noqa: B018
    finally:
        envelope.close()


def test_parts_naming_one_target_each_resolve_it_alike() -> None:
    boundary, data = _content(*[("GET", "books/7?x=1", [], b"")] * 3, ("GET", "/books/7", [], b""))
    reader = _reader(boundary)
    reader.feed(data)
    envelope = reader.finish()
    try:
        assert [(p.index, p.target, p.content_id) for p in envelope.parts] == [
            (0, "/books/7?x=1", "books/7?x=1"),
            (1, "/books/7?x=1", "books/7?x=1"),
            (2, "/books/7?x=1", "books/7?x=1"),
            (3, "/books/7", "/books/7"),
        ]
    finally:
        envelope.close()


def test_a_refused_target_is_refused_at_every_part_that_names_it() -> None:
    # The first part alone is fine; the second names the batch endpoint (MB-SUB-4) after a
    # first part that resolved other targets, so nothing remembered may let it through.
    boundary, data = _content(("GET", "/a", [], b""), ("GET", "/batch", [], b""))
    reader = _reader(boundary)
    with pytest.raises(RemoteProtocolError) as caught:
        reader.feed(data)
    assert (caught.value.requirement, caught.value.part_index) == ("MB-SUB-4", 1)


def test_closing_the_envelope_drops_its_parts_and_its_spool() -> None:
    boundary, data = _content(("GET", "/a", [], b""), ("PUT", "/b", [], b"two"))
    reader = _reader(boundary)
    reader.feed(data)
    envelope = reader.finish()
    assert len(envelope.parts) == 2
    envelope.close()
    assert envelope.parts == []
    assert envelope.spool.closed


def test_bodies_over_the_threshold_spill_to_disk_and_still_read_back() -> None:
    body = bytes(range(256)) * 64
    boundary, data = _content(("POST", "/a", [("Content-Type", "x/y")], body))
    reader = _reader(boundary, spool_threshold=1024)
    reader.feed(data)
    envelope = reader.finish()
    try:
        assert envelope.spool._rolled  # type: ignore[attr-defined]  # on disk, not in memory
        assert envelope.body(envelope.parts[0]) == body
    finally:
        envelope.close()


def test_a_part_leaving_the_origin_rejects_the_batch_and_drops_the_spool() -> None:
    boundary, data = _content(("GET", "/ok", [], b""), ("GET", "http://other.test/x", [], b""))
    reader = _reader(boundary)
    with pytest.raises(RemoteProtocolError) as caught:
        reader.feed(data)
    assert caught.value.requirement == "MB-SUB-2"
    assert reader._envelope.spool.closed


def test_content_that_ends_early_is_incomplete_and_drops_the_spool() -> None:
    boundary, data = _content(("GET", "/ok", [], b""))
    reader = _reader(boundary)
    reader.feed(data[:-10])
    with pytest.raises(RemoteProtocolError):
        reader.finish()
    assert reader._envelope.spool.closed


def test_a_declared_length_over_the_limit_is_413_before_reading() -> None:
    limits = Limits(max_batch_bytes=100)
    check_declared_length(100, limits)
    check_declared_length("100", limits)
    check_declared_length(None, limits)
    check_declared_length("not a number", limits)
    with pytest.raises(LimitExceeded) as caught:
        check_declared_length("101", limits)
    assert caught.value.status_hint == 413
