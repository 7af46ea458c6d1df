"""Fixtures for the suite's self-tests: the reference server (a subprocess) and a relay.

The reference server is started once per session through its own package (so these tests
do not depend on the CLI), and stopped at the end. The relay sits in front of it and is
transparent until a test sets its mutation.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mixbatch_conformance.core.context import Context
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


@pytest.fixture
def relayed(relay: Relay, reference: Target) -> Iterator[Context]:
    """A context whose target is the relay (the mutation is reset after each test)."""
    yield Context(reference.with_base_url(relay.url))
    relay.mutation = None
