"""Fixtures: an in-process reference server for the CLI's client commands."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.server._client import LoopThread, RunningServer, start_server


@pytest.fixture(scope="module")
def cli_server() -> Iterator[RunningServer]:
    loop = LoopThread()
    running = start_server(loop)
    yield running
    running.stop()
    loop.close()
