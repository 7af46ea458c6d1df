"""Fixtures for the intermediary scenarios: the reference server on a background loop.

mitmproxy 12.2.3's filter grammar calls pyparsing's deprecated camelCase API when it is first
imported, which the suite's warnings-as-errors setting would turn into a collection error; it
is imported once here with that one deprecation silenced (a third-party warning we cannot fix).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import pytest

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*deprecated", category=DeprecationWarning)
    import mitmproxy.test.taddons  # noqa: F401

from tests.proxy._harness import LoopThread, RunningReference


@pytest.fixture(scope="module")
def loop_thread() -> Iterator[LoopThread]:
    loop = LoopThread()
    yield loop
    loop.close()


@pytest.fixture(scope="module")
def reference(loop_thread: LoopThread) -> Iterator[RunningReference]:
    running = RunningReference(loop_thread)
    yield running
    running.stop()
