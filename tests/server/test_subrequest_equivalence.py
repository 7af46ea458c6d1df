"""A sub-request and the same request sent alone get identical responses (thesis ch. 5.2).

Two fresh servers with the same seeded state and a fixed clock: one receives a sequence of
requests one by one, the other receives the same sequence as one batch. Each sub-response must
equal its standalone twin in status, end-to-end header fields (Date and Server are the
connection's, framing fields are each message's own) and content. Sequences, not single
requests, so that state changes (POST then GET, DELETE then GET) are compared too.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mixbatch._http.messages import FRAMING_AND_HOP_FIELDS

from ._client import LoopThread, build_batch, parse_batch, start_server

Call = tuple[str, str, list[tuple[str, str]], bytes]
#: Fields the connection adds to every response; they describe the message, not the resource.
CONNECTION_FIELDS = frozenset({"date", "server"}) | FRAMING_AND_HOP_FIELDS

JSON = ("Content-Type", "application/json")
BOOK = json.dumps({"title": "Dune", "author": "Frank Herbert", "year": 1965}).encode()

#: At least one request per resource and method the server offers.
EVERY_RESOURCE: list[Call] = [
    ("GET", "/books", [], b""),
    ("HEAD", "/books", [], b""),
    ("GET", "/books", [("Accept", "multipart/mixed")], b""),
    ("GET", "/books", [("Accept", "text/html")], b""),
    ("GET", "/books", [], b"content"),
    ("POST", "/books", [JSON], BOOK),
    ("POST", "/books", [("Content-Type", "text/plain")], b"x"),
    ("OPTIONS", "/books", [], b""),
    ("GET", "/books/1", [], b""),
    ("HEAD", "/books/2", [], b""),
    ("GET", "/books/1", [("If-None-Match", "*")], b""),
    ("GET", "/books/1", [("If-Modified-Since", "Tue, 14 Nov 2023 22:13:20 GMT")], b""),
    ("PUT", "/books/2", [JSON], BOOK),
    ("PUT", "/books/2", [JSON, ("If-Match", '"stale"')], BOOK),
    ("PATCH", "/books/3", [("Content-Type", "application/merge-patch+json")], b'{"year":2000}'),
    ("DELETE", "/books/1", [], b""),
    ("GET", "/books/1", [], b""),
    ("POST", "/books/1", [JSON], b"{}"),
    ("GET", "/random/64?seed=5", [], b""),
    ("GET", "/random/x", [], b""),
    ("POST", "/echo?q=1", [("X-Test", "yes"), ("Content-Type", "text/plain")], b"body"),
    ("DELETE", "/echo", [("Authorization", "Bearer t"), ("Cookie", "a=b")], b"\xff\x00"),
    ("GET", "/status/418", [], b""),
    ("GET", "/status/204", [], b""),
    ("GET", "/status/1", [], b""),
    ("GET", "/delay/1", [], b""),
    ("GET", "/no/such/thing", [], b""),
]


def _end_to_end(pairs: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(k.lower(), v) for k, v in pairs if k.lower() not in CONNECTION_FIELDS]


def _compare(loop: LoopThread, calls: Sequence[Call]) -> None:
    alone = start_server(loop)
    batched = start_server(loop)
    try:
        with alone.client() as http:
            standalone = [http.request(m, t, h, b) for m, t, h, b in calls]
        content_type, body = build_batch([(m, t, h, b) for m, t, h, b in calls])
        with batched.client() as http:
            reply = http.request("POST", "/batch", [("Content-Type", content_type)], body)
        assert reply.status == 200, reply.body
        parts = parse_batch(reply)
    finally:
        alone.stop()
        batched.stop()
    assert len(parts) == len(calls)
    for call, single, part in zip(calls, standalone, parts, strict=True):
        assert part.status == single.status, call
        assert _end_to_end(part.fields) == _end_to_end(single.headers), call
        assert part.body == single.body, call


@pytest.mark.parametrize("call", EVERY_RESOURCE, ids=lambda c: f"{c[0]} {c[1]}")
def test_sub_request_equals_standalone_request(loop_thread: LoopThread, call: Call) -> None:
    _compare(loop_thread, [call])


def test_sub_request_sequence_equals_standalone_sequence(loop_thread: LoopThread) -> None:
    _compare(loop_thread, EVERY_RESOURCE)


_header_value = st.text(
    alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1, max_size=12
)
_headers = st.lists(
    st.tuples(
        st.sampled_from(
            ["X-Test", "Accept", "If-None-Match", "If-Match", "Authorization", "Cookie"]
        ),
        st.one_of(_header_value, st.sampled_from(["*", "multipart/mixed", '"x"'])),
    ),
    max_size=3,
)
_book_id = st.integers(min_value=0, max_value=6).map(str)


@st.composite
def calls(draw: Any) -> Call:
    """One request to a random resource and method; shrinks towards GET /books/0."""
    kind = draw(st.sampled_from(["book", "books", "random", "echo", "status", "other"]))
    headers: list[tuple[str, str]] = draw(_headers)
    if kind == "book":
        method = draw(st.sampled_from(["GET", "HEAD", "PUT", "PATCH", "DELETE", "POST"]))
        body = draw(st.sampled_from([b"", BOOK, b'{"year": 1}', b"[", b'{"title": 3}']))
        if body:
            headers.append(JSON)
        return method, f"/books/{draw(_book_id)}", headers, body
    if kind == "books":
        method = draw(st.sampled_from(["GET", "HEAD", "POST", "OPTIONS"]))
        body = BOOK if method == "POST" else b""
        return method, "/books", [*headers, JSON] if body else headers, body
    if kind == "random":
        size = draw(st.integers(min_value=0, max_value=300))
        return "GET", f"/random/{size}?seed={draw(st.integers(0, 9))}", headers, b""
    if kind == "echo":
        method = draw(st.sampled_from(["GET", "POST", "PUT", "PATCH", "DELETE"]))
        return method, "/echo", headers, draw(st.binary(max_size=64))
    if kind == "status":
        return "GET", f"/status/{draw(st.integers(100, 650))}", headers, b""
    return draw(st.sampled_from(["GET", "DELETE"])), "/nowhere", headers, b""


@settings(
    max_examples=40,
    deadline=None,
)
@given(st.lists(calls(), min_size=1, max_size=4))
def test_any_request_sequence_gets_identical_responses(
    loop_thread: LoopThread, sequence: list[Call]
) -> None:
    _compare(loop_thread, sequence)
