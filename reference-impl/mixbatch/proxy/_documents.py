"""The documents the proxy itself writes: problem details and its capabilities document.

MB-STATUS-4: "A batch error response is application/problem+json (RFC 9457) naming the
requirement ID, and the part index and byte offset where known." The proxy writes the same
shape for its own refusals (415, 406, 501 ...) and, with status 502 or 504, as the body of a
part whose sub-request failed upstream (MB-PROXY-2). Codec errors describe themselves through
``MixbatchError.to_problem``.

The capabilities document (MB-LIMIT-2) publishes the limits the proxy enforces, read from the
same ``Limits`` its parser uses, so the two cannot disagree (MB-LIMIT-1).
"""

from __future__ import annotations

import json

from mixbatch._constants import CAPABILITIES_MEDIA_TYPE, PROBLEM_MEDIA_TYPE, SPEC_VERSION
from mixbatch._constants import PROXY_PROFILES as PROFILES
from mixbatch._http import (
    Response,
    from_body_error,
    from_error,
    problem,
    problem_body,
    problem_document,
)
from mixbatch.codec import Limits, MixbatchError

__all__ = [
    "CAPABILITIES_MEDIA_TYPE",
    "PROBLEM_MEDIA_TYPE",
    "PROFILES",
    "SPEC_VERSION",
    "body_error_response",
    "capabilities_response",
    "error_response",
    "problem_body",
    "problem_document",
    "problem_response",
]

#: What the proxy offers. Not "atomic" (it cannot undo what the origin did: Batch-Mode gets
#: 501), not "xml"/"json" (one representation), not "collection-get" or "conditional" of its
#: own (those are the origin's, passed through).

#: The proxy's refusals are the server's problem responses (same shape, MB-STATUS-4).
problem_response = problem
#: Request content that could not be read (malformed framing, a client gone inside it, too slow,
#: too large) is answered as the server answers it, from the server's own decision.
body_error_response = from_body_error


def error_response(error: MixbatchError, headers: list[tuple[str, str]] | None = None) -> Response:
    """The problem response for a codec error, with the error's status hint."""
    return from_error(error, headers=headers)


def capabilities_response(limits: Limits, endpoint: str) -> Response:
    """200 with the capabilities document, Accept-Post and Allow (MB-LIMIT-2)."""
    document = {
        "spec_version": SPEC_VERSION,
        "endpoint": endpoint,
        "limits": limits.as_document(),
        "profiles": list(PROFILES),
        "representations": ["multipart/mixed"],
        "preferences": ["batch-on-error=continue", "batch-on-error=stop"],
    }
    body = json.dumps(document, separators=(",", ":")).encode("ascii")
    return Response(
        200,
        [
            ("Content-Type", CAPABILITIES_MEDIA_TYPE),
            ("Accept-Post", "multipart/mixed"),
            ("Allow", "OPTIONS, POST"),
        ],
        body,
    )
