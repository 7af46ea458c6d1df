"""Errors the client raises, each carrying what the caller needs to decide what to do next.

``BatchRejected``: the server answered the batch request itself with an error status (400, 406,
413, 501 ...) before any part ran (MB-STATUS-2/3); ``problem`` holds its RFC 9457 document.
``TruncatedResponse``: the response content ended without the close delimiter (MB-WIRE-14). The
parts that arrived whole are real answers and are kept in ``responses``; every later part's
outcome is unknown, so it is listed in ``missing`` and never retried blindly.
``BatchProtocolError``: the response broke the spec in another way (bad framing, a part count
that does not match). ``TransportError``: the connection failed before a response began.
"""

from __future__ import annotations

from typing import Any

from ._model import SubResponse

__all__ = [
    "BatchClientError",
    "BatchProtocolError",
    "BatchRejected",
    "ConnectionLost",
    "TransportError",
    "TruncatedResponse",
]


class BatchClientError(Exception):
    """Base class of every error the batch client raises.

    ``responses`` holds every sub-response that arrived before the error, in request order.
    """

    def __init__(self, message: str, *, responses: tuple[SubResponse, ...] = ()) -> None:
        super().__init__(message)
        self.responses = responses


class TransportError(BatchClientError):
    """The connection could not be made or failed outside a response body."""


class ConnectionLost(TransportError):
    """The peer closed the connection, or it failed, in the middle of a response."""


class BatchRejected(BatchClientError):
    """The batch request was answered with an error status; no part of it ran."""

    def __init__(
        self,
        status: int,
        problem: dict[str, Any] | None,
        *,
        responses: tuple[SubResponse, ...] = (),
    ) -> None:
        detail = ""
        if problem:
            requirement = problem.get("requirement")
            detail = f": {problem.get('detail') or problem.get('title') or ''}"
            if requirement:
                detail += f" [{requirement}]"
        super().__init__(
            f"the batch was rejected with status {status}{detail}", responses=responses
        )
        self.status = status
        self.problem = problem


class BatchProtocolError(BatchClientError):
    """The batch response does not follow the spec (framing, part count, media type)."""

    def __init__(
        self,
        message: str,
        *,
        requirement: str | None = None,
        responses: tuple[SubResponse, ...] = (),
    ) -> None:
        super().__init__(
            f"{message} [{requirement}]" if requirement else message, responses=responses
        )
        self.requirement = requirement


class TruncatedResponse(BatchProtocolError):
    """MB-WIRE-14: the batch response ended before its close delimiter.

    Not to be confused with the codec's ``IncompleteBatch``, the parser event this is raised
    from: that one reports octets, this one reports which sub-requests have no answer.

    ``responses`` are the sub-responses that arrived whole (followed by a delimiter), in order;
    ``missing`` are the indexes of the sub-requests with no answer, whose outcome is unknown.
    """

    def __init__(self, responses: tuple[SubResponse, ...], missing: tuple[int, ...]) -> None:
        arrived = ", ".join(str(r.index) for r in responses) or "none"
        lost = ", ".join(str(i) for i in missing)
        super().__init__(
            f"the batch response ended without its close delimiter: parts {arrived} arrived "
            f"whole, the outcome of parts {lost} is unknown",
            requirement="MB-WIRE-14",
            responses=responses,
        )
        self.missing = missing
