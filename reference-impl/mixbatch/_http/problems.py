"""RFC 9457 problem details: every error the server answers is ``application/problem+json``.

MB-STATUS-4: "A batch error response is application/problem+json (RFC 9457) naming the
requirement ID, and the part index and byte offset where known." The same shape serves plain
resource errors (404, 405, 412 ...), which simply carry no requirement. Codec errors already
know how to describe themselves (``MixbatchError.to_problem``); this module turns either form
into a ``Response``.
"""

from __future__ import annotations

import json
from http import HTTPStatus
from typing import Any

from mixbatch._constants import PROBLEM_MEDIA_TYPE
from mixbatch.codec import PROBLEM_TYPE_BASE, MixbatchError

from .messages import BodyReadError, BodyTooLarge, Response

__all__ = [
    "PROBLEM_MEDIA_TYPE",
    "from_body_error",
    "from_document",
    "from_error",
    "problem",
    "problem_body",
    "problem_document",
    "reason",
]


def reason(status: int) -> str:
    """The standard reason phrase of ``status``, or a generic one for unregistered codes."""
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return f"Status {status}"


def problem_body(document: dict[str, Any]) -> bytes:
    """A problem document serialised compactly and deterministically."""
    return json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def problem_document(
    status: int,
    slug: str,
    detail: str,
    *,
    title: str | None = None,
    requirement: str | None = None,
    part_index: int | None = None,
    byte_offset: int | None = None,
    **extensions: Any,
) -> dict[str, Any]:
    """An RFC 9457 problem document of ``status`` with type ``PROBLEM_TYPE_BASE + slug``."""
    document: dict[str, Any] = {
        "type": PROBLEM_TYPE_BASE + slug,
        "title": title or reason(status),
        "status": status,
        "detail": detail,
    }
    if requirement is not None:
        document["requirement"] = requirement
    if part_index is not None:
        document["part_index"] = part_index
    if byte_offset is not None:
        document["byte_offset"] = byte_offset
    document.update(extensions)
    return document


def problem(
    status: int,
    slug: str,
    detail: str,
    *,
    title: str | None = None,
    requirement: str | None = None,
    part_index: int | None = None,
    byte_offset: int | None = None,
    headers: list[tuple[str, str]] | None = None,
    **extensions: Any,
) -> Response:
    """A problem+json ``Response`` carrying ``problem_document(...)``."""
    document = problem_document(
        status,
        slug,
        detail,
        title=title,
        requirement=requirement,
        part_index=part_index,
        byte_offset=byte_offset,
        **extensions,
    )
    return from_document(document, headers=headers)


def from_document(
    document: dict[str, Any], *, headers: list[tuple[str, str]] | None = None
) -> Response:
    """A ``Response`` carrying ``document``; its status is the document's ``status`` member."""
    fields = [("Content-Type", PROBLEM_MEDIA_TYPE), *(headers or [])]
    return Response(int(document["status"]), fields, problem_body(document))


def from_error(error: MixbatchError, *, headers: list[tuple[str, str]] | None = None) -> Response:
    """The problem response for a codec error, with the error's status hint."""
    return from_document(error.to_problem(), headers=headers)


def from_body_error(error: BodyReadError | BodyTooLarge) -> Response:
    """The problem response for request content that could not be read: too large (413),
    malformed framing or a peer that left inside it (400), or content too slow to arrive (408).
    """
    if isinstance(error, BodyTooLarge):
        return problem(413, "content-too-large", str(error), max_bytes=error.limit)
    slug = "request-timeout" if error.status == 408 else "malformed-content"
    return problem(error.status, slug, error.detail)
