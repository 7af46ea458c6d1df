"""The content codings a batch may arrive in: identity only, anything else refused with 415.

MB-INTER-6: "A server that receives a batch request with a content coding it does not support
MUST answer 415 with an `Accept-Encoding` field naming the codings it does decode (RFC 9110
§15.5.16), before any part runs." `Content-Encoding` is a list (RFC 9110 §8.4): every member of
every field line is a coding applied, so ``identity, gzip`` and a second line of ``gzip`` are
both gzip; empty members are ignored (§5.6.1). Spec 5.3 names the requirement the refusal's
problem document carries: "A 415 for an unsupported content coding ... names MB-WIRE-2".
The reference server and the batching proxy take this decision from this one place, so the
same request gets the same verdict from either.
"""

from __future__ import annotations

from collections.abc import Iterable

from .messages import Response
from .problems import problem

__all__ = ["SUPPORTED_CODINGS", "refuse_content_coding", "unsupported_codings"]

#: Content codings a batch may carry: none (RFC 9110 §8.4.1 "identity" is no coding at all).
SUPPORTED_CODINGS = ("identity",)


def unsupported_codings(lines: Iterable[str]) -> list[str]:
    """The members of the ``Content-Encoding`` field lines that are not supported, in order."""
    members = (m.strip(" \t").lower() for line in lines for m in line.split(","))
    return [m for m in members if m and m not in SUPPORTED_CODINGS]


def refuse_content_coding(lines: Iterable[str]) -> Response | None:
    """The 415 refusal for a batch whose ``Content-Encoding`` field lines are ``lines``, or None
    to go on."""
    unsupported = unsupported_codings(lines)
    if not unsupported:
        return None
    # MB-INTER-6: 415 with Accept-Encoding (RFC 9110 §15.5.16), before any part runs.
    return problem(
        415,
        "unsupported-content-coding",
        f"Content-Encoding {', '.join(unsupported)!r} is not supported for batches",
        requirement="MB-WIRE-2",
        headers=[("Accept-Encoding", ", ".join(SUPPORTED_CODINGS))],
    )
