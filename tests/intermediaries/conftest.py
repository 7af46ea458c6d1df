"""Fixtures for the intermediary scenarios: the reference server on a background loop, and
run_rows with stand-ins for what it starts (`recorded`).

mitmproxy 12.2.3's filter grammar calls pyparsing's deprecated camelCase API when it is first
imported, which the suite's warnings-as-errors setting would turn into a collection error; it
is imported once here with that one deprecation silenced (a third-party warning we cannot fix).
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*deprecated", category=DeprecationWarning)
    import mitmproxy.test.taddons  # noqa: F401

from mixbatch_conformance.intermediaries.real import _rows
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


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[Any]]:
    """run_rows with stand-ins for the origins, the programs and the probe: what it started."""
    calls: dict[str, list[Any]] = {"origins": [], "hops": []}

    @contextlib.contextmanager
    def origins(count: int, public_origin: str | None = None) -> Iterator[list[str]]:
        calls["origins"].append(public_origin)
        yield [f"http://127.0.0.1:{9000 + len(calls['origins'])}"] * count

    @contextlib.contextmanager
    def start_real(chosen: Any, variant: str, used: Any, *, port: int | None = None) -> Any:
        calls["hops"].append((variant, list(used), port))
        scheme = "https" if variant in chosen.tls_variants else "http"
        yield SimpleNamespace(
            url=f"{scheme}://127.0.0.1:{port or 1}", ca_file=None, taps=(), keep=lambda _to: None
        )

    monkeypatch.setattr(_rows, "reference_origins", origins)
    monkeypatch.setattr(_rows, "start_real", start_real)
    monkeypatch.setattr(_rows, "reference_description", lambda url: {"base_url": url})
    monkeypatch.setattr(_rows, "probe", lambda *a, **k: SimpleNamespace(as_dict=lambda: {}))
    return calls
