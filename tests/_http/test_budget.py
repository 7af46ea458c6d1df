"""The in-flight batch budget counted alone: batches and octets held, a lone batch always
fitting, tickets given back once, and the refusal's document."""

from __future__ import annotations

import asyncio

import pytest

from mixbatch._http.budget import (
    BatchBudget,
    BudgetExhausted,
    HeldBody,
    busy_document,
    busy_response,
)


def test_batches_beyond_the_count_are_refused_until_one_is_given_back() -> None:
    budget = BatchBudget(max_batches=2, max_bytes=1000)
    first, _second = budget.admit(10), budget.admit(10)
    with pytest.raises(BudgetExhausted) as caught:
        budget.admit(10)
    assert caught.value.limit == "max_batches_in_flight"
    first.release()
    first.release()  # a second release gives nothing back twice
    assert budget.batches == 1
    budget.admit(10)


def test_octets_beyond_the_budget_are_refused_but_a_lone_batch_always_fits() -> None:
    budget = BatchBudget(max_batches=8, max_bytes=100)
    alone = budget.admit(500)  # over the budget, but held alone
    with pytest.raises(BudgetExhausted) as caught:
        budget.admit(1)
    assert caught.value.limit == "max_batch_bytes_in_flight"
    alone.release()
    assert (budget.batches, budget.bytes) == (0, 0)


def test_a_chunked_batch_is_charged_as_it_arrives() -> None:
    budget = BatchBudget(max_batches=8, max_bytes=100)
    other = budget.admit(60)
    ticket = budget.admit(None)
    ticket.charge(30)
    assert (ticket.held, budget.bytes) == (30, 90)
    with pytest.raises(BudgetExhausted):
        ticket.charge(50)
    other.release()
    ticket.release()
    assert budget.bytes == 0


def test_a_budget_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        BatchBudget(0, 1)


def test_the_refusal_is_a_503_naming_the_budget_with_retry_after() -> None:
    exc = BudgetExhausted("full", limit="max_batches_in_flight", value=8)
    document = busy_document(exc, 3)
    assert document["status"] == 503
    assert document["requirement"] == "MB-LIMIT-6"
    assert (document["budget"], document["budget_value"]) == ("max_batches_in_flight", 8)
    response = busy_response(exc, 3)
    assert response.status == 503
    assert response.header("Retry-After") == "3"


def test_a_held_body_releases_at_its_end_and_when_closed_before_it_started() -> None:
    released: list[str] = []

    async def chunks() -> object:
        yield b"a"
        yield b"b"

    async def main() -> None:
        read = [c async for c in HeldBody(chunks(), lambda: released.append("read"))]  # type: ignore[arg-type]
        assert read == [b"a", b"b"]
        await HeldBody(chunks(), lambda: released.append("closed")).aclose()  # type: ignore[arg-type]

    asyncio.run(main())
    assert released == ["read", "closed"]
