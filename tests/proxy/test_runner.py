"""Running a proxy: ``ProxyServer`` in-process, and ``serve_proxy`` until cancelled or signalled.

Each proxy binds an ephemeral loopback port, answers one batch through the reference server,
and after its shutdown the port refuses connections. ``serve_proxy`` announces itself in the
format tools parse (``ANNOUNCEMENT``).
"""

from __future__ import annotations

import asyncio
import io
import os
import re
import signal
import socket
from urllib.parse import urlsplit

import pytest

from mixbatch.proxy import ProxyConfig, ProxyServer, Upstream
from mixbatch.proxy._runner import ANNOUNCEMENT, serve_proxy

from ._harness import IO_TIMEOUT, LoopThread, RunningReference, Sub, send_batch

#: ``ANNOUNCEMENT`` as a pattern: the proxy's URL and the upstream it forwards to.
ANNOUNCED = re.compile(r"^mixbatch proxy listening on (http://\S+) -> (\S+)\n$")


def _config(reference: RunningReference) -> ProxyConfig:
    return ProxyConfig(Upstream.parse(reference.url), host="127.0.0.1", port=0)


def _accepts(url: str) -> bool:
    parts = urlsplit(url)
    assert parts.hostname is not None
    assert parts.port is not None
    try:
        with socket.create_connection((parts.hostname, parts.port), timeout=2):
            return True
    except OSError:
        return False


def _answers_a_batch(url: str) -> None:
    answer = send_batch(url, [Sub("GET", "/books/1"), Sub("GET", "/books/99")])
    assert answer.status == 200
    assert [part.status for part in answer.parts] == [200, 404]


def test_a_proxy_server_binds_a_free_loopback_port_serves_and_stops(
    loop_thread: LoopThread, reference: RunningReference
) -> None:
    proxy = ProxyServer(_config(reference))
    loop_thread.run(proxy.start())
    try:
        parts = urlsplit(proxy.url)
        assert parts.hostname == "127.0.0.1"
        assert parts.port not in (None, 0)
        _answers_a_batch(proxy.url)
        assert proxy.app.pool.opened >= 1
    finally:
        loop_thread.run(proxy.shutdown(grace=2.0))
    assert not _accepts(proxy.url)


async def _serving(config: ProxyConfig) -> tuple[asyncio.Task[None], str]:
    """``serve_proxy`` running as a task, once it announced its URL (checked against
    ``ANNOUNCEMENT``) and answered a batch there: (the task, the URL)."""
    announce = io.StringIO()
    task = asyncio.create_task(serve_proxy(config, announce))
    async with asyncio.timeout(IO_TIMEOUT):
        while not announce.getvalue():
            assert not task.done(), task.exception()
            await asyncio.sleep(0.01)
    found = ANNOUNCED.match(announce.getvalue())
    assert found is not None, announce.getvalue()
    url = found.group(1)
    assert found.group(0) == ANNOUNCEMENT.format(url=url, upstream=config.upstream.url) + "\n"
    await asyncio.to_thread(_answers_a_batch, url)
    return task, url


def test_serve_proxy_announces_its_url_and_upstream_and_stops_when_cancelled(
    reference: RunningReference,
) -> None:
    config = _config(reference)

    async def scenario() -> str:
        task, url = await _serving(config)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, IO_TIMEOUT)
        return url

    url = asyncio.run(scenario())
    assert not _accepts(url)


def test_serve_proxy_returns_after_a_graceful_shutdown_at_sigint(
    reference: RunningReference,
) -> None:
    config = _config(reference)

    async def scenario() -> str:
        task, url = await _serving(config)
        # serve_proxy's handlers are in place (asyncio.run installs one for SIGINT only), so the
        # signal reaches the proxy and not the test run.
        assert signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, signal.SIG_IGN)
        os.kill(os.getpid(), signal.SIGINT)
        await asyncio.wait_for(task, IO_TIMEOUT)  # returns, not cancelled
        return url

    url = asyncio.run(scenario())
    assert not _accepts(url)
