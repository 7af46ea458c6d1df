"""The proxy in front of a planted origin that stalls, closes early, sends garbage, sends more
than it was asked for, or sends interim answers first (``_planted_origin``).

For each fault: one client's batch holds the faulty sub-request and three good ones, a second
client's batch runs at the same time, and a third client's batch follows. The faulty part gets
the outcome MB-PROXY-2 allows, every batch is 200, and no part anywhere carries an answer made for
another request: each good answer's body and X-Nonce are the part's own nonce.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from ._case import batch, part, post
from ._planted_origin import FORGED, PlantedOrigin
from ._targets import LoopThread, Target, start_proxy, stop
from ._verdicts import ResponsePart, response_parts
from ._wire import exchange
from .upstream_cases import CASES, FAILURE_STATUSES, UpstreamCase

#: Seconds the proxy waits for one sub-request: short, so the stall case costs about a second.
SUBREQUEST_TIMEOUT = 1.0
#: Few upstream connections, so connections are reused and a desynchronised one is found.
MAX_CONNECTIONS = 2
#: Seconds one batch exchange may take.
BATCH_BOUND = 8.0

_serial = itertools.count()


@pytest.fixture(scope="module")
def planted(adversarial_loop: LoopThread) -> Iterator[PlantedOrigin]:
    origin = PlantedOrigin()
    adversarial_loop.run(origin.start())
    yield origin
    adversarial_loop.run(origin.close())


@pytest.fixture
def fault_proxy(adversarial_loop: LoopThread, planted: PlantedOrigin) -> Iterator[Target]:
    target, proxy = start_proxy(
        adversarial_loop,
        planted.url,
        subrequest_timeout=SUBREQUEST_TIMEOUT,
        connect_timeout=SUBREQUEST_TIMEOUT,
        max_connections=MAX_CONNECTIONS,
    )
    yield target
    stop(adversarial_loop, proxy)


def nonces(client: str, count: int) -> list[str]:
    run = next(_serial)
    return [f"n{run}-{client}{i}" for i in range(count)]


def send(target: Target, paths: list[str]) -> list[ResponsePart]:
    request = post(batch(*[part("GET", path) for path in paths]), host=target.authority)
    result = exchange(target.address, request, timeout=BATCH_BOUND)
    assert not result.malformed, result.malformed
    answer = result.first
    assert answer is not None, f"no answer to a batch of {paths} (MB-PROXY-2: never a lost batch)"
    assert answer.status == 200, f"batch answered {answer.status}: {answer.body[:200]!r}"
    parts = response_parts(answer)
    assert len(parts) == len(paths), f"{len(parts)} parts for {len(paths)} sub-requests"
    return parts


def foreign(part: ResponsePart, nonce: str) -> str | None:
    """Why ``part`` carries an answer made for another request, if it does."""
    if FORGED in part.body or part.header("X-Nonce") == "forged":
        return "the forged answer nobody asked for"
    other = part.header("X-Nonce")
    if other is not None and other != nonce:
        return f"the answer to {other}"
    if part.status == 200 and part.body != nonce.encode():
        return f"content {part.body[:60]!r}"
    return None


def check_good(parts: list[ResponsePart], ids: list[str]) -> list[str]:
    problems = []
    for index, (got, nonce) in enumerate(zip(parts, ids, strict=True)):
        wrong = foreign(got, nonce)
        if wrong:
            problems.append(f"part {index} ({nonce}) got {wrong}")
        elif got.status != 200 and got.status not in FAILURE_STATUSES:
            problems.append(f"part {index} ({nonce}) answered {got.status}")
    return problems


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_upstream_fault(case: UpstreamCase, fault_proxy: Target) -> None:
    a_ids, b_ids, c_ids = nonces("a", 4), nonces("b", 4), nonces("c", 6)
    a_paths = [f"/{case.fault}/{a_ids[0]}"] + [f"/ok/{n}" for n in a_ids[1:]]
    with ThreadPoolExecutor(2) as pool:
        a_future = pool.submit(send, fault_proxy, a_paths)
        b_future = pool.submit(send, fault_proxy, [f"/ok/{n}" for n in b_ids])
        a_parts, b_parts = a_future.result(), b_future.result()
    c_parts = send(fault_proxy, [f"/ok/{n}" for n in c_ids])

    problems = []
    faulty = a_parts[0]
    if faulty.status not in case.statuses:
        problems.append(
            f"the faulty part answered {faulty.status}, allowed {sorted(case.statuses)}"
        )
    if FAILURE_STATUSES.isdisjoint({faulty.status}) and case.own_nonce:
        wrong = foreign(faulty, a_ids[0])
        if wrong:
            problems.append(f"the faulty part got {wrong}")
    elif FORGED in faulty.body:
        problems.append("the faulty part carries the forged answer")
    problems += check_good(a_parts[1:], a_ids[1:])
    problems += check_good(b_parts, b_ids)
    problems += check_good(c_parts, c_ids)
    late = [i for i, p in enumerate(c_parts) if p.status != 200]
    if late:
        problems.append(f"after the fault, a later batch still failed in parts {late}")
    assert not problems, f"{case.id} ({case.cite}): " + "; ".join(problems)
