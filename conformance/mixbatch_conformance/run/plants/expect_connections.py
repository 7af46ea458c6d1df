"""Planted violations of MB-PIPE-1 behind a request that carries `Expect: 100-continue`.

Spec 11 lets a server end the connection after a refusal it gives such a request before a 100
(Continue), marked `Connection: close`, and keeps every other answer to it (a batch that ran, a
refusal found in the content once read) answering the requests behind it. The plants model a
server that ends the connection after the refusal without saying so, and one that ends it after
any answer to a request that carried the field, as a server does that never reuses a connection
on which it met an expectation. The relay reads every request whole before it forwards it; the
plants decide only what happens to the connection after the answer.
"""

from __future__ import annotations

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import is_batch
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

CATCHER = "pipelining-behind-expect-continue"


def _expecting(req: RelayRequest) -> bool:
    return (req.get("Expect") or "").strip().lower() == "100-continue"


def _refusal_closes_unmarked(req: RelayRequest, resp: RelayResponse) -> None:
    if _expecting(req) and resp.status == 415:
        resp.close_unmarked = True


def _every_answer_closes(req: RelayRequest, resp: RelayResponse) -> None:
    if _expecting(req) and is_batch(req):
        resp.close = True


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "expect-refusal-closes-unmarked",
        "MB-PIPE-1 the connection ended after a refusal of an Expect request, unmarked",
        (CATCHER,),
        on_response=_refusal_closes_unmarked,
    ),
    Mutation(
        "expect-batch-closes-connection",
        "MB-PIPE-1 the connection ended after a batch that carried Expect and ran",
        (CATCHER,),
        on_response=_every_answer_closes,
    ),
)
