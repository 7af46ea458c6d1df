"""Planted refusals by declared length: one that ends the connection unannounced (MB-PIPE-1),
one that answers a size over the limit under Expect: 100-continue 417 (MB-STATUS-3):

    declared-413-close-unmarked   a batch whose Content-Length declares more than
                                  max_batch_bytes is refused 413 as soon as its head is read,
                                  and the connection ends with no Connection: close on the
                                  answer, so the client is not told that what it pipelined
                                  behind is lost
    expect-over-limit-417         a batch carrying Expect: 100-continue whose Content-Length
                                  declares more than max_batch_bytes is answered 417
                                  (Expectation Failed), where MB-STATUS-3 names 413

The relay answers the head itself (`Behaviour.declared_refusal_unmarked`,
`Behaviour.expectation_refused_over`): the reference server marks the same refusal and answers
it 413, and the relay would otherwise wait for the declared content.
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
    # MB-STATUS-3: a batch over max_batch_bytes is refused "413 (Content Too Large)".
    Mutation(
        "expect-over-limit-417",
        "MB-STATUS-3 a batch over max_batch_bytes under Expect: 100-continue answered 417",
        ("limit-batch-bytes-declared-under-expect-continue",),
        behaviour=Behaviour(expectation_refused_over=REFERENCE_MAX_BATCH_BYTES),
    ),
)
