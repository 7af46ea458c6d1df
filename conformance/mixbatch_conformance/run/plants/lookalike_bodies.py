"""A planted reader that takes the end of a large batch's content for the next request's head
(MB-PART-8):

    content-end-read-as-next-head   a reader ahead of the HTTP parser, which writes a tab after
                                    a Content-Length value as a space, counts the content of a
                                    batch over 64 KiB short by a head's length, so it rewrites
                                    the last `MISREAD` octets of the content as field lines:
                                    a tab after `Content-Length:` there becomes a space inside
                                    the part body

The relay edits the content before the reference server reads it; a request alone is left as
it is, so the part, not the echo's description, carries the change.
"""

from __future__ import annotations

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import is_batch
from mixbatch_conformance.transport.relay import RelayRequest

__all__ = ["PLANTS"]

#: Content past this many octets spans more than one read of the planted reader.
ONE_READ = 64 * 1024
#: The octets at the content's end the planted reader takes for a head.
MISREAD = 190


def _end_misread(req: RelayRequest) -> None:
    if not is_batch(req) or len(req.body) <= ONE_READ:
        return
    cut = len(req.body) - MISREAD
    tail = req.body[cut:].replace(b"Content-Length:\t", b"Content-Length: ")
    req.body = req.body[:cut] + tail


PLANTS: tuple[Mutation, ...] = (
    # MB-PART-8: "A receiver MUST take ... the part body as the sub-request's content".
    Mutation(
        "content-end-read-as-next-head",
        "MB-PART-8 the end of a large batch's content rewritten as field lines",
        ("framing-lookalike-bodies-arrive-whole",),
        on_request=_end_misread,
    ),
)
