"""While a batch is in flight the collector's young generation collects less often, and its
threshold is back to what it was once the last batch in flight ended, however the batch ended."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator

import pytest

from mixbatch._http.messages import BytesBody, Request
from mixbatch.codec import Fields
from mixbatch.server import ServerConfig, _collector, build_app
from mixbatch.server._collector import BATCH_YOUNG_THRESHOLD, hold

from ._client import build_batch

DEFAULT = (700, 10, 10)


@pytest.fixture(autouse=True)
def _default_threshold(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # No hold left over from another test (a batch whose answer was never read) counts here.
    monkeypatch.setattr(_collector, "_THRESHOLD", _collector._Threshold())
    before = gc.get_threshold()
    gc.set_threshold(*DEFAULT)
    try:
        yield
    finally:
        gc.set_threshold(*before)


def test_a_hold_raises_the_young_threshold_until_it_is_released() -> None:
    batch = hold()
    assert gc.get_threshold() == (BATCH_YOUNG_THRESHOLD, 10, 10)
    batch.release()
    assert gc.get_threshold() == DEFAULT
    batch.release()  # a second release changes nothing
    assert gc.get_threshold() == DEFAULT


def test_the_threshold_stays_raised_until_the_last_of_overlapping_batches_ends() -> None:
    first, second = hold(), hold()
    first.release()
    first.release()  # released twice, still counted once
    assert gc.get_threshold()[0] == BATCH_YOUNG_THRESHOLD
    third = hold()
    second.release()
    assert gc.get_threshold()[0] == BATCH_YOUNG_THRESHOLD
    third.release()
    assert gc.get_threshold() == DEFAULT


def test_a_collector_switched_off_or_already_higher_is_left_alone() -> None:
    for young in (0, BATCH_YOUNG_THRESHOLD * 2):
        gc.set_threshold(young, 10, 10)
        batch = hold()
        assert gc.get_threshold() == (young, 10, 10)
        batch.release()
        assert gc.get_threshold() == (young, 10, 10)


def _post(body: bytes, content_type: str) -> Request:
    headers = Fields([("Content-Type", content_type), ("Content-Length", str(len(body)))])
    return Request("POST", "/batch", headers, BytesBody(body))


def test_a_batch_holds_the_threshold_raised_while_it_runs_and_not_after() -> None:
    content_type, body = build_batch([("GET", "/random/16")] * 3)
    seen: list[int] = []

    async def run() -> None:
        app = build_app(ServerConfig(port=0))
        response = await app(_post(body, content_type))
        assert response.status == 200
        assert not isinstance(response.body, bytes)
        async for _ in response.body:
            seen.append(gc.get_threshold()[0])

    asyncio.run(run())
    assert seen
    assert set(seen) == {BATCH_YOUNG_THRESHOLD}
    assert gc.get_threshold() == DEFAULT


def test_a_refused_batch_puts_the_threshold_back() -> None:
    content_type, body = build_batch([("GET", "/batch")])  # a nested batch: 400 (MB-SUB-4)

    async def run() -> int:
        app = build_app(ServerConfig(port=0))
        response = await app(_post(body, content_type))
        return response.status

    assert asyncio.run(run()) == 400
    assert gc.get_threshold() == DEFAULT


def test_a_batch_whose_answer_is_abandoned_puts_the_threshold_back() -> None:
    content_type, body = build_batch([("GET", "/random/16")] * 3)

    async def run() -> None:
        app = build_app(ServerConfig(port=0))
        response = await app(_post(body, content_type))
        assert not isinstance(response.body, bytes)
        aclose = getattr(response.body, "aclose")  # noqa: B009
        await aclose()  # the client went away before the first part

    asyncio.run(run())
    assert gc.get_threshold() == DEFAULT
