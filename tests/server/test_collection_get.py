"""GET collection retrieval: /books as multipart/mixed with an aggregate ETag."""

from __future__ import annotations

import json
from email.utils import parsedate_to_datetime

from mixbatch.codec import BatchParser, Role, parse_batch_content_type

from ._client import HttpClient, parse_batch

MULTIPART = [("Accept", "multipart/mixed")]


def test_collection_answers_each_member_as_a_part(client: HttpClient) -> None:
    reply = client.request("GET", "/books", MULTIPART)
    assert reply.status == 200
    assert reply.header("Vary") == "Accept"
    parts = parse_batch(reply)
    assert [p.content_id for p in parts] == ["/books/1", "/books/2", "/books/3"]
    assert all(p.status == 200 for p in parts)
    member = client.request("GET", "/books/2")
    assert parts[1].body == member.body
    assert parts[1].header("ETag") == member.header("ETag")


def test_collection_is_byte_identical_while_unchanged(client: HttpClient) -> None:
    # A strong ETag promises identical octets, boundary included.
    first = client.request("GET", "/books", MULTIPART)
    second = client.request("GET", "/books", MULTIPART)
    assert first.header("ETag") == second.header("ETag")
    assert first.body == second.body
    assert first.header("ETag") != client.request("GET", "/books").header("ETag")


def test_aggregate_etag_changes_when_a_member_changes(client: HttpClient) -> None:
    before = client.request("GET", "/books", MULTIPART).header("ETag")
    client.request("PATCH", "/books/1", [("Content-Type", "application/json")], b'{"year": 1995}')
    after = client.request("GET", "/books", MULTIPART).header("ETag")
    assert before != after


def test_if_none_match_on_aggregate_etag_is_304(client: HttpClient) -> None:
    etag = client.request("GET", "/books", MULTIPART).header("ETag")
    assert etag is not None
    reply = client.request("GET", "/books", [*MULTIPART, ("If-None-Match", etag)])
    assert reply.status == 304
    assert reply.header("ETag") == etag
    assert reply.header("Vary") == "Accept"


def test_empty_collection_is_204_with_aggregate_etag(client: HttpClient) -> None:
    full = client.request("GET", "/books", MULTIPART).header("ETag")
    for book_id in (1, 2, 3):
        assert client.request("DELETE", f"/books/{book_id}").status == 204
    reply = client.request("GET", "/books", MULTIPART)
    assert reply.status == 204
    assert reply.body == b""
    assert reply.header("ETag") not in (None, full)
    assert reply.header("Vary") == "Accept"
    assert json.loads(client.request("GET", "/books").body) == []


def test_collection_carries_latest_member_last_modified(client: HttpClient) -> None:
    reply = client.request("GET", "/books", MULTIPART)
    members = [p.header("Last-Modified") or "" for p in parse_batch(reply)]
    # The seed books differ in date, so the latest is one member's, not every member's.
    assert len(set(members)) == len(members)
    latest = max(members, key=lambda d: parsedate_to_datetime(d))
    assert reply.header("Last-Modified") == latest


def test_collection_get_with_content_is_400(client: HttpClient) -> None:
    reply = client.request("GET", "/books", MULTIPART, b"x")
    assert reply.status == 400
    assert json.loads(reply.body)["requirement"] == "MB-METHOD-3"


def test_collection_boundary_is_valid_and_absent_from_bodies(client: HttpClient) -> None:
    reply = client.request("GET", "/books", MULTIPART)
    boundary = parse_batch_content_type(reply.header("Content-Type"))
    assert len(boundary) >= 16
    parser = BatchParser(boundary, Role.RESPONSE)
    assert parser.feed(reply.body) + parser.feed_eof()
