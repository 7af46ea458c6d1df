"""The batch endpoint: running parts, error policy, refusals before anything runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from mixbatch.codec import Limits
from mixbatch.server import ServerConfig

from ._client import HttpClient, RunningServer, build_batch, parse_batch, post_batch

SCHEMAS = Path(__file__).resolve().parents[2] / "spec" / "schemas"
BOOK = json.dumps({"title": "Dune", "author": "Frank Herbert", "year": 1965}).encode()
JSON_FIELDS = [("Content-Type", "application/json")]


def schema(name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((SCHEMAS / name).read_text("utf-8"))
    return document


def assert_problem(reply: Any, status: int, requirement: str | None = None) -> dict[str, Any]:
    assert reply.status == status
    assert reply.header("Content-Type") == "application/problem+json"
    document: dict[str, Any] = json.loads(reply.body)
    assert document["status"] == status
    assert document["type"].startswith("https://mixbatch.dev/problems/")
    assert document["title"]
    assert document["detail"]
    if requirement is not None:
        assert document["requirement"] == requirement
        jsonschema.validate(document, schema("problem.schema.json"))
    return document


def book_count(client: HttpClient) -> int:
    return len(json.loads(client.request("GET", "/books").body))


def test_runs_parts_in_order_and_echoes_content_id(client: HttpClient) -> None:
    reply = post_batch(client, [("GET", "books/1"), ("GET", "/books/2"), ("GET", "books/99")])
    assert reply.status == 200
    assert reply.header(
        "Content-Type",
    ).startswith("multipart/mixed; boundary=")  # type: ignore[union-attr]
    parts = parse_batch(reply)
    assert [p.status for p in parts] == [200, 200, 404]
    assert [p.content_id for p in parts] == ["books/1", "/books/2", "books/99"]
    assert json.loads(parts[1].body)["id"] == 2


def test_content_id_is_echoed_octet_for_octet(client: HttpClient) -> None:
    content_type, body = build_batch([("GET", "./books/../books/1?a=%7E")])
    reply = client.request("POST", "/batch", [("Content-Type", content_type)], body)
    assert b"Content-Id: <./books/../books/1?a=%7E>\r\n" in reply.body
    assert parse_batch(reply)[0].status == 200


def test_created_resource_uri_is_in_location(client: HttpClient) -> None:
    reply = post_batch(client, [("POST", "books", JSON_FIELDS, BOOK), ("GET", "books/4")])
    created, fetched = parse_batch(reply)
    assert created.status == 201
    assert created.header("Location") == "/books/4"
    assert created.content_id == "books"
    assert fetched.status == 200


def test_a_failed_part_does_not_fail_the_batch(client: HttpClient) -> None:
    reply = post_batch(client, [("GET", "status/500"), ("GET", "books/1")])
    assert reply.status == 200
    assert [p.status for p in parse_batch(reply)] == [500, 200]


def test_default_policy_is_continue_without_preference_applied(client: HttpClient) -> None:
    reply = post_batch(client, [("GET", "books/99"), ("GET", "books/1")])
    assert [p.status for p in parse_batch(reply)] == [404, 200]
    assert reply.header("Preference-Applied") is None


def test_stop_policy_skips_later_parts_without_status(client: HttpClient) -> None:
    reply = post_batch(
        client,
        [("GET", "books/1"), ("GET", "books/99"), ("POST", "books", JSON_FIELDS, BOOK)],
        [("Prefer", "batch-on-error=stop")],
    )
    assert reply.header("Preference-Applied") == "batch-on-error=stop"
    parts = parse_batch(reply)
    assert [(p.status, p.outcome) for p in parts] == [(200, None), (404, None), (None, "skipped")]
    assert parts[2].content_id == "books"
    assert book_count(client) == 3


def test_continue_preference_is_applied_explicitly(client: HttpClient) -> None:
    reply = post_batch(client, [("GET", "books/99")], [("Prefer", "batch-on-error=continue")])
    assert reply.header("Preference-Applied") == "batch-on-error=continue"


def test_an_atomic_batch_with_an_unknown_mode_is_501_before_anything_runs(
    client: HttpClient,
) -> None:
    reply = post_batch(
        client, [("POST", "books", JSON_FIELDS, BOOK)], [("Batch-Mode", "atomic, mb-no-such")]
    )
    assert_problem(reply, 501, "MB-PROC-12")
    assert book_count(client) == 3


def test_wrong_media_type_is_415_with_accept_post(client: HttpClient) -> None:
    reply = client.request("POST", "/batch", [("Content-Type", "application/json")], b"{}")
    assert_problem(reply, 415, "MB-WIRE-2")
    assert reply.header("Accept-Post") == "multipart/mixed"


def test_missing_boundary_is_400(client: HttpClient) -> None:
    reply = client.request("POST", "/batch", [("Content-Type", "multipart/mixed")], b"x")
    assert_problem(reply, 400, "MB-WIRE-4")


def test_unacceptable_accept_is_406(client: HttpClient) -> None:
    reply = post_batch(client, [("GET", "books/1")], [("Accept", "text/html")])
    assert_problem(reply, 406, "MB-STATUS-9")


@pytest.mark.parametrize("method", ["GET", "HEAD", "PUT", "DELETE"])
def test_other_methods_are_405_with_allow(client: HttpClient, method: str) -> None:
    reply = client.request(method, "/batch")
    assert reply.status == 405
    assert reply.header("Allow") == "OPTIONS, POST"


def test_get_with_content_on_batch_endpoint_is_400(client: HttpClient) -> None:
    content_type, body = build_batch([("GET", "books/1")])
    reply = client.request("GET", "/batch", [("Content-Type", content_type)], body)
    assert_problem(reply, 400, "MB-METHOD-3")


@pytest.mark.parametrize(
    "lines", [["gzip"], ["identity, gzip"], ["identity", "gzip"]], ids=["one", "list", "two-lines"]
)
def test_batch_with_content_coding_is_415_with_accept_encoding(
    client: HttpClient, lines: list[str]
) -> None:
    head = [("Content-Encoding", line) for line in lines]
    reply = post_batch(client, [("GET", "books/1")], head)
    # MB-INTER-6 gives the 415; spec 5.3: its problem document names MB-WIRE-2.
    assert_problem(reply, 415, "MB-WIRE-2")
    assert reply.header("Accept-Encoding") == "identity"


def test_batch_response_says_no_transform_and_vary_accept(client: HttpClient) -> None:
    reply = post_batch(client, [("GET", "books/1")])
    assert reply.header("Cache-Control") == "no-transform"
    assert reply.header("Vary") == "Accept"


def test_unrecognised_error_preference_is_treated_as_absent(client: HttpClient) -> None:
    reply = post_batch(
        client, [("GET", "books/99"), ("GET", "books/1")], [("Prefer", "batch-on-error=maybe")]
    )
    assert reply.header("Preference-Applied") is None
    assert [p.status for p in parse_batch(reply)] == [404, 200]


def test_unknown_batch_mode_is_501(client: HttpClient) -> None:
    assert_problem(
        post_batch(client, [("GET", "books/1")], [("Batch-Mode", "eventual")]), 501, "MB-PROC-12"
    )


def test_asterisk_target_is_400(client: HttpClient) -> None:
    body = b"--b\r\nHttp-Method: OPTIONS\r\nContent-Id: <*>\r\n\r\n\r\n--b--\r\n"
    reply = client.request(
        "POST", "/batch", [("Content-Type", "multipart/mixed; boundary=b")], body
    )
    assert reply.status == 400
    assert json.loads(reply.body)["requirement"] in {"MB-SUB-8", "MB-SUB-2"}


def test_options_returns_capabilities(client: HttpClient, server: RunningServer) -> None:
    reply = client.request("OPTIONS", "/batch")
    assert reply.status == 200
    assert reply.header("Content-Type") == "application/vnd.mixbatch.capabilities+json"
    assert reply.header("Accept-Post") == "multipart/mixed"
    assert reply.header("Allow") == "OPTIONS, POST"
    document = json.loads(reply.body)
    jsonschema.validate(document, schema("capabilities.schema.json"))
    assert document["limits"] == {
        **server.config.limits.as_document(),
        "max_batches_in_flight": server.config.max_batches_in_flight,
    }
    assert {"atomic", "references"} <= set(document["profiles"])


def test_malformed_envelope_is_400_naming_requirement_part_and_offset(client: HttpClient) -> None:
    good = (
        b"--b\r\nHttp-Method: POST\r\nContent-Id: <books>\r\nContent-Type: application/json\r\n\r\n"
        + BOOK
    )
    bad = b"\r\n--b\r\nContent-Id: <books/1>\r\n\r\n\r\n--b--\r\n"
    reply = client.request(
        "POST", "/batch", [("Content-Type", "multipart/mixed; boundary=b")], good + bad
    )
    document = assert_problem(reply, 400, "MB-PART-2")
    assert document["part_index"] == 1
    assert isinstance(document["byte_offset"], int)
    # MB-PROC-1: the valid first part did not run.
    assert book_count(client) == 3


def test_bare_lf_in_part_header_is_400(client: HttpClient) -> None:
    body = b"--b\r\nHttp-Method: GET\nContent-Id: <books/1>\r\n\r\n\r\n--b--\r\n"
    reply = client.request(
        "POST", "/batch", [("Content-Type", "multipart/mixed; boundary=b")], body
    )
    assert_problem(reply, 400, "MB-WIRE-8")


def test_missing_close_delimiter_is_400_and_nothing_runs(client: HttpClient) -> None:
    body = (
        b"--b\r\nHttp-Method: POST\r\nContent-Id: <books>\r\nContent-Type: application/json\r\n\r\n"
        + BOOK
    )
    reply = client.request(
        "POST", "/batch", [("Content-Type", "multipart/mixed; boundary=b")], body
    )
    assert_problem(reply, 400, "MB-WIRE-13")
    assert book_count(client) == 3


def test_nested_batch_is_400(client: HttpClient) -> None:
    reply = post_batch(client, [("GET", "books/1"), ("POST", "batch")])
    document = assert_problem(reply, 400, "MB-SUB-4")
    assert document["part_index"] == 1


def test_network_path_target_is_400(client: HttpClient) -> None:
    reply = post_batch(client, [("GET", "//evil.example/books/1")])
    document = assert_problem(reply, 400, "MB-SUB-2")
    assert document["part_index"] == 0


def test_absolute_target_on_same_origin_runs(client: HttpClient) -> None:
    # The test client sends Host: test.
    reply = post_batch(client, [("GET", "http://test/books/1")])
    assert parse_batch(reply)[0].status == 200


def test_other_origin_target_is_400(client: HttpClient) -> None:
    assert_problem(post_batch(client, [("GET", "http://other/books/1")]), 400, "MB-SUB-2")


def test_trace_part_is_400(client: HttpClient) -> None:
    body = b"--b\r\nHttp-Method: TRACE\r\nContent-Id: <echo>\r\n\r\n\r\n--b--\r\n"
    reply = client.request(
        "POST", "/batch", [("Content-Type", "multipart/mixed; boundary=b")], body
    )
    assert_problem(reply, 400, "MB-SUB-3")


@pytest.mark.parametrize("method", ["trace", "connect", "Trace"])
def test_forbidden_method_of_another_case_is_answered_in_its_part(
    client: HttpClient, method: str
) -> None:
    # Spec 3.2.1: method names are case-sensitive; another case "is answered in its part like
    # any unknown method ...; it is not an envelope error".
    body = f"--b\r\nHttp-Method: {method}\r\nContent-Id: <echo>\r\n\r\n\r\n--b--\r\n".encode()
    reply = client.request(
        "POST", "/batch", [("Content-Type", "multipart/mixed; boundary=b")], body
    )
    assert reply.status == 200
    part = parse_batch(reply)[0]
    # The echo answers every method a sub-request may carry (MB-TEST-2), and `trace` is
    # another method than TRACE: described as sent, never read as TRACE.
    assert part.status in (200, 405, 501)
    if part.status == 200:
        assert json.loads(part.body)["method"] == method


def test_batch_over_octet_limit_is_413_before_any_part_runs(make_server: Any) -> None:
    running: RunningServer = make_server(ServerConfig(port=0, limits=Limits(max_batch_bytes=2048)))
    parts = [("POST", "books", JSON_FIELDS, BOOK), ("POST", "echo", [], b"x" * 4096)]
    with running.client() as http:
        document = assert_problem(post_batch(http, parts), 413, "MB-STATUS-3")
        assert document["limit"] == "max_batch_bytes"
    with running.client() as http:
        assert book_count(http) == 3


def test_chunked_batch_over_octet_limit_is_413_before_any_part_runs(make_server: Any) -> None:
    running: RunningServer = make_server(ServerConfig(port=0, limits=Limits(max_batch_bytes=2048)))
    content_type, body = build_batch(
        [("POST", "books", JSON_FIELDS, BOOK), ("POST", "echo", [], b"x" * 4096)]
    )
    with running.client() as http:
        reply = http.request(
            "POST",
            "/batch",
            [("Content-Type", content_type), ("Transfer-Encoding", "chunked")],
            body,
        )
        assert_problem(reply, 413, "MB-STATUS-3")
    with running.client() as http:
        assert book_count(http) == 3


def test_too_many_parts_is_413(make_server: Any) -> None:
    running: RunningServer = make_server(ServerConfig(port=0, limits=Limits(max_parts=2)))
    with running.client() as http:
        reply = post_batch(http, [("GET", "books/1")] * 3)
    assert_problem(reply, 413, "MB-STATUS-3")


def test_oversized_part_header_section_is_431(make_server: Any) -> None:
    running: RunningServer = make_server(
        ServerConfig(port=0, limits=Limits(max_part_header_bytes=256))
    )
    with running.client() as http:
        reply = post_batch(http, [("GET", "books/1", [("X-Pad", "p" * 400)], b"")])
    assert_problem(reply, 431, "MB-STATUS-3")


def test_authorization_and_cookie_are_inherited_unless_part_has_its_own(client: HttpClient) -> None:
    reply = post_batch(
        client,
        [("GET", "echo"), ("GET", "echo", [("Authorization", "Bearer part")], b"")],
        [("Authorization", "Bearer outer"), ("Cookie", "s=1"), ("X-Outer", "no")],
    )
    first, second = (json.loads(p.body)["headers"] for p in parse_batch(reply))
    assert ["Authorization", "Bearer outer"] in first
    assert ["Cookie", "s=1"] in first
    assert ["Authorization", "Bearer part"] in second
    assert ["Authorization", "Bearer outer"] not in second
    # MB-SUB-6: no other batch request field reaches a sub-request.
    assert all(name.lower() not in {"x-outer", "prefer", "content-type"} for name, _ in first)


def test_part_body_reaches_the_sub_request(client: HttpClient) -> None:
    payload = bytes(range(256)) * 8
    reply = post_batch(
        client, [("POST", "echo", [("Content-Type", "application/octet-stream")], payload)]
    )
    document = json.loads(parse_batch(reply)[0].body)
    assert document["body_base64"]
    import base64

    assert base64.b64decode(document["body_base64"]) == payload


def test_large_part_body_spills_to_disk_and_arrives_intact(make_server: Any) -> None:
    running: RunningServer = make_server(ServerConfig(port=0, spool_memory_threshold=1024))
    payload = b"0123456789abcdef" * 4096  # 64 KiB, far over the 1 KiB spool threshold
    with running.client() as http:
        reply = post_batch(http, [("POST", "echo", [], payload), ("GET", "random/10?seed=1")])
    echo, random = parse_batch(reply)
    assert json.loads(echo.body)["body"] == payload.decode()
    assert len(random.body) == 10


def test_batch_summary_trailer_when_client_accepts_trailers(client: HttpClient) -> None:
    reply = post_batch(client, [("GET", "books/1"), ("GET", "books/99")], [("TE", "trailers")])
    assert reply.header("Trailer") == "Batch-Summary"
    assert reply.header("Transfer-Encoding") == "chunked"
    assert ("Batch-Summary", "ok=1, failed=1, skipped=0") in reply.trailers


def test_whole_batch_timeout_after_200_ends_with_aborted_part(make_server: Any) -> None:
    running: RunningServer = make_server(ServerConfig(port=0, batch_timeout=0.3))
    with running.client() as http:
        reply = post_batch(http, [("GET", "books/1"), ("GET", "delay/5000"), ("GET", "books/2")])
        assert reply.status == 200
        parts = parse_batch(reply)  # the close delimiter arrived: the codec raises otherwise
        assert [p.outcome for p in parts] == [None, "aborted"]
        assert parts[0].status == 200
        aborted = parts[1]
        assert aborted.status is None
        assert aborted.header("Content-Type") == "application/problem+json"
        document = json.loads(aborted.body)
        assert document["requirement"] == "MB-STATUS-6"
        assert document["part_index"] == 1
        # The connection is still usable afterwards.
        assert http.request("GET", "/books/2").status == 200


def test_repeated_part_content_length_is_400(client: HttpClient) -> None:
    body = (
        b"--b\r\nHttp-Method: POST\r\nContent-Id: <echo>\r\nContent-Length: 2\r\n"
        b"Content-Length: 2\r\n\r\nhi\r\n--b--\r\n"
    )
    reply = client.request(
        "POST", "/batch", [("Content-Type", "multipart/mixed; boundary=b")], body
    )
    document = assert_problem(reply, 400, "MB-WIRE-20")
    assert document["part_index"] == 0


def test_off_origin_target_is_reported_at_its_content_id_line(client: HttpClient) -> None:
    body = b"--b\r\nContent-Id: <//elsewhere/x>\r\nHttp-Method: GET\r\n\r\n\r\n--b--\r\n"
    reply = client.request(
        "POST", "/batch", [("Content-Type", "multipart/mixed; boundary=b")], body
    )
    document = assert_problem(reply, 400, "MB-SUB-2")
    assert document["byte_offset"] == body.index(b"Content-Id")


@pytest.mark.parametrize(
    ("target", "host"),
    [("http://127.0.0.1:80/books/1", "127.0.0.1"), ("http://LOCALHOST/books/1", "localhost:80")],
)
def test_a_default_port_or_another_host_case_is_the_batch_origin(
    client: HttpClient, target: str, host: str
) -> None:
    # RFC 3986 §6.2.3: an absent port equals the scheme's default port.
    reply = post_batch(client, [("GET", target)], [("Host", host)])
    assert reply.status == 200, reply.body
    assert [p.status for p in parse_batch(reply)] == [200]
