"""Fixtures: the server and the proxy (with a reference server as its origin) for a whole session.

The campaign's peers enforce smaller limits than the defaults, so that a batch at and one over
each limit is quick to send; the cases read them from the capabilities document either way.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mixbatch.codec import Limits
from mixbatch.server import ServerConfig

from ._targets import LoopThread, Target, start_proxy, start_server, stop

#: Small enough that at-limit batches take milliseconds, large enough for every other case.
CAMPAIGN_LIMITS = Limits(
    max_parts=300,
    max_part_header_bytes=8192,
    max_part_bytes=256 * 1024,
    max_batch_bytes=1024 * 1024,
)


@pytest.fixture(scope="session")
def adversarial_loop() -> Iterator[LoopThread]:
    loop = LoopThread()
    yield loop
    loop.close()


@pytest.fixture(scope="session")
def server_target(adversarial_loop: LoopThread) -> Iterator[Target]:
    target, server = start_server(adversarial_loop, ServerConfig(port=0, limits=CAMPAIGN_LIMITS))
    yield target
    stop(adversarial_loop, server)


@pytest.fixture(scope="session")
def proxy_target(adversarial_loop: LoopThread) -> Iterator[Target]:
    origin, origin_server = start_server(adversarial_loop)
    target, proxy = start_proxy(
        adversarial_loop, f"http://{origin.authority}", limits=CAMPAIGN_LIMITS
    )
    yield target
    stop(adversarial_loop, proxy)
    stop(adversarial_loop, origin_server)


@pytest.fixture(params=["server", "proxy"])
def target(request: pytest.FixtureRequest) -> Target:
    fixture = f"{request.param}_target"
    found: Target = request.getfixturevalue(fixture)
    return found


@pytest.fixture
def deep_only(mixbatch_tier: str) -> None:
    """Skip unless the deep tier runs (make deep, or --mixbatch-tier deep)."""
    if mixbatch_tier != "deep":
        pytest.skip("the deep tier runs with --mixbatch-tier deep (make deep)")
