"""Fixtures for the suite's self-tests: the reference server (a subprocess) and a relay.

The reference server is started once per session through its own package (so these tests
do not depend on the CLI), and stopped at the end. The relay sits in front of it and is
transparent until a test sets its mutation.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mixbatch_conformance.checks._shared.collections import retrieval_member_paths
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.target import Target, reference_target
from mixbatch_conformance.run.targets import with_published_profiles
from mixbatch_conformance.transport.embedded import embedded_server, server_only_command
from mixbatch_conformance.transport.relay import Relay


@pytest.fixture(scope="session")
def reference_url() -> Iterator[str]:
    with embedded_server(server_only_command()) as url:
        yield url


@pytest.fixture(scope="session")
def reference(reference_url: str) -> Target:
    return with_published_profiles(reference_target(reference_url))


@pytest.fixture(scope="session")
def relay(reference_url: str) -> Iterator[Relay]:
    r = Relay(reference_url)
    r.start()
    yield r
    r.stop()


@pytest.fixture(scope="session")
def sandbox_seed(reference: Target) -> frozenset[str]:
    """The members the reference server's sandbox holds when it starts (resources the other
    checks read, such as the member with validators)."""
    return frozenset(_sandbox_members(Context(reference)))


@pytest.fixture
def relayed(relay: Relay, reference: Target, sandbox_seed: frozenset[str]) -> Iterator[Context]:
    """A context whose target is the relay (the mutation is reset after each test, and the
    members the test left in the sandbox are deleted)."""
    yield Context(reference.with_base_url(relay.url))
    relay.mutation = None
    ctx = Context(reference)
    judge = Judge("MB-TEST-3")
    for path in _sandbox_members(ctx):
        if path not in sandbox_seed:
            ctx.alone(judge, SubRequest("DELETE", path))


def _sandbox_members(ctx: Context) -> list[str]:
    """The member paths a retrieval of the sandbox collection names.

    A plant can leave members behind (a DELETE it broke, a POST it doubled); the sandbox checks
    retrieve the whole collection after every step, so every later test on the same server
    would pay for them."""
    judge = Judge("MB-TEST-3")
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    resp = ctx.send(judge, ctx.raw_request("GET", coll, [("Accept", "multipart/mixed")]))
    ctype = resp.get("Content-Type") or ""
    return retrieval_member_paths(ctx, coll, resp.status, ctype, resp.body) or []
