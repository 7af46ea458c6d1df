"""The demo resources' SQLite store: each read or write is one transaction, a failed write leaves
nothing behind, and an atomic batch's transaction (§7.5) is invisible to other readers until it
commits (MB-PROC-15), undoes everything on rollback without reusing the ids it handed out, and
holds the write lock so that another writer gives up with ``StoreBusy`` after the busy timeout."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from mixbatch.server import _store
from mixbatch.server._store import DB_FILE, Store, StoreBusy, bound

#: Seconds any one scenario may take before the test fails.
STEP = 5.0


def _schema(conn: sqlite3.Connection) -> None:
    conn.execute(
        "CREATE TABLE IF NOT EXISTS item (id INTEGER PRIMARY KEY AUTOINCREMENT, v TEXT NOT NULL)"
    )


def _insert(value: str) -> Callable[[sqlite3.Connection], int]:
    def insert(conn: sqlite3.Connection) -> int:
        cursor = conn.execute("INSERT INTO item (v) VALUES (?)", (value,))
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    return insert


def _values(conn: sqlite3.Connection) -> list[str]:
    return [str(v) for (v,) in conn.execute("SELECT v FROM item ORDER BY id")]


def _run[T](scenario: Callable[[], Awaitable[T]]) -> T:
    async def bounded() -> T:
        return await asyncio.wait_for(scenario(), STEP)

    return asyncio.run(bounded())


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "data", _schema)


def test_a_data_dir_holds_a_durable_database_file(tmp_path: Path) -> None:
    store = Store(tmp_path / "data", _schema)
    assert store.path == tmp_path / "data" / DB_FILE
    assert store.path.exists()
    assert store.durable is True


def test_without_a_data_dir_the_database_is_temporary() -> None:
    store = Store(None, _schema)
    assert store.durable is False
    assert store.path.exists()


def test_a_write_is_seen_by_a_later_read(store: Store) -> None:
    async def scenario() -> list[str]:
        await store.write(_insert("a"))
        return await store.read(_values)

    assert _run(scenario) == ["a"]


def test_a_write_that_raises_leaves_nothing_behind(store: Store) -> None:
    def half(conn: sqlite3.Connection) -> None:
        _insert("half")(conn)
        raise ValueError("fails after the insert")

    async def scenario() -> list[str]:
        with pytest.raises(ValueError, match="after the insert"):
            await store.write(half)
        return await store.read(_values)

    assert _run(scenario) == []


def test_an_atomic_batch_is_invisible_to_other_readers_until_it_commits(store: Store) -> None:
    async def scenario() -> tuple[list[str], list[str], list[str]]:
        transaction = store.transaction()
        await transaction.begin()
        loop = asyncio.get_running_loop()

        async def parts() -> list[str]:
            await store.write(_insert("x"))
            await store.write(_insert("y"))
            return await store.read(_values)

        inside = await loop.create_task(parts(), context=bound(transaction))
        outside = await store.read(_values)
        await transaction.commit()
        return inside, outside, await store.read(_values)

    inside, outside, after = _run(scenario)
    assert inside == ["x", "y"]
    assert outside == []
    assert after == ["x", "y"]


def test_a_rolled_back_batch_undoes_every_write_and_never_reuses_its_ids(store: Store) -> None:
    # The table has handed out an id before, as the seeded demo tables have.
    store.write_now(_insert("seed"))

    async def scenario() -> tuple[list[int], list[str], int]:
        transaction = store.transaction()
        await transaction.begin()
        loop = asyncio.get_running_loop()

        async def parts() -> list[int]:
            return [await store.write(_insert("a")), await store.write(_insert("b"))]

        handed_out = await loop.create_task(parts(), context=bound(transaction))
        await transaction.rollback()
        remaining = await store.read(_values)
        return handed_out, remaining, await store.write(_insert("c"))

    handed_out, remaining, next_id = _run(scenario)
    assert remaining == ["seed"]
    # A rolled-back part's Location named these ids: they must never name another item.
    assert next_id > max(handed_out)


def test_a_rolled_back_first_id_of_a_table_is_never_handed_out_again(store: Store) -> None:
    # No id handed out before: the roll-back removes the table's counter row altogether.
    async def scenario() -> tuple[int, int]:
        transaction = store.transaction()
        await transaction.begin()
        loop = asyncio.get_running_loop()
        first = await loop.create_task(store.write(_insert("a")), context=bound(transaction))
        await transaction.rollback()
        return first, await store.write(_insert("b"))

    first, next_id = _run(scenario)
    assert next_id > first


def test_a_transaction_of_one_store_does_not_capture_another_store(
    store: Store, tmp_path: Path
) -> None:
    other = Store(tmp_path / "other", _schema)

    async def scenario() -> list[str]:
        transaction = store.transaction()
        await transaction.begin()

        async def elsewhere() -> None:
            await other.write(_insert("o"))

        await asyncio.get_running_loop().create_task(elsewhere(), context=bound(transaction))
        transaction.close()
        return await other.read(_values)

    assert _run(scenario) == ["o"]


def test_another_writer_gives_up_with_store_busy_while_a_batch_holds_the_lock(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_store, "BUSY_TIMEOUT", 0.05)

    async def scenario() -> list[str]:
        holder = store.transaction()
        await holder.begin()
        try:
            with pytest.raises(StoreBusy):
                await store.write(_insert("blocked"))
            waiting = store.transaction()
            with pytest.raises(StoreBusy):
                await waiting.begin()
            waiting.close()
        finally:
            await holder.rollback()
        await store.write(_insert("after"))
        return await store.read(_values)

    assert _run(scenario) == ["after"]


def test_running_in_a_transaction_that_is_not_open_is_an_error(store: Store) -> None:
    async def scenario() -> None:
        transaction = store.transaction()
        with pytest.raises(RuntimeError, match="not open"):
            await transaction.run(_values)
        await transaction.begin()
        await transaction.commit()
        with pytest.raises(RuntimeError, match="not open"):
            await transaction.run(_values)

    _run(scenario)


def test_close_rolls_back_an_uncommitted_batch(store: Store) -> None:
    async def scenario() -> list[str]:
        transaction = store.transaction()
        await transaction.begin()
        await transaction.run(_insert("lost"))
        transaction.close()
        # close() never waits; the next writer queues behind the rollback's lock release.
        await store.write(_insert("kept"))
        return await store.read(_values)

    assert _run(scenario) == ["kept"]


def test_write_now_commits_in_the_calling_thread(store: Store) -> None:
    assert store.write_now(_insert("setup")) == 1
    assert _run(lambda: store.read(_values)) == ["setup"]
