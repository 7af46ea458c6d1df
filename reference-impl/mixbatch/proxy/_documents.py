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
from http import HTTPStatus
from typing import Any

from mixbatch.codec import PROBLEM_TYPE_BASE, Limits, MixbatchError
from mixbatch.server import Response

__all__ = [
    "CAPABILITIES_MEDIA_TYPE",
    "PROBLEM_MEDIA_TYPE",
    "PROFILES",
    "SPEC_VERSION",
    "capabilities_response",
    "error_response",
    "problem_body",
    "problem_document",
    "problem_response",
]

PROBLEM_MEDIA_TYPE = "application/problem+json"
CAPABILITIES_MEDIA_TYPE = "application/vnd.mixbatch.capabilities+json"
#: The spec version the proxy implements (spec/requirements.json ``spec_version``).
SPEC_VERSION = "draft-01"
#: What the proxy offers. Not "atomic" (it cannot undo what the origin did: Batch-Mode gets
#: 501), not "xml"/"json" (one representation), not "collection-get" or "conditional" of its
#: own (those are the origin's, passed through).
PROFILES = ("core", "error-policy", "limits")


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return f"Status {status}"


def problem_document(
    status: int,
    slug: str,
    detail: str,
    *,
    title: str | None = None,
    requirement: str | None = None,
    part_index: int | None = None,
    **extensions: Any,
) -> dict[str, Any]:
    document: dict[str, Any] = {
        "type": PROBLEM_TYPE_BASE + slug,
        "title": title or _phrase(status),
        "status": status,
        "detail": detail,
    }
    if requirement is not None:
        document["requirement"] = requirement
    if part_index is not None:
        document["part_index"] = part_index
    document.update(extensions)
    return document


def problem_body(document: dict[str, Any]) -> bytes:
    return json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _document_response(
    document: dict[str, Any], headers: list[tuple[str, str]] | None = None
) -> Response:
    fields = [("Content-Type", PROBLEM_MEDIA_TYPE), *(headers or [])]
    return Response(int(document["status"]), fields, problem_body(document))


def problem_response(
    status: int,
    slug: str,
    detail: str,
    *,
    requirement: str | None = None,
    headers: list[tuple[str, str]] | None = None,
) -> Response:
    return _document_response(
        problem_document(status, slug, detail, requirement=requirement), headers
    )


def error_response(error: MixbatchError, headers: list[tuple[str, str]] | None = None) -> Response:
    """The problem response for a codec error, with the error's status hint."""
    return _document_response(error.to_problem(), headers)


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
