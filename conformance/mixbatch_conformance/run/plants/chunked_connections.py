"""Planted violations of MB-PIPE-1 after a batch whose content came chunked.

Spec 11: a refusal of a batch "leaves the connection answering the requests behind it, as a
batch that ran does"; only a 413 or 431 given before the content was read whole may end it.
Chunked content declares no length before it arrives, and a server that reads it (and any
trailer section after its last chunk) with the content only may not trust the connection after
it. The plants model two such servers: one that closes the connection, marked `Connection:
close`, after every batch that ran whose content was chunked, and one that does so after every
answer to a batch whose chunked content ended in a trailer section, refusals included. The
relay reads every request whole before it forwards it, so each answer comes after the whole
content.

    chunked-batch-closes-connection       a chunked batch that ran (200 or 207) answered with
                                          Connection: close, the GET behind it unanswered
    trailer-section-batch-closes-connection
                                          every answer to a batch whose chunked content had a
                                          trailer section closes the connection, marked
"""

from __future__ import annotations

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import is_batch
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]


def _close_after_chunked_run(req: RelayRequest, resp: RelayResponse) -> None:
    if is_batch(req) and req.chunks and resp.status in (200, 207):
        resp.close = True


def _close_after_trailer_section(req: RelayRequest, resp: RelayResponse) -> None:
    if is_batch(req) and req.chunks and req.trailers:
        resp.close = True


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "chunked-batch-closes-connection",
        "MB-PIPE-1 a batch that ran with chunked content closes the connection, marked, the "
        "request behind it unanswered",
        ("pipelining-behind-every-answer",),
        on_response=_close_after_chunked_run,
    ),
    Mutation(
        "trailer-section-batch-closes-connection",
        "MB-PIPE-1 every answer to a batch whose chunked content ended in a trailer section "
        "closes the connection, marked, the request behind it unanswered",
        ("pipelining-behind-every-answer",),
        on_response=_close_after_trailer_section,
    ),
)
