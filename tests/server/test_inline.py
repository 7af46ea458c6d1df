"""A part runs at once with no task, and one that waits carries on in a task as if it had its own."""

from __future__ import annotations

import asyncio
import contextvars

import pytest

from mixbatch.server._inline import start

VAR: contextvars.ContextVar[str] = contextvars.ContextVar("VAR", default="outside")


async def _plain(value: int) -> int:
    VAR.set("inside")
    return value * 2


async def _waits(future: asyncio.Future[int], log: list[str]) -> int:
    VAR.set("inside")
    try:
        got = await future
        await asyncio.sleep(0)  # a bare yield too
        log.append(VAR.get())
        return got + 1
    finally:
        log.append("finally")


def test_a_part_that_does_not_wait_returns_its_result_with_no_task() -> None:
    async def scenario() -> None:
        before = len(asyncio.all_tasks())
        assert start(_plain(21), asyncio.get_running_loop()) == (True, 42)
        assert len(asyncio.all_tasks()) == before
        assert VAR.get() == "outside"  # the part ran in a copy of the context

    asyncio.run(scenario())


def test_a_part_that_waits_carries_on_in_a_task_in_its_own_context() -> None:
    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[int] = loop.create_future()
        log: list[str] = []
        started = start(_waits(future, log), loop)
        assert started[0] is False
        task = started[1]
        assert isinstance(task, asyncio.Task)
        assert not task.done()
        loop.call_later(0.01, future.set_result, 9)
        assert await task == 10
        assert log == ["inside", "finally"]
        assert VAR.get() == "outside"

    asyncio.run(scenario())


def test_an_exception_before_any_wait_propagates_from_start() -> None:
    async def fails() -> int:
        raise ValueError("no")

    async def scenario() -> None:
        with pytest.raises(ValueError, match="no"):
            start(fails(), asyncio.get_running_loop())

    asyncio.run(scenario())


def test_an_exception_after_a_wait_is_the_tasks() -> None:
    async def fails_later(future: asyncio.Future[int]) -> int:
        await future
        raise KeyError("late")

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[int] = loop.create_future()
        started = start(fails_later(future), loop)
        assert started[0] is False
        future.set_result(1)
        with pytest.raises(KeyError, match="late"):
            await started[1]

    asyncio.run(scenario())


def test_cancelling_the_task_cancels_the_part_at_its_wait() -> None:
    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[int] = loop.create_future()
        log: list[str] = []
        started = start(_waits(future, log), loop)
        assert started[0] is False
        task = started[1]
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert task.cancelled()
        assert future.cancelled()  # the part's own wait was cancelled
        assert log == ["finally"]

    asyncio.run(scenario())


def test_a_timeout_inside_the_part_still_fires() -> None:
    async def sleeps() -> str:
        try:
            async with asyncio.timeout(0.01):
                await asyncio.sleep(5)
        except TimeoutError:
            return "timed out"
        return "slept"

    async def scenario() -> None:
        started = start(sleeps(), asyncio.get_running_loop())
        assert started[0] is False
        assert await started[1] == "timed out"

    asyncio.run(scenario())
