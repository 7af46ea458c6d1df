"""The strong aggregate ETag of a collection retrieval follows every field its parts carry."""

from __future__ import annotations

from mixbatch._http.conditional import Validators, format_http_date
from mixbatch.server._collection import Member, aggregate_etag


def _member(modified: float) -> Member:
    fields = [("ETag", '"same"'), ("Last-Modified", format_http_date(modified))]
    return Member("/books/9", Validators('"same"', modified), fields, b"{}")


def test_a_rewrite_with_the_same_body_a_second_later_changes_the_tag() -> None:
    # MB-METHOD-7: the part's Last-Modified changes its octets, so the strong tag changes too.
    assert aggregate_etag([_member(1_000_000.0)]) != aggregate_etag([_member(1_000_001.0)])


def test_the_same_state_gives_the_same_tag() -> None:
    assert aggregate_etag([_member(1_000_000.0)]) == aggregate_etag([_member(1_000_000.0)])
