"""Fixtures: one background loop per session, a uvicorn origin and a proxy in front of it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from ._harness import LoopThread, RunningProxy, RunningReference
from ._origin import RunningOrigin


@pytest.fixture(scope="session")
def loop_thread() -> Iterator[LoopThread]:
    loop = LoopThread()
    yield loop
    loop.close()


@pytest.fixture(scope="module")
def origin() -> Iterator[RunningOrigin]:
    running = RunningOrigin()
    yield running
    running.stop()


@pytest.fixture
def make_proxy(loop_thread: LoopThread) -> Iterator[Callable[..., RunningProxy]]:
    started: list[RunningProxy] = []

    def make(upstream: str, **options: Any) -> RunningProxy:
        running = RunningProxy(loop_thread, upstream, **options)
        started.append(running)
        return running

    yield make
    for running in started:
        running.stop()


@pytest.fixture
def proxy(origin: RunningOrigin, make_proxy: Callable[..., RunningProxy]) -> RunningProxy:
    return make_proxy(origin.url)


@pytest.fixture(scope="module")
def reference(loop_thread: LoopThread) -> Iterator[RunningReference]:
    running = RunningReference(loop_thread)
    yield running
    running.stop()


@pytest.fixture
def reference_proxy(
    reference: RunningReference, make_proxy: Callable[..., RunningProxy]
) -> RunningProxy:
    return make_proxy(reference.url)
