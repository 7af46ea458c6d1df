"""Fixtures: one background event loop per session, a fresh server per test."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from mixbatch.server import ServerConfig

from ._client import HttpClient, LoopThread, RunningServer, fixed_clock, start_server


@pytest.fixture(scope="session")
def loop_thread() -> Iterator[LoopThread]:
    loop = LoopThread()
    yield loop
    loop.close()


@pytest.fixture
def make_server(loop_thread: LoopThread) -> Iterator[Callable[..., RunningServer]]:
    started: list[RunningServer] = []

    def make(
        config: ServerConfig | None = None, clock: Callable[[], float] = fixed_clock
    ) -> RunningServer:
        running = start_server(loop_thread, config, clock)
        started.append(running)
        return running

    yield make
    for running in started:
        running.stop()


@pytest.fixture
def server(make_server: Callable[..., RunningServer]) -> RunningServer:
    return make_server()


@pytest.fixture
def client(server: RunningServer) -> Iterator[HttpClient]:
    with server.client() as http:
        yield http
