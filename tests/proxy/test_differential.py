"""Differential properties of the proxy against the reference server.

Parts: each part of a batch through the proxy equals the same request sent straight to the
origin (status, header fields less the volatile and framing ones, content). Runs against both
origins: the plain uvicorn app of ``_origin`` and the reference server used as a plain origin.
Sub-requests are drawn from stateless shapes, so sending each twice (once in the batch, once
alone) cannot change the answer. Shrinks toward one-part batches of the first shape.

Outer requests: a malformed or edge batch request (bad framing, a content coding, the wrong media
type, a bad boundary, no parts ...) gets the same status and the same problem ``type`` from the
proxy as from the reference server, octet for octet the same request, and the proxy logs nothing
at error level for it: the fault is the client's.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ._harness import (
    Part,
    RunningProxy,
    RunningReference,
    Sub,
    encode_batch,
    raw_exchange,
    send_batch,
)
from ._origin import ETAG, RunningOrigin

#: Fields that differ between any two responses (Date), that name the hop (Server, which the
#: proxy's own connection writes for plain requests), or that frame one message.
VOLATILE = frozenset({"date", "server", "content-length", "transfer-encoding", "connection"})

UVICORN_SHAPES = [
    Sub("GET", "/items/1"),
    Sub("HEAD", "/items/2"),
    Sub("GET", "/etag"),
    Sub("GET", "/etag", (("If-None-Match", ETAG),)),
    Sub("POST", "/echo", (("Content-Type", "text/plain"),), b"some content"),
    Sub("GET", "/not/here"),
]
REFERENCE_SHAPES = [
    Sub("GET", "/books/1"),
    Sub("HEAD", "/books/1"),
    Sub("GET", "/books/999"),
    Sub("GET", "/status/418"),
    Sub("GET", "/status/204"),
    Sub("PUT", "/status/409", (("Content-Type", "application/json"),), b'{"a":1}'),
    Sub("OPTIONS", "/books"),
    Sub("DELETE", "/batch-nowhere"),
]


#: One client for every direct request: a fresh one per request costs more than the request.
#: It is closed by the autouse module fixture below, so no socket outlives the module.
_CLIENT = httpx.Client(timeout=10)


@pytest.fixture(autouse=True, scope="module")
def _close_client() -> Iterator[None]:
    yield
    _CLIENT.close()


def _normalise(fields: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(name.lower(), value) for name, value in fields if name.lower() not in VOLATILE]


def _direct(base: str, sub: Sub) -> tuple[int, list[tuple[str, str]], bytes]:
    response = _CLIENT.request(
        sub.method, base + sub.target, headers=list(sub.fields), content=sub.body
    )
    fields = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in response.headers.raw]
    return response.status_code, _normalise(fields), response.content


def _via_part(part: Part) -> tuple[int | None, list[tuple[str, str]], bytes]:
    return part.status, _normalise(part.fields), part.body


def _check(proxy: RunningProxy, base: str, subs: list[Sub]) -> None:
    answer = send_batch(proxy.url, subs)
    assert answer.status == 200
    assert len(answer.parts) == len(subs)
    for sub, part in zip(subs, answer.parts, strict=True):
        assert part.content_id == sub.target
        assert _via_part(part) == _direct(base, sub), sub


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(st.lists(st.sampled_from(UVICORN_SHAPES), min_size=1, max_size=8))
def test_parts_equal_direct_requests_to_a_plain_origin(
    origin: RunningOrigin, proxy: RunningProxy, subs: list[Sub]
) -> None:
    _check(proxy, origin.url, subs)


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(st.lists(st.sampled_from(REFERENCE_SHAPES), min_size=1, max_size=8))
def test_parts_equal_direct_requests_to_the_reference_server(
    reference: RunningReference, reference_proxy: RunningProxy, subs: list[Sub]
) -> None:
    _check(reference_proxy, reference.url, subs)


def test_reference_proxy_fixture_fronts_the_reference_server(
    reference: RunningReference, make_proxy: Callable[..., RunningProxy]
) -> None:
    proxy = make_proxy(reference.url)
    parts = send_batch(proxy.url, [Sub("GET", "/books/1"), Sub("GET", "/status/503")]).parts
    assert [p.status for p in parts] == [200, 503]
    assert parts[0].get("ETag") is not None


# -- outer requests ----------------------------------------------------------------------------

_CONTENT_TYPE, _BATCH = encode_batch([Sub("GET", "/books/1")])
_MULTIPART = f"Content-Type: {_CONTENT_TYPE}"
_BOUNDARY = _CONTENT_TYPE.partition("boundary=")[2].strip('"')


@dataclass(frozen=True)
class Outer:
    """One batch request as octets: header lines after Host, content, and whether the client
    half-closes after sending (a client gone inside its content)."""

    id: str
    fields: tuple[str, ...]
    content: bytes = b""
    half_close: bool = False
    framing: str = "length"  # "length": Content-Length of ``content``; "none": the fields frame

    def octets(self, authority: str) -> bytes:
        lines = ["POST /batch HTTP/1.1", f"Host: {authority}", *self.fields]
        if self.framing == "length":
            lines.append(f"Content-Length: {len(self.content)}")
        lines.append("Connection: close")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + self.content


OUTER = [
    # Framing of the request content itself (RFC 9112 §7.1, §6.3): the server's 400.
    Outer(
        "chunk-size-not-hex", (_MULTIPART, "Transfer-Encoding: chunked"), b"zz\r\n", True, "none"
    ),
    Outer(
        "chunk-without-crlf",
        (_MULTIPART, "Transfer-Encoding: chunked"),
        b"3\r\n--bXY",
        True,
        "none",
    ),
    Outer(
        "chunked-content-cut", (_MULTIPART, "Transfer-Encoding: chunked"), b"4\r\n--b", True, "none"
    ),
    Outer(
        "content-shorter-than-length",
        (_MULTIPART, f"Content-Length: {len(_BATCH) + 50}"),
        _BATCH,
        True,
        "none",
    ),
    # Content codings (MB-INTER-6): only identity, every member of every line read.
    Outer("gzip-coding", (_MULTIPART, "Content-Encoding: gzip"), _BATCH),
    Outer("two-codings", (_MULTIPART, "Content-Encoding: identity, br"), _BATCH),
    Outer(
        "coding-on-second-line",
        (_MULTIPART, "Content-Encoding: identity", "Content-Encoding: br"),
        _BATCH,
    ),
    Outer("identity-coding", (_MULTIPART, "Content-Encoding: identity"), _BATCH),
    # Media type and boundary (MB-WIRE-2, MB-WIRE-4).
    Outer("no-content-type", (), _BATCH),
    Outer("text-plain", ("Content-Type: text/plain",), _BATCH),
    Outer("form-data", (f"Content-Type: multipart/form-data; boundary={_BOUNDARY}",), _BATCH),
    Outer("no-boundary", ("Content-Type: multipart/mixed",), _BATCH),
    Outer("empty-boundary", ('Content-Type: multipart/mixed; boundary=""',), _BATCH),
    Outer("boundary-too-long", (f"Content-Type: multipart/mixed; boundary={'b' * 71}",), _BATCH),
    Outer("boundary-mismatch", ("Content-Type: multipart/mixed; boundary=other",), _BATCH),
    Outer("content-type-twice", (_MULTIPART, _MULTIPART), _BATCH),
    Outer("content-type-twice-differing", (_MULTIPART, "Content-Type: text/plain"), _BATCH),
    # Parts (MB-WIRE-18, MB-STATUS-2).
    Outer("no-parts", (_MULTIPART,), f"--{_BOUNDARY}--\r\n".encode()),
    Outer("no-content", (_MULTIPART,)),
    Outer("nested-batch", (_MULTIPART,), _BATCH.replace(b"/books/1", b"/batch")),
    # Negotiation (MB-PROC-7, MB-STATUS-9).
    # The server offers atomic and the proxy does not; a mode neither offers is 501 at both.
    Outer("batch-mode-atomic", (_MULTIPART, "Batch-Mode: atomic, mb-no-such-mode"), _BATCH),
    Outer("accept-html-only", (_MULTIPART, "Accept: text/html"), _BATCH),
    Outer("accept-empty", (_MULTIPART, "Accept: "), _BATCH),
    Outer("accept-malformed", (_MULTIPART, "Accept: no-slash-here"), _BATCH),
    Outer("valid", (_MULTIPART,), _BATCH),
]


def _authority(url: str) -> str:
    return url.removeprefix("http://")


@pytest.mark.parametrize("outer", OUTER, ids=[o.id for o in OUTER])
def test_outer_requests_get_the_servers_status_and_problem_type(
    reference: RunningReference,
    reference_proxy: RunningProxy,
    outer: Outer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    server = raw_exchange(
        reference.url, outer.octets(_authority(reference.url)), half_close=outer.half_close
    )
    with caplog.at_level(logging.WARNING, logger="mixbatch"):
        proxy = raw_exchange(
            reference_proxy.url,
            outer.octets(_authority(reference_proxy.url)),
            half_close=outer.half_close,
        )
    assert server.status is not None, "the reference server left the request unanswered"
    assert (proxy.status, proxy.problem_type) == (server.status, server.problem_type)
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []


def test_a_get_with_content_to_the_batch_endpoint_gets_the_servers_answer(
    reference: RunningReference, reference_proxy: RunningProxy
) -> None:
    answers = []
    for url in (reference.url, reference_proxy.url):
        octets = (
            f"GET /batch HTTP/1.1\r\nHost: {_authority(url)}\r\nContent-Length: 5\r\n"
            "Connection: close\r\n\r\nhello"
        ).encode()
        answer = raw_exchange(url, octets)
        answers.append((answer.status, answer.problem_type))
    assert answers[1] == answers[0]
