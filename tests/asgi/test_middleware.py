"""BatchMiddleware in-process, driven with raw batch bytes through httpx's ASGI transport."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from mixbatch.asgi import BatchMiddleware, PartRequest

from ._exchange import SCHEMAS, batch, call, parts_of, problem
from .app import make_app, make_batched_app


def test_options_returns_a_valid_capabilities_document() -> None:
    response = call(make_batched_app(), "OPTIONS", "/batch")
    assert response.status_code == 200
    assert response.headers["accept-post"] == "multipart/mixed"
    assert response.headers["allow"] == "OPTIONS, POST"
    schema = json.loads((SCHEMAS / "capabilities.schema.json").read_text())
    jsonschema.validate(response.json(), schema)
    assert response.json()["limits"]["max_parts"] == 10_000


def test_other_paths_reach_the_app_untouched() -> None:
    assert call(make_batched_app(), "GET", "/books/1").json()["id"] == 1


def test_runs_parts_in_order_through_the_whole_app() -> None:
    headers, body = batch(
        ("GET", "/books/1", [], b""),
        ("POST", "books", [("Content-Type", "application/json")], b'{"title":"New"}'),
        ("GET", "/books/999", [], b""),
    )
    parts = parts_of(call(make_batched_app(), "POST", "/batch", headers, body))
    assert [p[0] for p in parts] == [200, 201, 404]
    assert parts[1][2]["location"] == "/books/3"
    assert parts[1][2]["content-id"] == "<books>"  # echoed octet for octet (MB-RESP-3)


def test_a_part_sees_the_scope_a_standalone_request_would() -> None:
    headers, body = batch(("PUT", "/echo?q=a%20b", [("X-Part", "1")], b"payload"))
    headers |= {"Prefer": "respond-async", "X-Outer": "no"}
    echoed = json.loads(parts_of(call(make_batched_app(), "POST", "/batch", headers, body))[0][3])
    names = {k.lower(): v for k, v in echoed["headers"]}
    assert (echoed["method"], echoed["target"]) == ("PUT", "/echo?q=a%20b")
    assert names["host"] == "testserver"
    assert names["x-part"] == "1"
    assert names["content-length"] == "7"
    assert echoed["body"] == "payload"
    # MB-SUB-6: no other outer field reaches the part.
    assert "prefer" not in names
    assert "x-outer" not in names
    assert "content-type" not in names


def test_outer_credentials_are_inherited_and_a_part_s_own_replace_them() -> None:
    headers, body = batch(
        ("GET", "/private", [], b""),
        ("GET", "/private", [("Authorization", "Bearer nope")], b""),
    )
    headers["Authorization"] = "Bearer secret"
    parts = parts_of(call(make_batched_app(), "POST", "/batch", headers, body))
    assert [p[0] for p in parts] == [200, 401]


def test_the_app_s_own_middleware_guards_every_part() -> None:
    # MB-SUB-1: the app's auth middleware refuses a revoked token in a part as it does alone.
    headers, body = batch(("GET", "/books/1", [("Authorization", "Bearer revoked")], b""))
    alone = call(make_batched_app(), "GET", "/books/1", {"Authorization": "Bearer revoked"})
    parts = parts_of(call(make_batched_app(), "POST", "/batch", headers, body))
    assert alone.status_code == parts[0][0] == 401


def test_a_post_never_takes_the_number_a_put_created() -> None:
    # MB-TEST-3: a PUT may create the member it names, and a POST answers "by creating a new
    # member": it skips the numbers PUTs took, alone and in a part, and leaves those books be.
    app = make_batched_app()
    json_type = {"Content-Type": "application/json"}
    first = call(app, "POST", "/books", json_type, b'{"title":"first"}').headers["location"]
    number = int(first.rsplit("/", 1)[1])
    put = [f"/books/{number + k}" for k in range(1, 4)]
    for path in put:
        doc = json.dumps({"title": path}).encode()
        assert call(app, "PUT", path, json_type, doc).status_code == 201
    alone = call(app, "POST", "/books", json_type, b'{"title":"alone"}')
    headers, body = batch(("POST", "/books", list(json_type.items()), b'{"title":"part"}'))
    parts = parts_of(call(app, "POST", "/batch", headers, body))
    created = [alone.headers["location"], parts[0][2]["location"]]
    assert [alone.status_code, parts[0][0]] == [201, 201]
    assert not set(created) & {first, *put}
    assert len(set(created)) == 2
    assert [call(app, "GET", path).json()["title"] for path in put] == put


def test_authorize_part_refuses_a_part_with_403_before_the_app_sees_it() -> None:
    seen: list[str] = []
    inner = make_app()

    async def spy(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            seen.append(scope["path"])
        await inner(scope, receive, send)

    def only_reads(part: PartRequest) -> bool:
        return part.method == "GET"

    app = BatchMiddleware(spy, authorize_part=only_reads)
    headers, body = batch(("GET", "/books/1", [], b""), ("DELETE", "/books/1", [], b""))
    parts = parts_of(call(app, "POST", "/batch", headers, body))
    assert [p[0] for p in parts] == [200, 403]
    assert json.loads(parts[1][3])["part_index"] == 1
    assert seen == ["/books/1"]  # the refused DELETE never reached the app


def test_an_async_authorizer_is_awaited() -> None:
    async def deny(part: PartRequest) -> bool:
        return False

    headers, body = batch(("GET", "/books/1", [], b""))
    parts = parts_of(call(make_batched_app(authorize_part=deny), "POST", "/batch", headers, body))
    assert parts[0][0] == 403


def test_stop_policy_skips_later_parts_without_a_status() -> None:
    headers, body = batch(
        ("GET", "/books/1", [], b""), ("GET", "/nope", [], b""), ("POST", "/books", [], b"{}")
    )
    headers["Prefer"] = "batch-on-error=stop"
    response = call(make_batched_app(), "POST", "/batch", headers, body)
    assert response.headers["preference-applied"] == "batch-on-error=stop"
    assert [(p[0], p[1]) for p in parts_of(response)] == [
        (200, None),
        (404, None),
        (None, "skipped"),
    ]


def test_an_unknown_batch_on_error_value_is_ignored() -> None:
    headers, body = batch(("GET", "/nope", [], b""), ("GET", "/books/1", [], b""))
    headers["Prefer"] = "batch-on-error=maybe"
    response = call(make_batched_app(), "POST", "/batch", headers, body)
    assert "preference-applied" not in response.headers
    assert [p[0] for p in parts_of(response)] == [404, 200]


@pytest.mark.parametrize(
    ("method", "headers", "status", "requirement"),
    [
        ("GET", {}, 405, "MB-METHOD-2"),
        ("POST", {"Batch-Mode": "atomic"}, 501, "MB-PROC-7"),
        ("POST", {"Batch-Mode": "atomic, references"}, 501, "MB-PROC-7"),
        ("POST", {"Batch-Mode": "references, sideways"}, 501, "MB-PROC-12"),
        ("POST", {"Content-Type": "text/plain"}, 415, "MB-WIRE-2"),
        ("POST", {"Accept": "application/xml"}, 406, "MB-STATUS-9"),
        ("POST", {"Content-Length": str(1 << 30)}, 413, "MB-STATUS-3"),
    ],
)
def test_refuses_before_running_anything(
    method: str, headers: dict[str, str], status: int, requirement: str
) -> None:
    batch_headers, body = batch(("POST", "/books", [], b'{"title":"never"}'))
    app = BatchMiddleware(make_app())  # no transaction hook: no atomic profile
    response = call(
        app, method, "/batch", batch_headers | headers, body if method == "POST" else b""
    )
    assert response.status_code == status
    assert problem(response)["requirement"] == requirement
    if status == 415:
        assert response.headers["accept-post"] == "multipart/mixed"
    if status == 405:
        assert response.headers["allow"] == "OPTIONS, POST"
    assert b"never" not in call(app, "GET", "/books").content


def test_a_malformed_later_part_rejects_the_batch_with_its_index_and_offset() -> None:
    headers, body = batch(
        ("POST", "/books", [("Content-Type", "application/json")], b'{"title":"never"}')
    )
    bad = body.replace(b"Content-Id: </books>\r\n", b"Content-Id: </books>\n")
    app = make_batched_app()
    response = call(app, "POST", "/batch", headers, bad)
    document = problem(response)
    assert (response.status_code, document["requirement"], document["part_index"]) == (
        400,
        "MB-WIRE-8",
        0,
    )
    assert bad[document["byte_offset"] :].startswith(b"Content-Id")
    assert b"never" not in call(app, "GET", "/books").content


@pytest.mark.parametrize(
    ("target", "requirement"),
    [("/batch", "MB-SUB-4"), ("//evil.example/x", "MB-SUB-2"), ("http://other/x", "MB-SUB-2")],
)
def test_refuses_nested_and_off_origin_targets(target: str, requirement: str) -> None:
    headers, body = batch(("GET", "/books/1", [], b""), ("GET", target, [], b""))
    response = call(make_batched_app(), "POST", "/batch", headers, body)
    document = problem(response)
    assert (response.status_code, document["requirement"], document["part_index"]) == (
        400,
        requirement,
        1,
    )


def test_a_failing_app_is_that_part_s_500_not_the_batch_s() -> None:
    async def broken(scope: Any, receive: Any, send: Any) -> None:
        raise RuntimeError("boom")

    headers, body = batch(("GET", "/x", [], b""))
    parts = parts_of(call(BatchMiddleware(broken), "POST", "/batch", headers, body))
    assert parts[0][0] == 500


def test_a_batch_past_its_time_limit_ends_with_an_abort_part() -> None:
    headers, body = batch(
        ("GET", "/books/1", [], b""), ("GET", "/delay/5000", [], b""), ("GET", "/books/2", [], b"")
    )
    app = make_batched_app(batch_timeout=0.2)
    parts = parts_of(call(app, "POST", "/batch", headers, body))
    assert [(p[0], p[1]) for p in parts] == [(200, None), (None, "aborted")]
    assert json.loads(parts[1][3])["part_index"] == 1


def test_constructor_validates_its_arguments() -> None:
    with pytest.raises(ValueError, match="path"):
        BatchMiddleware(make_app(), path="batch")
    with pytest.raises(ValueError, match="atomic"):
        BatchMiddleware(make_app(), profiles=["atomic"])
    with pytest.raises(ValueError, match="inherit_headers"):
        BatchMiddleware(make_app(), inherit_headers=["bad name"])


@pytest.mark.parametrize("profile", ["xml", "json", "Core", "sideways"])
def test_a_profile_the_middleware_does_not_offer_is_refused_by_name(profile: str) -> None:
    with pytest.raises(ValueError, match=rf"profiles \['{profile}'\] are not offered"):
        BatchMiddleware(make_app(), profiles=[profile])


@pytest.mark.parametrize("timeout", [0, -1.0, float("nan")])
def test_a_batch_timeout_that_is_not_positive_is_refused(timeout: float) -> None:
    with pytest.raises(ValueError, match=r"batch_timeout must be positive"):
        BatchMiddleware(make_app(), batch_timeout=timeout)


def test_a_content_coded_batch_is_415_with_accept_encoding_identity_and_runs_nothing() -> None:
    batch_headers, body = batch(("POST", "/books", [], b'{"title":"never"}'))
    app = BatchMiddleware(make_app())
    headers = batch_headers | {"Content-Encoding": "gzip", "Accept": "application/xml"}
    response = call(app, "POST", "/batch", headers, body)
    assert response.status_code == 415  # before Accept is looked at
    assert response.headers["accept-encoding"] == "identity"
    assert problem(response)["type"].endswith("/unsupported-content-coding")
    # Spec 5.3: "A 415 for an unsupported content coding ... names MB-WIRE-2".
    assert problem(response)["requirement"] == "MB-WIRE-2"
    assert b"never" not in call(app, "GET", "/books").content


def test_a_coding_on_a_second_content_encoding_line_is_415() -> None:
    # MB-INTER-6 with RFC 9110 §8.4: every member of every line is a coding applied.
    batch_headers, body = batch(("POST", "/books", [], b'{"title":"never"}'))
    app = BatchMiddleware(make_app())
    headers = [*batch_headers.items(), ("Content-Encoding", "identity"), ("Content-Encoding", "br")]
    response = call(app, "POST", "/batch", headers, body)
    assert response.status_code == 415
    assert b"never" not in call(app, "GET", "/books").content


def test_a_head_part_carries_no_content_though_the_app_sent_some() -> None:
    # RFC 9110 §9.3.2: the middleware is the server for its parts, so it drops what an ASGI
    # server would drop on the wire (Starlette sends the GET body for HEAD).
    headers, body = batch(("HEAD", "/books/1", [], b""), ("GET", "/books/1", [], b""))
    head, get = parts_of(call(make_batched_app(), "POST", "/batch", headers, body))
    assert head[0] == get[0] == 200
    assert head[3] == b""
    assert get[3] != b""
