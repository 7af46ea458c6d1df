"""Planted violations of MB-PIPE-1 after a refusal given from the header section alone.

Spec 11: a 405, 406, 415 or 501 "decided from the header section alone" leaves the server to
read and discard the content, "for content of up to 64 KiB (65,536 octets) at least"; beyond
that it "may end the connection as the 413 above does, the answer marked `Connection:
close`". The plants model a server that discards less: one that closes the connection, marked,
after such a refusal of 65,536 octets of content, and one that closes it after such a refusal
of longer content without saying so. The relay reads every request whole before it forwards
it, so the upstream's refusal is the one the server behind it gives; the plant decides only
what happens to the connection after it.

Two more model a server that discards content by its declared length only: one that closes the
connection, marked, after such a refusal of content framed by the chunked transfer coding,
however short, since chunked content declares no length to skip by; and one that does so only
when the chunked content ends in a trailer section, its discarding reader stopping at the last
chunk.
"""

from __future__ import annotations

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: The statuses spec 11 names as decided from the header section alone.
EARLY_REFUSALS = frozenset({405, 406, 415, 501})
#: The content length spec 11 has a server discard behind such a refusal, at least.
DISCARDED_OCTETS = 65_536


def _close_at_discard_length(req: RelayRequest, resp: RelayResponse) -> None:
    if resp.status in EARLY_REFUSALS and len(req.body) >= DISCARDED_OCTETS:
        resp.close = True


def _close_unmarked_beyond(req: RelayRequest, resp: RelayResponse) -> None:
    if resp.status in EARLY_REFUSALS and len(req.body) > DISCARDED_OCTETS:
        resp.close_unmarked = True


def _close_chunked(req: RelayRequest, resp: RelayResponse) -> None:
    if resp.status in EARLY_REFUSALS and req.chunks:
        resp.close = True


def _close_after_trailer(req: RelayRequest, resp: RelayResponse) -> None:
    if resp.status in EARLY_REFUSALS and req.chunks and req.trailers:
        resp.close = True


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "early-refusal-closes-at-64-kib",
        "MB-PIPE-1 a 405, 406, 415 or 501 of 65,536 octets of content closes the connection, "
        "marked, the request behind it unanswered",
        ("pipelining-behind-early-refusals-of-long-content",),
        on_response=_close_at_discard_length,
    ),
    Mutation(
        "early-refusal-closes-unmarked-beyond-64-kib",
        "MB-PIPE-1 a 405, 406, 415 or 501 of content over 64 KiB closes the connection "
        "without Connection: close",
        ("pipelining-behind-early-refusals-of-long-content",),
        on_response=_close_unmarked_beyond,
    ),
    Mutation(
        "early-refusal-of-chunked-content-closes",
        "MB-PIPE-1 a 405, 406, 415 or 501 of small chunked content closes the connection, "
        "marked, the request behind it unanswered",
        ("pipelining-behind-early-refusals-of-chunked-content",),
        on_response=_close_chunked,
    ),
    Mutation(
        "early-refusal-after-trailer-section-closes",
        "MB-PIPE-1 a 405, 406, 415 or 501 of small chunked content with a trailer section "
        "closes the connection, marked, the request behind it unanswered",
        ("pipelining-behind-early-refusals-of-chunked-content",),
        on_response=_close_after_trailer,
    ),
)
