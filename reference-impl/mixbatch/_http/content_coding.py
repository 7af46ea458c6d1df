"""The content codings a batch may arrive in: identity only, anything else refused with 415.

MB-INTER-4 with spec §10: a batch request with a content coding the server does not support is
answered 415 with an ``Accept-Encoding`` field naming what it does accept (RFC 9110 §15.5.16).
The reference server and the batching proxy take this decision from this one place, so the
same request gets the same verdict from either.
"""

from __future__ import annotations

from .messages import Response
from .problems import problem

__all__ = ["SUPPORTED_CODINGS", "refuse_content_coding"]

#: Content codings a batch may carry: none (RFC 9110 §8.4.1 "identity" is no coding at all).
SUPPORTED_CODINGS = ("identity",)


def refuse_content_coding(coding: str | None) -> Response | None:
    """The 415 refusal for a batch whose Content-Encoding is ``coding``, or None to go on."""
    if coding is None or coding.strip().lower() in SUPPORTED_CODINGS:
        return None
    # Spec §10 (with MB-INTER-4): a batch with a content coding the server does not support is
    # answered 415 with Accept-Encoding (RFC 9110 §15.5.16).
    return problem(
        415,
        "unsupported-content-coding",
        f"Content-Encoding {coding!r} is not supported for batches",
        requirement="MB-INTER-4",
        headers=[("Accept-Encoding", ", ".join(SUPPORTED_CODINGS))],
    )
