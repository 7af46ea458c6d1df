"""End-to-end fields: what a part keeps of a sub-response (MB-RESP-4)."""

from __future__ import annotations

from mixbatch.codec import Fields, end_to_end


def test_drops_hop_by_hop_framing_and_connection_named_fields() -> None:
    pairs = [
        ("Content-Type", "text/plain"),
        ("Connection", "close, X-Hop"),
        ("X-Hop", "1"),
        ("Transfer-Encoding", "chunked"),
        ("Content-Length", "5"),
        ("ETag", '"a"'),
        ("X-Extra", "2"),
    ]
    assert end_to_end(pairs, drop=("x-extra",)) == Fields(
        [("Content-Type", "text/plain"), ("ETag", '"a"')]
    )


def test_keeps_order_and_case_of_what_it_keeps() -> None:
    assert list(end_to_end([("b", "1"), ("A", "2")])) == [("b", "1"), ("A", "2")]


def test_pairs_are_the_fields_as_one_tuple() -> None:
    fields = Fields([("A", "1"), ("b", "2")])
    assert fields.pairs == (("A", "1"), ("b", "2"))
    assert hash(fields.pairs) == hash(fields)
