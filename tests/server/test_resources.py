"""Behaviour of each embedded resource, sent as standalone requests."""

from __future__ import annotations

import asyncio
import json

import pytest

from mixbatch._http.conditional import format_http_date

from ._client import FIXED_NOW, HttpClient, RunningServer


def test_seeded_book_exists_with_validators(client: HttpClient) -> None:
    reply = client.request("GET", "/books/1")
    assert reply.status == 200
    assert reply.reason == "OK"
    assert json.loads(reply.body)["id"] == 1
    etag = reply.header("ETag")
    assert etag is not None
    assert etag.startswith('"')
    assert not etag.startswith("W/")
    assert reply.header("Last-Modified") == format_http_date(FIXED_NOW)
    assert reply.header("Date") is not None


def test_missing_book_is_404_problem(client: HttpClient) -> None:
    reply = client.request("GET", "/books/99")
    assert reply.status == 404
    assert reply.header("Content-Type") == "application/problem+json"
    assert json.loads(reply.body)["status"] == 404


def test_non_numeric_book_id_is_404(client: HttpClient) -> None:
    assert client.request("GET", "/books/abc").status == 404


def test_book_list_is_json_with_vary_accept(client: HttpClient) -> None:
    reply = client.request("GET", "/books")
    assert reply.status == 200
    assert [b["id"] for b in json.loads(reply.body)] == [1, 2, 3]
    assert reply.header("Vary") == "Accept"
    assert reply.header("ETag") is not None


def test_post_creates_book_with_location_and_etag(client: HttpClient) -> None:
    book = {"title": "Dune", "author": "Frank Herbert", "year": 1965}
    reply = client.request(
        "POST", "/books", [("Content-Type", "application/json")], json.dumps(book).encode()
    )
    assert reply.status == 201
    assert reply.header("Location") == "/books/4"
    etag = reply.header("ETag")
    fetched = client.request("GET", "/books/4")
    assert fetched.status == 200
    assert fetched.header("ETag") == etag
    assert json.loads(fetched.body)["title"] == "Dune"


def test_post_rejects_non_json_media_type(client: HttpClient) -> None:
    reply = client.request("POST", "/books", [("Content-Type", "text/plain")], b"x")
    assert reply.status == 415


def test_post_rejects_invalid_json_and_invalid_books(client: HttpClient) -> None:
    ctype = [("Content-Type", "application/json")]
    assert client.request("POST", "/books", ctype, b"{nope").status == 400
    assert client.request("POST", "/books", ctype, b'{"title": "x"}').status == 422
    assert (
        client.request("POST", "/books", ctype, b'{"title":"x","author":"y","isbn":1}').status
        == 422
    )


def test_put_replaces_and_changes_etag(client: HttpClient) -> None:
    before = client.request("GET", "/books/2").header("ETag")
    body = json.dumps({"title": "TAOCP 1", "author": "Knuth", "year": 1968}).encode()
    reply = client.request("PUT", "/books/2", [("Content-Type", "application/json")], body)
    assert reply.status == 200
    assert reply.header("ETag") != before
    assert json.loads(client.request("GET", "/books/2").body)["title"] == "TAOCP 1"


def test_patch_merges_and_null_removes_year(client: HttpClient) -> None:
    reply = client.request(
        "PATCH", "/books/3", [("Content-Type", "application/merge-patch+json")], b'{"year": null}'
    )
    assert reply.status == 200
    document = json.loads(reply.body)
    assert document["year"] is None
    assert document["title"] == "Weaving the Web"


def test_patch_with_wrong_media_type_is_415_with_accept_patch(client: HttpClient) -> None:
    reply = client.request("PATCH", "/books/3", [("Content-Type", "text/plain")], b"x")
    assert reply.status == 415
    assert reply.header("Accept-Patch") == "application/merge-patch+json"


def test_delete_removes_book(client: HttpClient) -> None:
    assert client.request("DELETE", "/books/1").status == 204
    assert client.request("GET", "/books/1").status == 404
    assert client.request("DELETE", "/books/1").status == 404


def test_unlisted_method_is_405_with_allow(client: HttpClient) -> None:
    reply = client.request("POST", "/books/1", [("Content-Type", "application/json")], b"{}")
    assert reply.status == 405
    assert reply.header("Allow") == "DELETE, GET, HEAD, OPTIONS, PATCH, PUT"


def test_options_on_resource_lists_allow(client: HttpClient) -> None:
    reply = client.request("OPTIONS", "/books")
    assert reply.status == 204
    assert reply.header("Allow") == "GET, HEAD, OPTIONS, POST"


def test_head_has_get_fields_and_no_content(client: HttpClient) -> None:
    get = client.request("GET", "/books/1")
    head = client.request("HEAD", "/books/1")
    assert head.status == 200
    assert head.body == b""
    assert head.header("Content-Length") == str(len(get.body))
    assert head.header("ETag") == get.header("ETag")


def test_unknown_path_is_404(client: HttpClient) -> None:
    assert client.request("GET", "/nowhere").status == 404


def test_random_returns_exactly_n_octets(client: HttpClient) -> None:
    reply = client.request("GET", "/random/1024")
    assert reply.status == 200
    assert len(reply.body) == 1024
    assert reply.header("Content-Type") == "application/octet-stream"


def test_random_without_seed_differs_from_one_request_to_the_next(client: HttpClient) -> None:
    small = [client.request("GET", "/random/1024").body for _ in range(4)]
    assert all(len(body) == 1024 for body in small)
    assert len(set(small)) == 4
    # Above the pooled size the octets are drawn afresh, and still exactly n of them.
    large = [client.request("GET", "/random/70000").body for _ in range(2)]
    assert [len(body) for body in large] == [70000, 70000]
    assert large[0] != large[1]


def test_random_with_seed_is_reproducible(client: HttpClient) -> None:
    first = client.request("GET", "/random/100?seed=7").body
    assert client.request("GET", "/random/100?seed=7").body == first
    assert client.request("GET", "/random/100?seed=8").body != first


def test_random_over_limit_is_413(make_server: object) -> None:
    from mixbatch.server import ServerConfig

    running: RunningServer = make_server(ServerConfig(port=0, max_random_bytes=10))  # type: ignore[operator]
    with running.client() as http:
        assert http.request("GET", "/random/10").status == 200
        reply = http.request("GET", "/random/11")
    assert reply.status == 413
    assert reply.header("Content-Type") == "application/problem+json"


def test_echo_reflects_method_target_headers_and_body(client: HttpClient) -> None:
    reply = client.request(
        "PUT", "/echo?x=1", [("X-Thing", "a b"), ("Content-Type", "text/plain")], b"hello"
    )
    document = json.loads(reply.body)
    assert document["method"] == "PUT"
    assert document["target"] == "/echo?x=1"
    assert ["X-Thing", "a b"] in document["headers"]
    assert document["body"] == "hello"
    # Host and framing fields belong to the connection, not the request.
    names = {name.lower() for name, _ in document["headers"]}
    assert not names & {"host", "content-length"}


def test_echo_base64_encodes_binary_content(client: HttpClient) -> None:
    document = json.loads(client.request("POST", "/echo", [], b"\xff\x00").body)
    assert document["body_base64"] == "/wA="


@pytest.mark.parametrize("method", ["PROPFIND", "MB-EXT", "get"])
def test_echo_answers_any_method_a_sub_request_may_carry(client: HttpClient, method: str) -> None:
    reply = client.request(method, "/echo", [], b"x")
    assert reply.status == 200
    assert json.loads(reply.body)["method"] == method


@pytest.mark.parametrize("method", ["TRACE", "CONNECT"])
def test_echo_refuses_methods_no_sub_request_may_carry(client: HttpClient, method: str) -> None:
    reply = client.request(method, "/echo", [], b"")
    assert reply.status == 405
    assert "TRACE" not in (reply.header("Allow") or "")


def test_status_answers_requested_code(client: HttpClient) -> None:
    assert client.request("GET", "/status/418").status == 418
    no_content = client.request("GET", "/status/204")
    assert no_content.status == 204
    assert no_content.body == b""
    assert client.request("GET", "/status/99").status == 400
    assert client.request("GET", "/status/600").status == 400


#: Three digits in other scripts (Arabic-Indic, fullwidth) and the same percent-encoded.
OTHER_DIGITS = ["\u0662\u0660\u0660", "\uff12\uff10\uff10", "%D9%A2%D9%A0%D9%A0"]


@pytest.mark.parametrize("raw", OTHER_DIGITS)
def test_status_and_delay_handlers_read_us_ascii_digits_only(raw: str) -> None:
    """DIGIT is US-ASCII (RFC 5234 B.1): other scripts' digits are no status code or delay,
    whether the router hands them on decoded or percent-encoded."""
    from mixbatch.server._resources import delay, status

    (route,) = delay.routes(10_000)
    loop = asyncio.new_event_loop()
    try:
        answered = status._status(None, {"code": raw})  # type: ignore[arg-type]
        assert loop.run_until_complete(answered).status == 400
        waited = route.handlers["GET"](None, {"ms": raw})  # type: ignore[arg-type]
        assert loop.run_until_complete(waited).status == 400
    finally:
        loop.close()


@pytest.mark.parametrize("raw", [r for r in OTHER_DIGITS if r.isascii()])
def test_status_and_delay_refuse_other_digits_on_the_wire(client: HttpClient, raw: str) -> None:
    assert client.request("GET", f"/status/{raw}").status == 400
    assert client.request("GET", f"/delay/{raw}").status == 400


def test_delay_answers_after_sleeping_and_refuses_over_cap(client: HttpClient) -> None:
    reply = client.request("GET", "/delay/5")
    assert reply.status == 200
    assert json.loads(reply.body) == {"delayed_ms": 5}
    assert client.request("GET", "/delay/999999").status == 400


def test_standalone_body_over_request_limit_is_413(make_server: object) -> None:
    from mixbatch.server import ServerConfig

    running: RunningServer = make_server(ServerConfig(port=0, max_request_body_bytes=100))  # type: ignore[operator]
    with running.client() as http:
        assert http.request("POST", "/echo", [], b"x" * 100).status == 200
        reply = http.request("POST", "/echo", [], b"x" * 101)
    assert reply.status == 413
    assert reply.header("Content-Type") == "application/problem+json"
