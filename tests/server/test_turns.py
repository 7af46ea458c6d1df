"""Heavy batches take the event loop one slice per turn, so small requests are not starved."""

from __future__ import annotations

import asyncio
import itertools

from mixbatch.server._turns import LIGHT_WORK, Turns


async def _heavy(turns: Turns, name: str, heavy_turns: int, log: list[str]) -> None:
    clock = turns.clock()
    taken = 0
    while taken < heavy_turns:
        while not clock.due():
            pass  # CPU work, as parsing or running parts is
        if clock.heavy:
            log.append(name)
            taken += 1
        await clock.pass_turn()


async def _light(log: list[str], steps: int) -> None:
    for _ in range(steps):
        log.append("light")
        await asyncio.sleep(0)


def test_a_small_request_waits_for_at_most_one_heavy_slice_per_step() -> None:
    async def scenario() -> list[str]:
        turns = Turns()
        log: list[str] = []
        heavies = [asyncio.create_task(_heavy(turns, f"h{i}", 400, log)) for i in range(4)]
        # Let every batch pass LIGHT_WORK before the small request arrives.
        await asyncio.sleep(LIGHT_WORK * 6)
        await _light(log, 30)
        await asyncio.gather(*heavies)
        return log

    log = asyncio.run(scenario())
    first, last = log.index("light"), len(log) - 1 - log[::-1].index("light")
    between = log[first : last + 1]
    runs, current = [], 0
    for entry in between:
        if entry == "light":
            runs.append(current)
            current = 0
        else:
            current += 1
    assert max(runs) <= 1, between
    # The heavy batches keep going meanwhile, and take turns among themselves.
    heavy_order = [e for e in between if e != "light"]
    assert len(set(heavy_order)) == 4, heavy_order
    assert all(a != b for a, b in itertools.pairwise(heavy_order)), heavy_order


def test_a_cancelled_batch_does_not_hold_up_the_queue() -> None:
    async def scenario() -> list[str]:
        turns = Turns()
        log: list[str] = []
        doomed = asyncio.create_task(_heavy(turns, "doomed", 1000, log))
        survivor = asyncio.create_task(_heavy(turns, "survivor", 20, log))
        await asyncio.sleep(LIGHT_WORK * 4)
        doomed.cancel()
        await asyncio.wait_for(survivor, timeout=10)
        return log

    log = asyncio.run(scenario())
    assert log.count("survivor") == 20
