"""Conditional requests give 304 and 412 exactly as RFC 9110 §13.2.2 orders them."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from mixbatch._http.conditional import (
    Validators,
    evaluate,
    format_http_date,
    parse_etags,
    parse_http_date,
)
from mixbatch.codec import Fields

from ._client import FIXED_NOW, HttpClient

CURRENT = Validators('"abc"', FIXED_NOW)
EARLIER = format_http_date(FIXED_NOW - 60)
SAME = format_http_date(FIXED_NOW)
NOW = FIXED_NOW + 3600


def run(method: str, *fields: tuple[str, str]) -> int | None:
    return evaluate(method, Fields(fields), CURRENT, NOW)


@pytest.mark.parametrize(
    ("method", "fields", "expected"),
    [
        ("GET", [], None),
        ("GET", [("If-None-Match", '"abc"')], 304),
        ("GET", [("If-None-Match", 'W/"abc"')], 304),  # weak comparison
        ("GET", [("If-None-Match", '"x", "abc"')], 304),
        ("GET", [("If-None-Match", "*")], 304),
        ("GET", [("If-None-Match", '"other"')], None),
        ("PUT", [("If-None-Match", '"abc"')], 412),
        ("PUT", [("If-None-Match", "*")], 412),
        ("GET", [("If-Match", '"abc"')], None),
        ("GET", [("If-Match", 'W/"abc"')], 412),  # strong comparison
        ("PUT", [("If-Match", '"other"')], 412),
        ("PUT", [("If-Match", "*")], None),
        ("GET", [("If-Modified-Since", SAME)], 304),
        ("GET", [("If-Modified-Since", EARLIER)], None),
        ("HEAD", [("If-Modified-Since", SAME)], 304),
        ("PUT", [("If-Modified-Since", SAME)], None),  # only GET and HEAD
        ("GET", [("If-Modified-Since", "not a date")], None),
        ("GET", [("If-Modified-Since", format_http_date(NOW + 86400))], None),  # future: invalid
        ("PUT", [("If-Unmodified-Since", EARLIER)], 412),
        ("PUT", [("If-Unmodified-Since", SAME)], None),
        ("PUT", [("If-Unmodified-Since", "garbage")], None),
        # A date field on two lines is a list of dates (RFC 9110 §5.3), no HTTP-date: ignored,
        # whichever line alone would decide.
        ("GET", [("If-Modified-Since", SAME), ("If-Modified-Since", EARLIER)], None),
        ("GET", [("If-Modified-Since", EARLIER), ("If-Modified-Since", SAME)], None),
        ("PUT", [("If-Unmodified-Since", EARLIER), ("If-Unmodified-Since", SAME)], None),
        ("PUT", [("If-Unmodified-Since", SAME), ("If-Unmodified-Since", EARLIER)], None),
        # If-None-Match takes precedence over If-Modified-Since (§13.2.2 step 3 before 4).
        ("GET", [("If-None-Match", '"other"'), ("If-Modified-Since", SAME)], None),
        # If-Match takes precedence over If-Unmodified-Since (step 1 before 2).
        ("PUT", [("If-Match", '"abc"'), ("If-Unmodified-Since", EARLIER)], None),
        # A failed If-Match is 412 even when If-None-Match would say 304 (step 1 first).
        ("GET", [("If-Match", '"other"'), ("If-None-Match", '"abc"')], 412),
    ],
)
def test_evaluate_follows_rfc9110_order(
    method: str, fields: list[tuple[str, str]], expected: int | None
) -> None:
    assert run(method, *fields) == expected


def test_parse_http_date_accepts_all_three_forms() -> None:
    expected = 784111777.0
    assert parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT") == expected
    assert parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT") == expected
    assert parse_http_date("Sun Nov  6 08:49:37 1994") == expected
    assert parse_http_date("yesterday") is None


@pytest.mark.parametrize(
    "value",
    ["Sun, 06 Nov 1994 08:49:60 GMT", "Sunday, 06-Nov-94 08:49:60 GMT", "Sun Nov  6 08:49:60 1994"],
)
def test_parse_http_date_reads_a_leap_second_as_the_next_minute(value: str) -> None:
    # RFC 9110 §5.6.7: time-of-day "00:00:00 - 23:59:60 (leap second)".
    assert parse_http_date(value) == parse_http_date("Sun, 06 Nov 1994 08:50:00 GMT")


@pytest.mark.parametrize(
    ("value", "year"),
    [
        ("Wednesday, 15-Jan-31 09:30:00 GMT", 2031),
        ("Thursday, 15-Jan-71 09:30:00 GMT", 2071),
        ("Thursday, 15-Jan-81 09:30:00 GMT", 1981),
        ("Sunday, 15-Jan-06 09:30:00 GMT", 2006),
    ],
)
def test_parse_http_date_reads_two_digit_years_by_the_50_year_rule(value: str, year: int) -> None:
    # RFC 9110 §5.6.7: an rfc850-date's year that "appears to be more than 50 years in the
    # future" is "the most recent year in the past that had the same last two digits"; read in
    # 2026, 71 is 2071 (45 years ahead) and 81 is 1981, whatever pivot a library uses.
    now = datetime(2026, 11, 30, tzinfo=UTC).timestamp()
    read = parse_http_date(value, now)
    assert read is not None
    assert datetime.fromtimestamp(read, UTC) == datetime(year, 1, 15, 9, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    "value",
    [
        "Sun, 06 Nov 1994 08:49:37 GMT, Mon, 07 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 08:49:37 UTC",
        "Sun, 06 Nov 1994 08:49:37 +0000",
        "Sun, 06 Nov 1994 08:49:37",
        "06 Nov 1994 08:49:37 GMT",
        "Sun, 06 nov 1994 08:49:37 GMT",
        "Sun, 6 Nov 1994 08:49:37 GMT",
        "1994-11-06T08:49:37Z",
    ],
)
def test_parse_http_date_refuses_what_is_no_http_date(value: str) -> None:
    # RFC 9110 §5.6.7: a list of dates, or a date in another zone or without its day, is no
    # HTTP-date, and §13.1.3 makes an If-Modified-Since holding one ignored.
    assert parse_http_date(value) is None


def test_parse_etags_rejects_unquoted_tags() -> None:
    assert parse_etags('"a", W/"b"') == [(False, '"a"'), (True, '"b"')]
    assert parse_etags("abc") is None


def test_parse_etags_reads_lists_as_rfc_9110_does() -> None:
    # RFC 9110 §5.6.1.2: empty list elements and the whitespace around elements are ignored;
    # a comma inside the quotes belongs to the opaque-tag (§8.8.3).
    assert parse_etags(', "a" ,') == [(False, '"a"')]
    assert parse_etags('"a" ,,\tW/"b"') == [(False, '"a"'), (True, '"b"')]
    assert parse_etags('"a,b", "c"') == [(False, '"a,b"'), (False, '"c"')]
    assert parse_etags('"a""b"') is None


def test_get_with_matching_if_none_match_is_304_with_etag(client: HttpClient) -> None:
    etag = client.request("GET", "/books/1").header("ETag")
    assert etag is not None
    reply = client.request("GET", "/books/1", [("If-None-Match", etag)])
    assert reply.status == 304
    assert reply.body == b""
    assert reply.header("ETag") == etag


def test_get_if_modified_since_last_modified_is_304(client: HttpClient) -> None:
    reply = client.request("GET", "/books/1", [("If-Modified-Since", SAME)])
    assert reply.status == 304


def test_put_with_stale_if_match_is_412_and_changes_nothing(client: HttpClient) -> None:
    before = client.request("GET", "/books/1")
    body = json.dumps({"title": "t", "author": "a"}).encode()
    reply = client.request(
        "PUT",
        "/books/1",
        [("Content-Type", "application/json"), ("If-Match", '"stale"')],
        body,
    )
    assert reply.status == 412
    assert reply.header("Content-Type") == "application/problem+json"
    assert client.request("GET", "/books/1").body == before.body


def test_put_with_current_if_match_succeeds(client: HttpClient) -> None:
    etag = client.request("GET", "/books/1").header("ETag")
    assert etag is not None
    body = json.dumps({"title": "t", "author": "a"}).encode()
    reply = client.request(
        "PUT", "/books/1", [("Content-Type", "application/json"), ("If-Match", etag)], body
    )
    assert reply.status == 200


def test_delete_with_stale_if_unmodified_since_is_412(client: HttpClient) -> None:
    reply = client.request("DELETE", "/books/1", [("If-Unmodified-Since", EARLIER)])
    assert reply.status == 412
    assert client.request("GET", "/books/1").status == 200


def test_preconditions_are_ignored_for_missing_resource(client: HttpClient) -> None:
    # RFC 9110 §13.2.1: the response would not be 2xx without them, so 404, not 412.
    assert client.request("GET", "/books/42", [("If-Match", '"x"')]).status == 404
    assert client.request("DELETE", "/books/42", [("If-Match", "*")]).status == 404


BOOK = json.dumps({"title": "t", "author": "a", "year": 2000}).encode()


def _count(client: HttpClient) -> int:
    listing = json.loads(client.request("GET", "/books", [("Accept", "application/json")]).body)
    assert isinstance(listing, list)
    return len(listing)


@pytest.mark.parametrize(
    "field",
    [("If-None-Match", "*"), ("If-Match", '"not-the-collection"'), ("If-Match", 'W/"x"')],
)
def test_post_whose_collection_precondition_fails_is_412_and_creates_nothing(
    client: HttpClient, field: tuple[str, str]
) -> None:
    # RFC 9110 §9.3.3: a POST's target is the collection, which has a current representation,
    # so If-None-Match: * is false (§13.1.2) and so is an If-Match naming none of its tags.
    before = _count(client)
    reply = client.request("POST", "/books", [("Content-Type", "application/json"), field], BOOK)
    assert reply.status == 412
    assert reply.header("Location") is None
    assert _count(client) == before


def test_post_precondition_is_judged_before_the_content(client: HttpClient) -> None:
    # RFC 9110 §13.2.1: preconditions come before the content is processed: 412, not 415.
    reply = client.request("POST", "/books", [("If-None-Match", "*")], b"text")
    assert reply.status == 412


@pytest.mark.parametrize("accept", ["application/json", "multipart/mixed"])
def test_post_whose_collection_precondition_holds_creates(client: HttpClient, accept: str) -> None:
    # If-Match: * and the current tag of the representation a GET with the same Accept selects
    # hold; If-None-Match with that tag fails.
    head = [("Content-Type", "application/json"), ("Accept", accept)]

    def tag() -> str:
        etag = client.request("GET", "/books", [("Accept", accept)]).header("ETag")
        assert etag is not None
        return etag

    assert client.request("POST", "/books", [*head, ("If-Match", "*")], BOOK).status == 201
    assert client.request("POST", "/books", [*head, ("If-Match", tag())], BOOK).status == 201
    assert client.request("POST", "/books", [*head, ("If-None-Match", tag())], BOOK).status == 412


def test_empty_collection_retrieval_ignores_an_old_if_modified_since(client: HttpClient) -> None:
    # An empty collection has no member to take a date from: the epoch leaves it 204.
    epoch = "Thu, 01 Jan 1970 00:00:00 GMT"
    for method in ("GET", "HEAD"):
        reply = client.request(
            method,
            "/collections/empty",
            [("Accept", "multipart/mixed"), ("If-Modified-Since", epoch)],
        )
        assert reply.status == 204, method
