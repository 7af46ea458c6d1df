"""The envelope reader holds a received batch compactly: a part with a dense header section waits
packed in the spool, and reads back exactly as the parser gave it."""

from __future__ import annotations

import tracemalloc

from mixbatch.codec import BatchWriter, Limits
from mixbatch.envelope import INLINE_PART_BYTES, Envelope, EnvelopeReader

BOUNDARY = "envelope-test-boundary"


def _receive(wire: bytes, chunk: int = 65536, spool_threshold: int = 1 << 20) -> Envelope:
    reader = EnvelopeReader(
        BOUNDARY,
        base="/batch",
        scheme="http",
        authority="a",
        batch_paths=("/batch",),
        limits=Limits(),
        spool_threshold=spool_threshold,
    )
    for i in range(0, len(wire), chunk):
        reader.feed(wire[i : i + chunk])
    return reader.finish()


def _dense(parts: int, fields: int) -> bytes:
    writer = BatchWriter(BOUNDARY)
    pairs = [(f"x-{i}", "" if i % 2 else f"v{i}") for i in range(fields)]
    wire = b"".join(
        writer.request_part("GET", f"/books/{i}", pairs, body=b"b" * (i % 3)) for i in range(parts)
    )
    return wire + writer.close()


def test_a_dense_part_reads_back_from_the_spool_as_parsed() -> None:
    envelope = _receive(_dense(3, 97), chunk=1000)
    try:
        for i, part in enumerate(envelope.parts):
            assert part.packed
            assert (part.index, part.method, part.target, part.content_id) == (
                i,
                "GET",
                f"/books/{i}",
                f"/books/{i}",
            )
            assert list(part.fields)[:3] == [("x-0", "v0"), ("x-1", ""), ("x-2", "v2")]
            assert part.fields.get("Content-Length") == str(i % 3)
            assert len(part.fields) == 98
            assert envelope.body(part) == b"b" * (i % 3)
    finally:
        envelope.close()


def test_a_small_part_stays_in_memory() -> None:
    envelope = _receive(_dense(2, 1))
    try:
        assert not any(part.packed for part in envelope.parts)
        assert envelope.parts[1].fields == [("x-0", "v0"), ("Content-Length", "1")]
    finally:
        envelope.close()


def test_held_parts_cost_about_inline_part_bytes_each_however_dense_their_headers() -> None:
    # 1,000 parts of 98 field lines each were 6 MB of tuples and strings when held as parsed;
    # packed, they wait on disk (the spool holds nothing in memory here) and cost a few objects.
    wire = _dense(1_000, 97)
    tracemalloc.start()
    try:
        envelope = _receive(wire, spool_threshold=1)
        snapshot = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    # The codec remembers resolved targets process-wide (bounded, shared by every batch), so
    # what it allocates there is not what this batch holds.
    shared = tracemalloc.Filter(inclusive=False, filename_pattern="*/codec/_target.py")
    held = sum(stat.size for stat in snapshot.filter_traces([shared]).statistics("filename"))
    try:
        assert len(envelope.parts) == 1_000
        assert held < 1_000 * INLINE_PART_BYTES // 2, held
    finally:
        envelope.close()
