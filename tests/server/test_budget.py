"""The server-wide budget for batches in flight (MB-LIMIT-6): a batch beyond it is answered 503
with Retry-After before any of its parts runs, and a finished or abandoned batch gives its share
back."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any

import pytest

from mixbatch.cli import _serve
from mixbatch.server import ServerConfig

from ._client import HttpClient, RunningServer, build_batch, post_batch
from .test_batch_endpoint import BOOK, JSON_FIELDS, assert_problem, book_count

SLOW_PART = ("GET", "/delay/1500")
WRITE_PART = ("POST", "/books", JSON_FIELDS, BOOK)


def _held(running: RunningServer) -> tuple[int, int]:
    async def read() -> tuple[int, int]:
        budget = running.app.batch.budget
        return budget.batches, budget.bytes

    return running.loop.run(read())


def _wait_until(predicate: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.02)


def _assert_busy(reply: Any, limit: str) -> None:
    document = assert_problem(reply, 503, "MB-LIMIT-6")
    assert reply.header("Retry-After") == "2"
    assert (document["budget"], document["type"]) == (
        limit,
        "https://mixbatch.dev/problems/server-busy",
    )
    assert "byte_offset" not in document


def test_a_batch_beyond_the_batch_count_is_503_and_none_of_it_runs(
    make_server: Callable[..., RunningServer],
) -> None:
    running = make_server(ServerConfig(port=0, max_batches_in_flight=1))
    with running.client() as first, running.client() as second, running.client() as third:
        before = book_count(third)
        content_type, body = build_batch([SLOW_PART])
        first.send("POST", "/batch", [("Content-Type", content_type)], body)
        _wait_until(lambda: _held(running)[0] == 1)
        _assert_busy(post_batch(second, [WRITE_PART]), "max_batches_in_flight")
        assert book_count(third) == before  # the refused batch's write never ran
        assert first.receive().status == 200
        # The finished batch gave its share back: the next one runs.
        assert post_batch(second, [WRITE_PART]).status == 200
        assert book_count(third) == before + 1
    assert _held(running) == (0, 0)


def _hold_one_batch(running: RunningServer, client: HttpClient) -> None:
    """Start a slow one-part batch on ``client`` and wait until the server holds it."""
    content_type, body = build_batch([SLOW_PART])
    client.send("POST", "/batch", [("Content-Type", content_type)], body)
    _wait_until(lambda: _held(running)[0] == 1)


def test_a_declared_length_beyond_the_octet_budget_is_503_before_the_content_is_read(
    make_server: Callable[..., RunningServer],
) -> None:
    running = make_server(
        ServerConfig(port=0, max_batch_bytes_in_flight=1000, max_drain_bytes=1000)
    )
    content_type, body = build_batch([WRITE_PART] * 8)
    assert len(body) > 1000
    with running.client() as client, running.client() as holder:
        before = book_count(client)
        _hold_one_batch(running, holder)
        # Only the head is sent: the refusal does not wait for the content, and the connection
        # closes rather than read more than max_drain_bytes of it.
        client.sock.sendall(
            f"POST /batch HTTP/1.1\r\nHost: test\r\nContent-Type: {content_type}\r\n"
            f"Content-Length: {len(body)}\r\n\r\n".encode()
        )
        reply = client.receive()
        _assert_busy(reply, "max_batch_bytes_in_flight")
        assert holder.receive().status == 200
    with running.client() as client:
        assert book_count(client) == before
        assert post_batch(client, [("GET", "/books/1")]).status == 200
    assert _held(running) == (0, 0)


def test_a_chunked_batch_that_outgrows_the_octet_budget_is_503(
    make_server: Callable[..., RunningServer],
) -> None:
    running = make_server(ServerConfig(port=0, max_batch_bytes_in_flight=1000))
    content_type, body = build_batch([WRITE_PART] * 8)
    with running.client() as client, running.client() as holder:
        before = book_count(client)
        _hold_one_batch(running, holder)
        reply = client.request(
            "POST",
            "/batch",
            [("Content-Type", content_type), ("Transfer-Encoding", "chunked")],
            body,
        )
        _assert_busy(reply, "max_batch_bytes_in_flight")
        assert holder.receive().status == 200
    with running.client() as client:
        assert book_count(client) == before
    assert _held(running) == (0, 0)


@pytest.mark.parametrize("chunked", [False, True])
def test_a_batch_held_alone_fits_a_budget_smaller_than_it(
    make_server: Callable[..., RunningServer], chunked: bool
) -> None:
    # Within the limits of one batch, it must not be refused again and again.
    running = make_server(ServerConfig(port=0, max_batch_bytes_in_flight=100))
    content_type, body = build_batch([("GET", "/books/1")] * 8)
    framing = [("Transfer-Encoding", "chunked")] if chunked else []
    with running.client() as client:
        reply = client.request("POST", "/batch", [("Content-Type", content_type), *framing], body)
    assert reply.status == 200
    assert _held(running) == (0, 0)


def test_a_batch_whose_client_leaves_gives_its_share_back(
    make_server: Callable[..., RunningServer],
) -> None:
    running = make_server(ServerConfig(port=0, max_batches_in_flight=1))
    content_type, body = build_batch([SLOW_PART, SLOW_PART])
    with running.client() as client:
        client.send("POST", "/batch", [("Content-Type", content_type)], body)
        _wait_until(lambda: _held(running)[0] == 1)
    _wait_until(lambda: _held(running) == (0, 0))
    with running.client() as client:
        assert post_batch(client, [("GET", "/books/1")]).status == 200


@pytest.mark.parametrize(
    ("option", "value"),
    [("max_batches_in_flight", 0), ("max_batch_bytes_in_flight", -1), ("busy_retry_after", 0)],
)
def test_the_budget_options_must_be_positive(option: str, value: int) -> None:
    with pytest.raises(ValueError, match=option):
        ServerConfig(**{option: value})


def test_the_capabilities_document_publishes_max_part_fields(client: HttpClient) -> None:
    document = json.loads(client.request("OPTIONS", "/batch").body)
    assert document["limits"]["max_part_fields"] == 100


def test_a_part_over_max_part_fields_is_431_naming_the_limit(client: HttpClient) -> None:
    fields = [("a", "")] * 1_600
    reply = post_batch(client, [("GET", "/books/1"), ("GET", "/books/2", fields, b"")])
    document = assert_problem(reply, 431, "MB-LIMIT-5")
    assert (document["limit"], document["value"], document["part_index"]) == (
        "max_part_fields",
        100,
        1,
    )
    assert isinstance(document["byte_offset"], int)


def test_serve_takes_the_budget_and_the_field_limit_as_options() -> None:
    parser = argparse.ArgumentParser()
    _serve.add_parser(parser.add_subparsers())
    args = parser.parse_args(
        [
            "serve",
            "--max-batches-in-flight=3",
            "--max-batch-bytes-in-flight=5000",
            "--busy-retry-after=7",
            "--max-part-fields=20",
        ]
    )
    config = _serve.config_from_args(args)
    assert (
        config.max_batches_in_flight,
        config.max_batch_bytes_in_flight,
        config.busy_retry_after,
        config.limits.max_part_fields,
    ) == (3, 5000, 7, 20)
