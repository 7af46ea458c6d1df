"""Planted violation of what a batch stopped for its time leaves behind (spec 5.4): nothing of
it may keep the server from answering later requests.

    atomic-batch-stalls-after-budget-abort  once a batch was stopped by its time budget, the
                                            next atomic batch is never answered: the part the
                                            budget cut off never gives back its shared hold on
                                            the store, and the atomic batch waits for the
                                            exclusive one for ever (MB-STATUS-1)

Every check that runs before such a batch passes, and every later atomic batch times out, so a
run ends in timeouts that blame nothing unless a check asks again, after the stopped batch,
what it asked before it.
"""

from __future__ import annotations

import re

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import is_batch
from mixbatch_conformance.transport.relay import Behaviour, RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: An abort part's field line in a multipart answer (spec 5.4).
_ABORTED = re.compile(rb"(?im)^batch-outcome:[ \t]*aborted[ \t]*\r?$")
#: Whether a batch was stopped by its budget and no atomic batch has stalled since.
_HELD: dict[str, bool] = {}


def _note_abort(req: RelayRequest, resp: RelayResponse) -> None:
    if is_batch(req) and _ABORTED.search(resp.body):
        _HELD["store"] = True


def _stalls(req: RelayRequest) -> bool:
    atomic = (req.get("Batch-Mode") or "").strip().lower() == "atomic"
    return is_batch(req) and atomic and _HELD.pop("store", False)


PLANTS: tuple[Mutation, ...] = (
    # MB-STATUS-1: "A well-formed batch that was processed is answered 200 whatever its
    # sub-statuses."
    Mutation(
        "atomic-batch-stalls-after-budget-abort",
        "MB-STATUS-1 an atomic batch after a batch stopped by its budget is never answered",
        ("batch-abort-after-timeout",),
        on_response=_note_abort,
        behaviour=Behaviour(stall=_stalls),
    ),
)
