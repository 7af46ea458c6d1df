"""The MB-PROXY checks can fail: bugs planted in the reference proxy, each caught by its check.

The mutating relay of the suite's self-test plants bugs on the wire in front of a server; a
proxy's bugs are in what it sends to its origin, which no relay in front of it can see. So these
bugs are planted in the reference proxy itself (monkeypatched for one test), with the reference
server as its origin. Before planting anything, every check passes against the unmodified proxy;
then each planted bug must turn its catchers' verdict to FAIL (or FLAKY).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

import mixbatch.proxy._batch as proxy_batch
import mixbatch.proxy._envelope as proxy_envelope
from mixbatch.codec import (
    BatchParser,
    MixbatchError,
    PartData,
    PartEnd,
    RequestPartStart,
    Role,
)
from mixbatch.proxy._upstream import UpstreamError, UpstreamRequest
from mixbatch_conformance.checks import all_checks
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Verdict
from mixbatch_conformance.core.target import target_from_dict
from mixbatch_conformance.run.runner import run_check

from ._harness import RunningProxy, RunningReference

CHECKS = {c.id: c for c in all_checks()}
#: The proxy's sub-request timeout in these tests; the check asks for a delay past it.
TIMEOUT_S = 1.0

Patch = Callable[[pytest.MonkeyPatch, str], None]


@dataclass(frozen=True)
class PlantedBug:
    name: str
    breaks: str
    catchers: tuple[str, ...]
    plant: Patch


# -- the bugs --------------------------------------------------------------------------------
def _misrouted_answers(mp: pytest.MonkeyPatch, origin: str) -> None:
    original = proxy_batch.BatchRun._deliver

    def deliver(self: proxy_batch.BatchRun, index: int, outcome: Any) -> None:
        original(self, (index + 1) % len(self._futures), outcome)

    mp.setattr(proxy_batch.BatchRun, "_deliver", deliver)


def _timeout_part_dropped(mp: pytest.MonkeyPatch, origin: str) -> None:
    original = proxy_batch.BatchRun.render

    def render(self: proxy_batch.BatchRun, part: Any, outcome: Any) -> bytes:
        return b"" if isinstance(outcome, UpstreamError) else original(self, part, outcome)

    mp.setattr(proxy_batch.BatchRun, "render", render)


def _timeout_as_500(mp: pytest.MonkeyPatch, origin: str) -> None:
    def failure(self: proxy_batch.BatchRun, part: Any, error: UpstreamError) -> bytes:
        return self.writer.response_part(
            500, part.content_id, fields=[("Content-Type", "text/plain")], body=b"failed"
        )

    mp.setattr(proxy_batch.BatchRun, "_failure_part", failure)


async def _complete_parts(data: bytes, boundary: str) -> list[tuple[str, str, list[Any], bytes]]:
    """The request parts the codec read completely before the envelope's first fault."""
    parser = BatchParser(boundary, Role.REQUEST)
    done: list[tuple[str, str, list[Any], bytes]] = []
    current: tuple[str, str, list[Any]] | None = None
    body = b""
    try:
        for i in range(len(data)):
            for event in parser.feed(data[i : i + 1]):
                if isinstance(event, RequestPartStart):
                    current, body = (event.method, event.target, list(event.fields)), b""
                elif isinstance(event, PartData):
                    body += bytes(event.data)
                elif isinstance(event, PartEnd) and current is not None:
                    done.append((*current, body))
    except MixbatchError:
        pass
    return done


def _forwards_before_validating(mp: pytest.MonkeyPatch, origin: str) -> None:
    original = proxy_envelope.receive

    async def receive(content: AsyncIterator[bytes], boundary: str, **kw: Any) -> Any:
        chunks = [bytes(c) async for c in content]

        async def replay() -> AsyncIterator[bytes]:
            for chunk in chunks:
                yield chunk

        try:
            return await original(replay(), boundary, **kw)
        except MixbatchError:
            # The bug: the parts read so far have already gone to the origin.
            async with httpx.AsyncClient(base_url=origin) as client:
                for method, target, fields, body in await _complete_parts(
                    b"".join(chunks), boundary
                ):
                    await client.request(method, target, headers=fields, content=body)
            raise

    mp.setattr(proxy_envelope, "receive", receive)


def _upstream_request(
    edit: Callable[[Any, UpstreamRequest], UpstreamRequest],
) -> Patch:
    def plant(mp: pytest.MonkeyPatch, origin: str) -> None:
        original = proxy_batch.BatchRun.upstream_request

        def upstream_request(self: proxy_batch.BatchRun, part: Any) -> UpstreamRequest:
            return edit(part, original(self, part))

        mp.setattr(proxy_batch.BatchRun, "upstream_request", upstream_request)

    return plant


def _short_length(part: Any, req: UpstreamRequest) -> UpstreamRequest:
    if not req.body:
        return req
    body = req.body[:-1]
    headers = [(n, str(len(body)) if n.lower() == "content-length" else v) for n, v in req.headers]
    return UpstreamRequest(req.method, req.target, headers, body)


def _proxy_host(part: Any, req: UpstreamRequest) -> UpstreamRequest:
    """The client's view of the authority (the proxy's own) instead of the origin's."""
    headers = [("Host", "proxy.invalid") if n.lower() == "host" else (n, v) for n, v in req.headers]
    return UpstreamRequest(req.method, req.target, headers, req.body)


def _with_field(name: str, value: Callable[[Any], str]) -> Callable[[Any, UpstreamRequest], Any]:
    def edit(part: Any, req: UpstreamRequest) -> UpstreamRequest:
        return UpstreamRequest(
            req.method, req.target, [*req.headers, (name, value(part))], req.body
        )

    return edit


PLANTED = (
    PlantedBug(
        "answers-paired-with-wrong-parts",
        "MB-PROXY-1",
        ("proxy-forwards-in-order",),
        _misrouted_answers,
    ),
    PlantedBug(
        "timeout-part-dropped",
        "MB-PROXY-2",
        ("proxy-upstream-timeout-part",),
        _timeout_part_dropped,
    ),
    PlantedBug("timeout-as-500", "MB-PROXY-2", ("proxy-upstream-timeout-part",), _timeout_as_500),
    PlantedBug(
        "forwards-before-validating",
        "MB-PROXY-3",
        ("proxy-validates-before-forwarding",),
        _forwards_before_validating,
    ),
    PlantedBug(
        "content-length-short",
        "MB-PROXY-4",
        ("proxy-frames-forwarded-requests",),
        _upstream_request(_short_length),
    ),
    PlantedBug(
        "content-transfer-encoding-forwarded",
        "MB-PROXY-4",
        ("proxy-frames-forwarded-requests",),
        _upstream_request(_with_field("Content-Transfer-Encoding", lambda part: "binary")),
    ),
    PlantedBug(
        "host-of-the-proxy-forwarded",
        "MB-PROXY-4",
        ("proxy-frames-forwarded-requests",),
        _upstream_request(_proxy_host),
    ),
    PlantedBug(
        "content-id-forwarded",
        "MB-PART-8",
        ("proxy-frames-forwarded-requests",),
        _upstream_request(_with_field("Content-Id", lambda part: part.content_id)),
    ),
    PlantedBug(
        "credentials-not-inherited",
        "MB-SUB-5",
        ("credentials-inherited",),
        lambda mp, origin: mp.setattr(proxy_batch, "INHERITED_FIELDS", ()),
    ),
)
CATCHERS = sorted({c for bug in PLANTED for c in bug.catchers})


def proxy_target(proxy_url: str, origin_url: str) -> dict[str, Any]:
    """The reference proxy in front of the reference server, as a target description."""
    return {
        "name": "reference proxy in front of the reference server",
        "base_url": proxy_url,
        "batch_endpoint": "/batch",
        "resources": {
            "ok": "/books/1",
            "not_found": "/books/999999",
            "collection": "/books",
            "sandbox_collection": "/books",
            "etag_resource": "/books/1",
            "echo": "/echo",
            "delay": "/delay/{ms}",
        },
        "volatile_headers": ["Date", "Server", "Via"],
        "profiles": ["core", "error-policy", "limits"],
        "proxy": {"origin": origin_url, "subrequest_timeout_ms": int(TIMEOUT_S * 1000)},
    }


@pytest.fixture
def proxied(reference: RunningReference, make_proxy: Callable[..., RunningProxy]) -> Context:
    running = make_proxy(reference.url, subrequest_timeout=TIMEOUT_S)
    return Context(target_from_dict(proxy_target(running.url, reference.url)))


def test_every_planted_bug_names_existing_catchers() -> None:
    assert {c for bug in PLANTED for c in bug.catchers} <= set(CHECKS)


def test_proxy_checks_are_not_applicable_to_a_server(reference: RunningReference) -> None:
    doc = proxy_target(reference.url, reference.url)
    del doc["proxy"]
    ctx = Context(target_from_dict(doc))
    for check in CATCHERS:
        if check.startswith("proxy-"):
            assert run_check(CHECKS[check], ctx).verdict is Verdict.NA


def test_unmodified_proxy_passes_every_catcher(proxied: Context) -> None:
    verdicts = {c: run_check(CHECKS[c], proxied) for c in CATCHERS}
    assert {c: r.message for c, r in verdicts.items() if r.verdict is not Verdict.PASS} == {}


@pytest.mark.parametrize("bug", PLANTED, ids=[b.name for b in PLANTED])
def test_planted_proxy_bug_is_caught(
    bug: PlantedBug, proxied: Context, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert proxied.target.proxy_origin is not None
    bug.plant(monkeypatch, proxied.target.proxy_origin)
    results = {c: run_check(CHECKS[c], proxied) for c in bug.catchers}
    missed = {
        c: f"{r.verdict.value}: {r.message}"
        for c, r in results.items()
        if r.verdict not in (Verdict.FAIL, Verdict.FLAKY)
    }
    assert missed == {}, f"{bug.name} ({bug.breaks}) slipped past {missed}"
