"""Planted problem documents the problem schema does not allow (MB-STATUS-4).

    busy-problem-names-budget           the 503 for a batch beyond the budget of batches in
                                        flight names the budget in `limit` and `value`, which
                                        the problem schema allows only beside 413 and 431
    method-refusal-problem-without-type the 405 of the batch endpoint for a method it does not
                                        allow carries no `type` member, which the schema
                                        requires

Spec 5.3: "The problem schema ([`spec/schemas/problem.schema.json`]) therefore requires `type`,
`title` and `status` only", and its `limit` is "For a limit error (413 or 431)". The suite
validates every problem document answering a batch request in one place, whichever check
received it; each plant's catcher is a check that meets that refusal.
"""

from __future__ import annotations

from typing import Any

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import edit_problem, is_batch
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: The budget the edited 503 names: the reference server's default is not published.
BUDGET = 16


def _name_budget(doc: dict[str, Any]) -> None:
    doc["limit"] = "max_batches_in_flight"
    doc["value"] = BUDGET


def _busy_names_budget(req: RelayRequest, resp: RelayResponse) -> None:
    if is_batch(req) and resp.status == 503 and resp.get("Retry-After") is not None:
        edit_problem(resp, _name_budget)


def _method_refusal_without_type(req: RelayRequest, resp: RelayResponse) -> None:
    if resp.status == 405 and req.method != "POST":
        edit_problem(resp, lambda doc: doc.pop("type", None))


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "busy-problem-names-budget",
        "MB-STATUS-4 the busy 503's problem document names the budget in limit and value",
        ("budget-refusal-retry-after",),
        on_response=_busy_names_budget,
    ),
    Mutation(
        "method-refusal-problem-without-type",
        "MB-STATUS-4 the batch endpoint's 405 problem document has no type member",
        ("method-refusal-names-requirement",),
        on_response=_method_refusal_without_type,
    ),
)
