"""Slow and flood: a header section trickled byte by byte, and a pipelined burst.

Slowloris (MB-SEC-1, RFC 9112 §9.5): a peer that sends its header section one octet at a time
must be cut off by the header timeout, counted from the first octet, however steadily it trickles.
A batch flood (MB-LIMIT-6): more batches at once than the server's in-flight budget, and each
one beyond it is answered 503 with Retry-After before any part runs, the others 200.
Pipelining (MB-PIPE-1, RFC 9112 §9.3.2): N requests written at once are answered in the order
they came, every one of them, or the connection closes cleanly after a prefix of them.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from mixbatch.server import ServerConfig

from ._case import batch, part, post
from ._targets import LoopThread, Target, start_server, stop
from ._verdicts import response_parts
from ._wire import exchange, parse_answers, request_bytes

#: The header timeout of the server the slowloris test attacks.
SHORT_HEADER_TIMEOUT = 1.0
#: Seconds between trickled octets: well inside any idle bound, so only the header timeout cuts.
TRICKLE_INTERVAL = 0.1
#: Slack allowed beyond the header timeout for the close to arrive.
CLOSE_SLACK = 1.5
#: The in-flight budget of the server the batch flood meets, and the batches sent at once.
BUSY_BUDGET = 2
BUSY_FLOOD = 5
#: Milliseconds each flood batch keeps its slot (its one part is GET /delay/{ms}).
BUSY_HOLD_MS = 800
#: Requests in one pipelined burst.
FLOOD = 120
#: Statuses /status/{code} is asked for, in turn; each answer says which request it belongs to.
CODES = (200, 201, 202, 203, 206, 226, 400, 404, 409, 418, 422, 429)


@pytest.fixture(scope="module")
def impatient_server(adversarial_loop: LoopThread) -> Iterator[Target]:
    config = ServerConfig(port=0, header_read_timeout=SHORT_HEADER_TIMEOUT)
    target, server = start_server(adversarial_loop, config)
    yield target
    stop(adversarial_loop, server)


@pytest.fixture(scope="module")
def budgeted_server(adversarial_loop: LoopThread) -> Iterator[Target]:
    config = ServerConfig(port=0, max_batches_in_flight=BUSY_BUDGET)
    target, server = start_server(adversarial_loop, config)
    yield target
    stop(adversarial_loop, server)


def test_batches_beyond_the_in_flight_budget_are_503(budgeted_server: Target) -> None:
    request = post(batch(part("GET", f"/delay/{BUSY_HOLD_MS}")))
    with ThreadPoolExecutor(BUSY_FLOOD) as pool:
        results = list(
            pool.map(lambda _: exchange(budgeted_server.address, request), range(BUSY_FLOOD))
        )
    answers = [r.first for r in results]
    assert all(a is not None for a in answers), "a flooded batch got no answer"
    statuses = sorted(a.status for a in answers if a is not None)
    assert set(statuses) <= {200, 503}, statuses
    assert statuses.count(200) >= 1, statuses
    assert statuses.count(503) >= BUSY_FLOOD - BUSY_BUDGET - 1, statuses
    for answer in answers:
        if answer is not None and answer.status == 503:
            assert answer.header("Retry-After"), "503 without Retry-After (MB-LIMIT-6)"
            assert answer.problem is not None, "503 without a problem document (MB-STATUS-4)"
    assert_alive_quickly(budgeted_server)


def trickle(address: tuple[str, int], bound: float) -> tuple[float, bytes]:
    """Send a header section one octet per TRICKLE_INTERVAL; seconds until the peer closed."""
    head = b"POST /batch HTTP/1.1\r\nHost: test\r\n" + b"X-Slow: " + b"s" * 10_000
    received = b""
    with socket.create_connection(address, timeout=bound) as sock:
        started = time.monotonic()
        for octet in head:
            if time.monotonic() - started > bound:
                break
            try:
                sock.sendall(bytes([octet]))
            except (BrokenPipeError, ConnectionResetError):
                return time.monotonic() - started, received
            sock.settimeout(TRICKLE_INTERVAL)
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                continue
            except ConnectionResetError:
                return time.monotonic() - started, received
            if not chunk:
                return time.monotonic() - started, received
            received += chunk
        raise AssertionError(f"the connection was still open after {bound} s of trickling")


def check_slowloris(target: Target, timeout: float) -> None:
    elapsed, received = trickle(target.address, timeout + CLOSE_SLACK + 2)
    assert elapsed <= timeout + CLOSE_SLACK, f"cut after {elapsed:.2f} s, timeout {timeout} s"
    answers = parse_answers(received).answers
    assert all(a.status == 408 for a in answers), [a.status for a in answers]
    assert_alive_quickly(target)


def assert_alive_quickly(target: Target) -> None:
    after = exchange(target.address, post(batch(part())), timeout=3.0)
    assert after.first is not None
    assert after.first.status == 200


def test_slowloris_is_cut_by_the_header_timeout(impatient_server: Target) -> None:
    check_slowloris(impatient_server, SHORT_HEADER_TIMEOUT)


@pytest.mark.deep
@pytest.mark.usefixtures("deep_only")
def test_slowloris_is_cut_by_the_proxy_default_header_timeout(proxy_target: Target) -> None:
    check_slowloris(proxy_target, ServerConfig().header_read_timeout)


def flood_requests() -> tuple[bytes, list[int]]:
    """FLOOD requests (every third a batch) and the status each answer must show, in order."""
    data = b""
    expected: list[int] = []
    for i in range(FLOOD):
        code = CODES[i % len(CODES)]
        if i % 3 == 0:
            data += post(batch(part("GET", f"/status/{code}")))
        else:
            data += request_bytes("GET", f"/status/{code}")
        expected.append(code)
    return data, expected


def test_pipelined_flood_is_answered_in_order(target: Target) -> None:
    data, expected = flood_requests()
    methods = ["POST" if i % 3 == 0 else "GET" for i in range(FLOOD)]
    result = exchange(target.address, data, methods=methods, expect=FLOOD, timeout=10.0)
    assert not result.malformed, result.malformed
    assert not result.hung, f"{len(result.answers)} of {FLOOD} answers, then silence"
    seen = []
    for method, answer in zip(methods, result.answers, strict=False):
        if method == "POST":
            assert answer.status == 200, answer.status
            seen.append(response_parts(answer)[0].status or 0)
        else:
            seen.append(answer.status)
    assert seen == expected[: len(seen)], "answers out of order"
    assert len(seen) == FLOOD or result.closed, "a prefix was answered and the connection hangs"
    assert len(seen) == FLOOD, f"only {len(seen)} of {FLOOD} pipelined requests answered"
