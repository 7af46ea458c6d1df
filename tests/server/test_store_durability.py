"""Atomic batches against real server processes: SIGKILL at random points, two processes on one
data file. Each batch's books are told apart by title, so a GET of /books shows, per batch,
whether none, some or all of its writes survived."""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from ._client import HttpClient, parse_batch, post_batch
from ._process import ServerProcess, start, titles

JSON_FIELDS = [("Content-Type", "application/json")]
#: Books per batch; a delay part in the middle keeps the transaction open across a few ms.
WRITES = 4
#: Kills in the crash test: each costs a process start (about 0.3 s).
KILLS = 20
#: The longest a process runs before it is killed, in seconds.
MAX_LIFE = 0.35


def _batch(name: str) -> list[tuple[str, str, list[tuple[str, str]], bytes]]:
    def post(i: int) -> tuple[str, str, list[tuple[str, str]], bytes]:
        body = f'{{"title": "{name}-{i}", "author": "crash test"}}'.encode()
        return ("POST", "books", JSON_FIELDS, body)

    half = WRITES // 2
    return [
        *(post(i) for i in range(half)),
        ("GET", "delay/3", [], b""),
        *(post(i) for i in range(half, WRITES)),
    ]


def _send(client: HttpClient, name: str) -> bool:
    """True when the batch was acknowledged as committed (every part ran, none marked)."""
    reply = post_batch(client, _batch(name), [("Batch-Mode", "atomic")])
    parts = parse_batch(reply)
    return reply.status == 200 and all(p.outcome is None and p.status for p in parts)


def _applied(names: list[str], present: Counter[str]) -> dict[str, int]:
    return {name: sum(present[f"{name}-{i}"] for i in range(WRITES)) for name in names}


@pytest.mark.slow
def test_sigkill_during_atomic_batches_loses_nothing_acknowledged_and_splits_nothing(
    tmp_path: Path,
) -> None:
    rng = random.Random(20261122)
    acknowledged: list[str] = []
    in_flight: list[str] = []
    started = time.monotonic()
    for cycle in range(KILLS):
        server = start(tmp_path)
        timer = threading.Timer(rng.uniform(0.0, MAX_LIFE), server.kill)
        timer.start()
        sent = 0
        try:
            with server.client(timeout=5.0) as client:
                while True:
                    name = f"c{cycle}b{sent}"
                    sent += 1
                    try:
                        ok = _send(client, name)
                    except Exception:
                        in_flight.append(name)
                        break
                    assert ok, name
                    acknowledged.append(name)
        except OSError:
            pass  # killed before the connection was accepted
        finally:
            timer.join()
            server.kill()
    survivor = start(tmp_path)
    try:
        present = Counter(titles(survivor))
    finally:
        survivor.kill()
    elapsed = time.monotonic() - started
    done = _applied(acknowledged, present)
    unknown = _applied(in_flight, present)
    applied_in_flight = sum(1 for n in unknown.values() if n == WRITES)
    print(
        f"\n{KILLS} SIGKILLs in {elapsed:.1f} s: {len(acknowledged)} batches acknowledged, "
        f"{len(in_flight)} in flight at a kill ({applied_in_flight} applied whole, "
        f"{len(in_flight) - applied_in_flight} not at all)"
    )
    # Nothing acknowledged before a kill is lost (MB-PROC-16: committed before answered).
    assert {n: c for n, c in done.items() if c != WRITES} == {}
    # A batch cut off by a kill is wholly applied or not at all (MB-PROC-8, MB-PROC-15).
    assert {n: c for n, c in unknown.items() if c not in (0, WRITES)} == {}
    assert len(acknowledged) > KILLS  # the kills did land among batches
    assert elapsed < 60


def _writer(server: ServerProcess, prefix: str, count: int, failures: list[str]) -> list[str]:
    names = []
    with server.client() as client:
        for i in range(count):
            name = f"{prefix}{i}"
            batch = _batch(name)
            if i % 3 == 2:
                # Every third batch fails at its end: none of it may remain.
                batch.append(("GET", "books/999999999", [], b""))
            reply = post_batch(client, batch, [("Batch-Mode", "atomic")])
            statuses = [p.status for p in parse_batch(reply)]
            if i % 3 == 2:
                if statuses[-1] != 404:
                    failures.append(f"{name}: {statuses}")
            else:
                names.append(name)
    return names


@pytest.mark.slow
def test_two_processes_on_one_data_file_stay_consistent(tmp_path: Path) -> None:
    first, second = start(tmp_path), start(tmp_path)
    try:
        results: dict[str, list[str]] = {}
        failures: list[str] = []
        partial: list[dict[str, int]] = []
        stop = threading.Event()

        def write(server: ServerProcess, prefix: str) -> None:
            results[prefix] = _writer(server, prefix, 30, failures)

        def read() -> None:
            # A reader on either process sees every batch whole or not at all.
            names = [f"{p}{i}" for p in ("p", "q") for i in range(30)]
            while not stop.is_set():
                for server in (first, second):
                    seen = _applied(names, Counter(titles(server)))
                    partial.extend({n: c} for n, c in seen.items() if c not in (0, WRITES))

        threads = [
            threading.Thread(target=write, args=(first, "p")),
            threading.Thread(target=write, args=(second, "q")),
        ]
        reader = threading.Thread(target=read)
        reader.start()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        stop.set()
        reader.join(10)
        assert failures == []
        assert partial == []
        present = Counter(titles(first))
        committed = results["p"] + results["q"]
        assert len(committed) == 40
        assert {n: c for n, c in _applied(committed, present).items() if c != WRITES} == {}
        rolled_back = [f"{p}{i}" for p in ("p", "q") for i in range(2, 30, 3)]
        assert {n: c for n, c in _applied(rolled_back, present).items() if c} == {}
        # Both processes hand out ids from the one sequence: no id twice, the seed books once.
        assert present["Weaving the Web"] == 1
        views = []
        for server in (first, second):
            with server.client() as client:
                views.append(client.request("GET", "/books", [("Accept", "application/json")]))
        assert views[0].body == views[1].body
    finally:
        first.kill()
        second.kill()
