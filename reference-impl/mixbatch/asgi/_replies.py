"""Whole responses the middleware answers itself: problem documents and capabilities; the
Accept check is the shared one (``mixbatch._http.negotiation.accepts_multipart``).

MB-STATUS-4: every 4xx or 5xx answer to a batch request is ``application/problem+json``
(RFC 9457) naming the broken requirement, with ``part_index`` and ``byte_offset`` when known;
codec errors carry all of that already (``MixbatchError.to_problem``). MB-LIMIT-2: ``OPTIONS``
returns the capabilities document (spec/schemas/capabilities.schema.json) with ``Accept-Post``
and ``Allow``; its limits are the very ``Limits`` object the parser enforces (MB-LIMIT-1).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mixbatch._constants import CAPABILITIES_MEDIA_TYPE, PROBLEM_MEDIA_TYPE, SPEC_VERSION
from mixbatch._http.negotiation import accepts_multipart
from mixbatch._http.problems import problem_body as problem_bytes
from mixbatch._http.problems import problem_document
from mixbatch.codec import Limits, MixbatchError

from ._types import Send

__all__ = [
    "ALLOW",
    "CAPABILITIES_MEDIA_TYPE",
    "PROBLEM_MEDIA_TYPE",
    "SPEC_VERSION",
    "accepts_multipart",
    "capabilities",
    "problem_bytes",
    "problem_document",
    "send_problem",
    "send_whole",
]

#: The methods of the batch endpoint (MB-METHOD-2: others get 405 with this Allow).
ALLOW = "OPTIONS, POST"


def capabilities(limits: Limits, endpoint: str, profiles: Sequence[str]) -> dict[str, Any]:
    """The capabilities document of a batch endpoint at ``endpoint``."""
    document: dict[str, Any] = {
        "spec_version": SPEC_VERSION,
        "endpoint": endpoint,
        "limits": limits.as_document(),
        "profiles": list(profiles),
        "representations": ["multipart/mixed"],
    }
    if "error-policy" in profiles:
        document["preferences"] = ["batch-on-error=continue", "batch-on-error=stop"]
    return document


async def send_whole(
    send: Send, status: int, headers: Sequence[tuple[str, str]], body: bytes
) -> None:
    """Send a complete response with Content-Length."""
    raw = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers]
    raw.append((b"content-length", str(len(body)).encode("ascii")))
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body, "more_body": False})


async def send_problem(
    send: Send,
    problem: dict[str, Any] | MixbatchError,
    headers: Sequence[tuple[str, str]] = (),
) -> None:
    """Send an RFC 9457 problem response; its status is the document's ``status``."""
    document = problem.to_problem() if isinstance(problem, MixbatchError) else problem
    await send_whole(
        send,
        int(document["status"]),
        [("Content-Type", PROBLEM_MEDIA_TYPE), *headers],
        problem_bytes(document),
    )
