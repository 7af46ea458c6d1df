"""Planted faults in what a connection does after the budget's 503 (spec 9.1, 11).

Spec 11 counts the 503 of MB-LIMIT-6 among the refusals a connection outlives: "a refusal of a
batch (400, 405, 406, 415, 501, and the 503 of MB-LIMIT-6) leaves the connection answering the
requests behind it". Each plant models a server that gets its budget right and its connection
wrong once it has refused: one that sheds the connection with the 503 (`Connection: close`, a
busy server telling the client to come back later), and one that answers before reading the
refused batch and then reads its content as the next request, answered 400. The upstream's
busy refusal (503 with `Retry-After`) is what the plants act on, so they run direct, the relay
passing the held batches on to the upstream side by side.
"""

from __future__ import annotations

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import is_batch, unread_as_next_request
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

_CATCHERS = ("pipelining-behind-budget-refusal",)


def _busy(req: RelayRequest, resp: RelayResponse) -> bool:
    return is_batch(req) and resp.status == 503 and resp.get("Retry-After") is not None


def _close_after_busy(req: RelayRequest, resp: RelayResponse) -> None:
    if _busy(req, resp):
        resp.close = True


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "busy-refusal-closes-connection",
        "MB-PIPE-1 closed after the budget's 503",
        _CATCHERS,
        on_response=_close_after_busy,
    ),
    Mutation(
        "busy-refusal-content-read-as-next-request",
        "MB-PIPE-1 the budget's 503 given unread, its content read as the next request",
        _CATCHERS,
        on_response=unread_as_next_request(_busy),
    ),
)
