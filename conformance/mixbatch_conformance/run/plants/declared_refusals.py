"""A planted refusal by declared length that ends the connection unannounced (MB-PIPE-1):

    declared-413-close-unmarked   a batch whose Content-Length declares more than
                                  max_batch_bytes is refused 413 as soon as its head is read,
                                  and the connection ends with no Connection: close on the
                                  answer, so the client is not told that what it pipelined
                                  behind is lost

The relay answers the head itself (`Behaviour.declared_refusal_unmarked`): the reference server
marks the same refusal, and the relay would otherwise wait for the declared content.
"""

from __future__ import annotations

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.transport.relay import Behaviour

__all__ = ["PLANTS"]

#: The reference server's max_batch_bytes, which the planted refusal holds.
REFERENCE_MAX_BATCH_BYTES = 64 * 1024 * 1024

PLANTS: tuple[Mutation, ...] = (
    # Spec 11 (MB-PIPE-1): a server may "close the connection after that answer, marked
    # `Connection: close`".
    Mutation(
        "declared-413-close-unmarked",
        "MB-PIPE-1 a refusal by declared length ending the connection unmarked",
        ("pipelining-behind-declared-length-refusal",),
        behaviour=Behaviour(declared_refusal_unmarked=REFERENCE_MAX_BATCH_BYTES),
    ),
)
