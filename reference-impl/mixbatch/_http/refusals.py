"""Refusals a batch endpoint and the batching proxy give alike, before any application logic.

Each returns the problem response for a request it refuses, or None to go on, so the reference
server and the proxy refuse the same octets with the same document.
"""

from __future__ import annotations

from mixbatch.codec import Fields

from .messages import Request, Response
from .problems import problem

__all__ = ["SINGLETON_FIELDS", "refuse_get_with_content", "refuse_repeated_field"]

#: Fields that are not lists and may appear once (RFC 9110 §5.3): a request repeating one is
#: refused rather than answered by whichever line a handler happens to read. Content-Length is
#: checked by h11 (and by the codec in parts, MB-WIRE-20), Host by h11 (and forbidden in parts).
SINGLETON_FIELDS = ("Content-Type",)


def refuse_repeated_field(headers: Fields, *, batch: bool = False) -> Response | None:
    """The 400 for a request that repeats one of ``SINGLETON_FIELDS``, or None to go on.

    The batching proxy asks the same of a batch request, so both refuse the same octets. For a
    request to a batch endpoint (``batch``) the problem names MB-WIRE-4, under which spec 3.1.1
    refuses a batch with more than one Content-Type line.
    """
    if len(headers) < 2:
        return None  # nothing can repeat: the common case of a part with one field or none
    for name in SINGLETON_FIELDS:
        if len(headers.get_all(name)) > 1:
            return problem(
                400,
                "repeated-field",
                f"the request carries {name} more than once, and it is not a list field "
                "(RFC 9110 §5.3), so which one applies is ambiguous",
                # Spec 3.1.1: such a batch "names no boundary a server can trust either ... and
                # is refused before any part runs: 400 under this requirement [MB-WIRE-4]".
                requirement="MB-WIRE-4" if batch and name == "Content-Type" else None,
                field=name,
            )
    return None


def refuse_get_with_content(request: Request) -> Response | None:
    """The 400 for a GET with content to a batch endpoint, or None; the batching proxy asks the
    same of its own batch endpoint."""
    if request.method == "GET" and (request.body.length or 0) > 0:
        # MB-METHOD-3: "A server MUST answer 400 to a GET request ... to a batch endpoint,
        # that has content."
        return problem(
            400,
            "get-with-content",
            "a GET to the batch endpoint carries content; send batches with POST",
            requirement="MB-METHOD-3",
        )
    return None
