"""Planted problem documents the problem schema does not allow (MB-STATUS-4).

    busy-problem-names-unknown-limit    the 503 for a batch beyond the budget of batches in
                                        flight names `max_connections` in `limit` and `value`,
                                        a limit the capabilities document has no name for and
                                        the problem schema's `limit` does not admit
    method-refusal-problem-without-type the 405 of the batch endpoint for a method it does not
                                        allow carries no `type` member, which the schema
                                        requires

MB-STATUS-4: "the document MUST be one the problem schema
([`spec/schemas/problem.schema.json`]) admits"; spec 5.3: "The problem schema ... therefore
requires `type`, `title` and `status` only. Its `limit` stands beside a 413, 431 or 503 and
names, besides the limits of MB-LIMIT-4, the budget of MB-LIMIT-6, `max_batches_in_flight`".
The schema's `limit` is an enum of those names. The suite
validates every problem document answering a batch request in one place, whichever check
received it; each plant's catcher is a check that meets that refusal.
"""

from __future__ import annotations

from typing import Any

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import edit_problem, is_batch
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: The value the edited 503 gives beside its limit.
CONNECTIONS = 16


def _name_unknown_limit(doc: dict[str, Any]) -> None:
    doc["limit"] = "max_connections"
    doc["value"] = CONNECTIONS


def _busy_names_unknown_limit(req: RelayRequest, resp: RelayResponse) -> None:
    if is_batch(req) and resp.status == 503 and resp.get("Retry-After") is not None:
        edit_problem(resp, _name_unknown_limit)


def _method_refusal_without_type(req: RelayRequest, resp: RelayResponse) -> None:
    if resp.status == 405 and req.method != "POST":
        edit_problem(resp, lambda doc: doc.pop("type", None))


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "busy-problem-names-unknown-limit",
        "MB-STATUS-4 the busy 503's problem document names max_connections in limit and value",
        ("budget-refusal-retry-after",),
        on_response=_busy_names_unknown_limit,
    ),
    Mutation(
        "method-refusal-problem-without-type",
        "MB-STATUS-4 the batch endpoint's 405 problem document has no type member",
        ("method-refusal-names-requirement",),
        on_response=_method_refusal_without_type,
    ),
)
