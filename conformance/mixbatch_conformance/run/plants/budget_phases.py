"""Planted budgets of batches in flight that hold a batch for only part of its life
(spec 9.1: MB-LIMIT-6).

A batch is in flight from the moment its server begins to receive it until its response is
complete. A server that counts a batch only while it is received and checked, and gives its
place back once its parts start, refuses a batch while many others are being received but lets
any number of running batches in. The relay plants it as a server of its own: it counts the
POSTs it is receiving and refuses one beyond `RECEIVE_BUDGET` with 503 and Retry-After; a
received batch is forwarded and holds nothing, and the reference server's own refusals (its
budget counts running batches) are hidden by sending a refused batch again until it is taken.
"""

from __future__ import annotations

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.transport.relay import Behaviour

__all__ = ["PLANTS"]

#: The batches the planted budget holds while they are received: fewer than the 32 the check
#: holds at once.
RECEIVE_BUDGET = 16

PLANTS: tuple[Mutation, ...] = (
    # MB-LIMIT-6: "SHOULD bound the batches it holds in flight": running batches too.
    Mutation(
        "budget-released-once-received",
        "MB-LIMIT-6 a batch's place given back once it is received",
        ("budget-holds-running-batches",),
        caught_by=("WARN", "FAIL", "FLAKY"),
        behaviour=Behaviour(receive_budget=RECEIVE_BUDGET, queue_when_busy=True),
    ),
)
