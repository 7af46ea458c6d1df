"""Every campaign case, against the server and against the proxy, over a raw loopback socket.

Each case's answer must be one the spec or RFC 9112 allows (``_verdicts.judge``), and after every
case the peer must still answer a normal batch promptly: no case may wedge, crash or slow it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from . import framing_cases, header_cases, limit_cases, nested_cases, target_cases
from ._case import NORMAL_REQUEST, Case, Close
from ._targets import LoopThread, Target, start_proxy, start_server, stop
from ._verdicts import judge, response_parts
from ._wire import EXCHANGE_TIMEOUT, exchange

ALL_CASES: list[Case] = [
    *framing_cases.CASES,
    *header_cases.CASES,
    *target_cases.CASES,
    *nested_cases.CASES,
    *limit_cases.CASES,
]
#: Seconds to wait for the close a case requires: reading ends as soon as it comes, so only a
#: peer that keeps the connection waits this long, and a busy machine can delay a close that an
#: idle one sees in microseconds.
CLOSE_WAIT = 2.0
#: Seconds a connection that must stay open is watched for a close after the answer.
CLOSE_LINGER = 0.25
#: Seconds a batch at a default limit may take (10,000 parts through the proxy take a few).
DEFAULT_LIMITS_TIMEOUT = 60.0
#: Seconds a normal batch may take after a case; far above its usual few milliseconds.
LIVENESS_TIMEOUT = 3.0


def assert_alive(target: Target) -> None:
    """The peer answers a one-part batch 200, with the part 200, within LIVENESS_TIMEOUT."""
    after = exchange(target.address, NORMAL_REQUEST, timeout=LIVENESS_TIMEOUT)
    answer = after.first
    assert answer is not None, f"{target.name} did not answer a normal batch after the case"
    assert answer.status == 200, f"{target.name} answered a normal batch {answer.status}"
    assert [p.status for p in response_parts(answer)] == [200]


def test_case_ids_are_unique() -> None:
    ids = [case.id for case in ALL_CASES]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)


def test_every_case_cites_its_source() -> None:
    for case in ALL_CASES:
        assert case.cite.startswith(("MB-", "RFC ")), case.id


def test_capabilities_publish_max_part_fields(target: Target) -> None:
    """MB-LIMIT-5: the field-line limit is published as max_part_fields."""
    assert "max_part_fields" in target.limits, target.limits


def run_case(case: Case, target: Target, timeout: float = EXCHANGE_TIMEOUT) -> None:
    if target.name not in case.peers:
        pytest.skip(f"{case.id} does not apply to the {target.name}")
    try:
        data = case.build(target.limits)
    except KeyError as exc:
        pytest.fail(f"{target.name} does not publish the limit {exc} in its capabilities")
    result = exchange(
        target.address,
        data,
        methods=(case.method,),
        expect=case.answers,
        half_close=case.eof,
        timeout=timeout,
        linger={Close.MUST: CLOSE_WAIT, Close.KEEP: CLOSE_LINGER}.get(case.close, 0.0),
    )
    problems = judge(case, result)
    assert not problems, f"{case.id} ({case.cite}): " + "; ".join(problems)
    assert_alive(target)


@pytest.mark.parametrize("case", ALL_CASES, ids=lambda case: case.id)
def test_case(case: Case, target: Target) -> None:
    run_case(case, target)


@pytest.fixture(scope="module", params=["server", "proxy"])
def default_target(
    request: pytest.FixtureRequest, adversarial_loop: LoopThread
) -> Iterator[Target]:
    """A peer with every limit at its default, as ``mixbatch serve`` and ``proxy`` start."""
    origin, origin_server = start_server(adversarial_loop)
    if request.param == "server":
        yield origin
    else:
        target, proxy = start_proxy(adversarial_loop, f"http://{origin.authority}")
        yield target
        stop(adversarial_loop, proxy)
    stop(adversarial_loop, origin_server)


@pytest.mark.deep
@pytest.mark.timeout(600)
@pytest.mark.usefixtures("deep_only")
@pytest.mark.parametrize("case", limit_cases.CASES, ids=lambda case: case.id)
def test_limit_case_at_default_limits(case: Case, default_target: Target) -> None:
    run_case(case, default_target, timeout=DEFAULT_LIMITS_TIMEOUT)
