"""The proxy's in-flight batch budget (MB-LIMIT-6): it holds each batch whole before it forwards
a part (MB-PROXY-3), so it bounds how many it holds as the reference server does, and answers a
batch beyond that with 503 and Retry-After before any part of it goes upstream."""

from __future__ import annotations

import json
import socket
from collections.abc import Callable
from typing import Any

from mixbatch._http.budget import BUSY_RETRY_AFTER, MAX_BATCH_BYTES_IN_FLIGHT, MAX_BATCHES_IN_FLIGHT
from mixbatch.cli import _proxy
from mixbatch.codec import BatchWriter
from mixbatch.proxy import ProxyConfig, Upstream

from ._harness import IO_TIMEOUT, RunningProxy, raw_exchange
from ._origin import RunningOrigin


def _batch(authority: str) -> tuple[bytes, bytes]:
    """The head and the content of a batch of one GET."""
    writer = BatchWriter()
    content = writer.request_part("GET", "/items/1", [], b"") + writer.close()
    head = (
        f"POST /batch HTTP/1.1\r\nHost: {authority}\r\nContent-Type: {writer.content_type}\r\n"
        f"Content-Length: {len(content)}\r\n\r\n"
    ).encode()
    return head, content


def test_the_defaults_are_the_servers_and_the_cli_sets_them() -> None:
    config = ProxyConfig(Upstream.parse("http://127.0.0.1:9"))
    assert config.max_batches_in_flight == MAX_BATCHES_IN_FLIGHT
    assert config.max_batch_bytes_in_flight == MAX_BATCH_BYTES_IN_FLIGHT
    assert config.busy_retry_after == BUSY_RETRY_AFTER
    parser = _proxy.argparse.ArgumentParser()
    _proxy.add_parser(parser.add_subparsers())
    args = parser.parse_args(
        [
            *("proxy", "--upstream", "http://127.0.0.1:9"),
            *("--max-batches-in-flight", "3", "--busy-retry-after", "5"),
        ]
    )
    chosen = _proxy.config_from_args(args)
    assert (chosen.max_batches_in_flight, chosen.busy_retry_after) == (3, 5)


def test_a_batch_beyond_the_budget_is_503_and_nothing_goes_upstream(
    origin: RunningOrigin, make_proxy: Callable[..., RunningProxy]
) -> None:
    proxy = make_proxy(origin.url, max_batches_in_flight=1, busy_retry_after=4)
    authority = proxy.url.removeprefix("http://")
    head, content = _batch(authority)
    host, _, port = authority.rpartition(":")
    with socket.create_connection((host, int(port)), timeout=IO_TIMEOUT) as held:
        # The first batch is admitted and stays half received: the proxy holds it.
        held.sendall(head + content[: len(content) // 2])
        seen = len(origin.app.peers)
        busy = raw_exchange(proxy.url, head + content)
        assert busy.status == 503
        assert busy.header("Retry-After") == "4"
        document: dict[str, Any] = json.loads(busy.body)
        assert document["requirement"] == "MB-LIMIT-6"
        assert document["budget"] == "max_batches_in_flight"
        assert len(origin.app.peers) == seen  # no part of the refused batch was forwarded
        held.sendall(content[len(content) // 2 :])
        held.settimeout(IO_TIMEOUT)
        answer = b""
        while not answer.endswith(b"\r\n0\r\n\r\n"):  # the whole chunked response
            chunk = held.recv(65536)
            assert chunk, answer
            answer += chunk
        assert answer.startswith(b"HTTP/1.1 200")
    again = raw_exchange(proxy.url, head + content)
    assert again.status == 200  # the first batch's ticket was given back
