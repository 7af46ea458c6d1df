"""The batching proxy in front of a plain uvicorn origin: forwarding, refusals, failures."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Callable
from pathlib import Path

import httpx
import jsonschema
import pytest

from mixbatch.codec import Fields
from mixbatch.server import Request

from ._harness import LoopThread, RunningProxy, Sub, send_batch
from ._origin import ETAG, RunningOrigin

MakeProxy = Callable[..., RunningProxy]
SCHEMA = Path(__file__).parents[2] / "spec" / "schemas" / "capabilities.schema.json"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_answers_each_part_in_request_order(proxy: RunningProxy) -> None:
    subs = [Sub("GET", f"/items/{n}") for n in range(30)]
    answer = send_batch(proxy.url, subs)
    assert answer.status == 200
    assert [p.content_id for p in answer.parts] == [f"/items/{n}" for n in range(30)]
    assert [p.get("X-Item") for p in answer.parts] == [str(n) for n in range(30)]
    assert answer.headers["cache-control"] == "no-transform"


def test_forwards_methods_bodies_and_conditionals(proxy: RunningProxy) -> None:
    subs = [
        Sub("POST", "/echo", (("Content-Type", "text/plain"),), b"hello"),
        Sub("GET", "/etag", (("If-None-Match", ETAG),)),
        Sub("POST", "/items"),
        Sub("HEAD", "/items/7"),
        Sub("GET", "/missing"),
    ]
    parts = send_batch(proxy.url, subs).parts
    assert [p.status for p in parts] == [200, 304, 201, 200, 404]
    assert parts[0].body == b"hello"
    assert parts[1].get("ETag") == ETAG  # MB-PROC-10: passed through unchanged
    assert (
        parts[2].get(
            "Location",
        )
        is not None
    )
    assert parts[2].get("Location").startswith("/items/new")
    assert parts[3].body == b""
    assert parts[4].body == b"no such thing"


def test_passes_plain_requests_through_unchanged(
    proxy: RunningProxy, origin: RunningOrigin
) -> None:
    via = httpx.get(proxy.url + "/items/5?x=1", timeout=10)
    direct = httpx.get(origin.url + "/items/5?x=1", timeout=10)
    assert (via.status_code, via.content) == (direct.status_code, direct.content)
    assert via.headers["x-item"] == direct.headers["x-item"]
    posted = httpx.post(proxy.url + "/echo", content=b"abc", headers={"Content-Type": "a/b"})
    assert (posted.status_code, posted.content, posted.headers["content-type"]) == (
        200,
        b"abc",
        "a/b",
    )
    assert httpx.get(proxy.url + "/nowhere", timeout=10).status_code == 404


def test_refuses_plain_connect_trace_and_serves_absolute_targets_from_its_origin(
    proxy: RunningProxy,
) -> None:
    assert httpx.request("TRACE", proxy.url + "/items/1", timeout=10).status_code == 405
    host, port = proxy.url.removeprefix("http://").split(":")
    answers = []
    for line, named in (
        (b"GET http://elsewhere.example/items/1 HTTP/1.1", f"{host}:{port}".encode()),
        (b"GET /items/1 HTTP/1.1", b"elsewhere.example"),
    ):
        with socket.create_connection((host, int(port)), timeout=10) as sock:
            sock.sendall(line + b"\r\nHost: " + named + b"\r\nConnection: close\r\n\r\n")
            answers.append(b"".join(iter(lambda s=sock: s.recv(65536), b"")))
    # RFC 9112 §3.2.2: an absolute-form request is addressed to the target's authority, the Host
    # field ignored, so it is answered as origin-form with that authority as Host would be; and
    # it is answered from the proxy's one origin, never forwarded to the authority it names.
    assert [a.split(b"\r\n", 1)[0] for a in answers] == [b"HTTP/1.1 200 OK"] * 2
    assert all(b'{"item": "1"}' in a for a in answers)


def test_inherits_authorization_and_cookie_unless_the_part_has_its_own(proxy: RunningProxy) -> None:
    subs = [
        Sub("GET", "/whoami"),
        Sub("GET", "/whoami", (("Authorization", "Bearer part"),)),
    ]
    outer = [("Authorization", "Bearer outer"), ("Cookie", "s=1"), ("X-Extra", "no")]
    first, second = (json.loads(p.body) for p in send_batch(proxy.url, subs, outer).parts)
    assert (first["authorization"], first["cookie"]) == ("Bearer outer", "s=1")
    assert (second["authorization"], second["cookie"]) == ("Bearer part", "s=1")
    # MB-SUB-6: nothing else of the batch request reaches a sub-request.
    assert first["x-extra"] is None
    assert second["x-extra"] is None
    # MB-PROXY-4: the origin's authority in Host.
    assert first["host"] == proxy.proxy.config.upstream.authority


@pytest.mark.parametrize(
    ("sub", "requirement"),
    [
        (Sub("GET", "http://elsewhere.example/items/1"), "MB-SUB-2"),
        (Sub("GET", "//elsewhere.example/items/1"), "MB-SUB-2"),
        (Sub("GET", "/items/1", (("X-Forwarded-Host", "elsewhere.example"),)), "MB-SUB-2"),
        (Sub("GET", "/items/1", (("Forwarded", "host=elsewhere.example"),)), "MB-SUB-2"),
        (Sub("GET", "/batch"), "MB-SUB-4"),
    ],
)
def test_refuses_the_whole_batch_before_forwarding_any_part(
    proxy: RunningProxy, origin: RunningOrigin, sub: Sub, requirement: str
) -> None:
    seen = len(origin.app.peers)
    answer = send_batch(proxy.url, [Sub("POST", "/items"), sub])
    assert answer.status == 400
    problem = json.loads(answer.body)
    assert (problem["requirement"], problem["part_index"]) == (requirement, 1)
    # MB-PROXY-3: the valid first part never reached the origin.
    assert len(origin.app.peers) == seen


def test_refuses_connect_and_trace_parts_via_the_codec(proxy: RunningProxy) -> None:
    for method in ("CONNECT", "TRACE"):
        body = (
            b"--b\r\nHttp-Method: "
            + method.encode()
            + b"\r\nContent-Id: </items/1>\r\n\r\n\r\n--b--\r\n"
        )
        response = httpx.post(
            proxy.url + "/batch",
            content=body,
            headers={"Content-Type": "multipart/mixed; boundary=b"},
        )
        assert response.status_code == 400
        assert response.json()["requirement"] == "MB-SUB-3"


def test_answers_envelope_level_refusals_like_a_batch_server(proxy: RunningProxy) -> None:
    url = proxy.url + "/batch"
    assert httpx.post(url, content=b"x", headers={"Content-Type": "text/plain"}).status_code == 415
    atomic = send_batch(proxy.url, [Sub("GET", "/items/1")], [("Batch-Mode", "atomic")])
    assert atomic.status == 501
    refused = send_batch(proxy.url, [Sub("GET", "/items/1")], [("Accept", "application/json")])
    assert refused.status == 406
    assert httpx.get(url, timeout=10).status_code == 405


def test_publishes_its_limits_in_a_valid_capabilities_document(
    make_proxy: MakeProxy, origin: RunningOrigin
) -> None:
    from mixbatch.codec import Limits

    proxy = make_proxy(origin.url, limits=Limits(max_parts=3))
    response = httpx.options(proxy.url + "/batch", timeout=10)
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.validate(response.json(), schema)
    assert response.json()["limits"]["max_parts"] == 3
    over = send_batch(proxy.url, [Sub("GET", f"/items/{n}") for n in range(4)])
    assert over.status == 413
    assert json.loads(over.body)["limit"] == "max_parts"


def test_turns_an_unreachable_origin_into_502_parts(make_proxy: MakeProxy) -> None:
    proxy = make_proxy(f"http://127.0.0.1:{_free_port()}", connect_timeout=2.0)
    subs = [Sub("GET", "/items/1"), Sub("POST", "/items"), Sub("GET", "/items/2")]
    answer = send_batch(proxy.url, subs)
    assert answer.status == 200  # MB-STATUS-5: never 5xx because parts failed
    assert [p.status for p in answer.parts] == [502, 502, 502]
    problem = json.loads(answer.parts[1].body)
    assert (problem["status"], problem["requirement"], problem["part_index"]) == (
        502,
        "MB-PROXY-2",
        1,
    )
    assert answer.parts[1].get("Content-Type") == "application/problem+json"


def test_turns_a_slow_sub_request_into_a_504_part_and_answers_the_rest(
    make_proxy: MakeProxy, origin: RunningOrigin
) -> None:
    proxy = make_proxy(origin.url, subrequest_timeout=0.5, max_connections=1)
    subs = [
        Sub("GET", "/items/1"),
        Sub("GET", "/slow?ms=4000"),
        Sub("GET", "/items/3"),
        Sub("POST", "/echo", (), b"after"),
        Sub("GET", "/slow?ms=4000"),
        Sub("POST", "/echo", (), b"last"),
    ]
    parts = send_batch(proxy.url, subs).parts
    assert [p.status for p in parts] == [200, 504, 200, 200, 504, 200]
    assert json.loads(parts[1].body)["requirement"] == "MB-PROXY-2"
    assert parts[2].get("X-Item") == "3"  # behind the slow one on the same pipeline
    assert parts[5].body == b"last"


def test_keeps_one_keep_alive_connection_for_a_whole_batch(
    make_proxy: MakeProxy, origin: RunningOrigin
) -> None:
    proxy = make_proxy(origin.url, max_connections=1)
    before = len(origin.app.peers)
    subs = [
        Sub("GET", f"/items/{n}") if n % 3 else Sub("POST", "/echo", (), b"x") for n in range(20)
    ]
    assert all(p.status == 200 for p in send_batch(proxy.url, subs).parts)
    assert len(set(origin.app.peers[before:])) == 1
    assert proxy.pool_opened == 1


def test_stop_policy_skips_every_part_after_the_first_failure(
    proxy: RunningProxy, origin: RunningOrigin
) -> None:
    subs = [
        Sub("GET", "/items/1"),
        Sub("GET", "/missing"),
        Sub("POST", "/items"),
        Sub("GET", "/items/2"),
    ]
    created = origin.app.created
    answer = send_batch(proxy.url, subs, [("Prefer", "batch-on-error=stop")])
    assert answer.headers["preference-applied"] == "batch-on-error=stop"
    assert [(p.status, p.outcome) for p in answer.parts] == [
        (200, None),
        (404, None),
        (None, "skipped"),
        (None, "skipped"),
    ]
    assert origin.app.created == created  # the skipped POST never ran


def test_sends_the_summary_trailer_only_when_asked(proxy: RunningProxy) -> None:
    from ._harness import encode_batch

    content_type, data = encode_batch([Sub("GET", "/items/1"), Sub("GET", "/missing")])
    host, port = proxy.url.removeprefix("http://").split(":")
    head = (
        f"POST /batch HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: {content_type}\r\n"
        f"TE: trailers\r\nContent-Length: {len(data)}\r\nConnection: close\r\n\r\n"
    ).encode()
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(head + data)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    assert b"Batch-Summary: ok=1, failed=1, skipped=0\r\n" in received


def test_a_pass_through_response_closed_unsent_gives_its_connection_back(
    make_proxy: MakeProxy, origin: RunningOrigin, loop_thread: LoopThread
) -> None:
    # The serving connection closes a response body it never sent (its client left first); the
    # upstream connection that body holds must come back, or a one-connection pool is stuck.
    app = make_proxy(origin.url, max_connections=1).proxy.app

    async def closed_unsent_then_another() -> tuple[int, bytes]:
        first = await app(Request("GET", "/items/1", Fields([]), authority="proxy.test"))
        await getattr(first.body, "aclose")()  # noqa: B009 - a streaming body, never iterated
        async with asyncio.timeout(3):
            second = await app(Request("GET", "/items/2", Fields([]), authority="proxy.test"))
            assert not isinstance(second.body, bytes)
            content = b"".join([chunk async for chunk in second.body])
        return second.status, content

    assert loop_thread.run(closed_unsent_then_another()) == (200, b'{"item": "2"}')
