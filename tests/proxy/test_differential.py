"""Differential property: each part of a batch through the proxy equals the same request sent
straight to the origin (status, header fields less the volatile and framing ones, content).

Runs against both origins: the plain uvicorn app of ``_origin`` and the reference server used as
a plain origin. Sub-requests are drawn from stateless shapes, so sending each twice (once in the
batch, once alone) cannot change the answer. Shrinks toward one-part batches of the first shape.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ._harness import Part, RunningProxy, RunningReference, Sub, send_batch
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
