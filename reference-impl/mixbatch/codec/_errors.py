"""Errors of the mixbatch codec, typed by blame.

``RemoteProtocolError`` means the peer sent bytes the spec does not allow: the receiver answers
with the error's ``status_hint`` (400, 413 or 431) and nothing in the batch runs.
``LocalProtocolError`` means our own caller asked the codec to write something the spec does not
allow, such as a body containing the delimiter: that is a bug on this side, never the peer's.

Every error carries the requirement ID it enforces, the 0-based part index and the byte offset
into the multipart content where known, and renders itself as an RFC 9457 problem document.
A parser that raised stays in its error state: later calls raise the same error again.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "PROBLEM_TYPE_BASE",
    "IncompleteBatch",
    "LimitExceeded",
    "LocalProtocolError",
    "MixbatchError",
    "RemoteProtocolError",
]

#: RFC 9457 ``type`` URIs of mixbatch problems are this base plus a slug.
PROBLEM_TYPE_BASE = "https://mixbatch.dev/problems/"


class MixbatchError(Exception):
    """A violation of the mixbatch spec, with the requirement it breaks."""

    blame = "unknown"

    def __init__(
        self,
        detail: str,
        *,
        requirement: str,
        status_hint: int = 400,
        slug: str = "malformed-batch",
        title: str = "Malformed batch",
        part_index: int | None = None,
        offset: int | None = None,
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        self.requirement = requirement
        self.status_hint = status_hint
        self.slug = slug
        self.title = title
        self.part_index = part_index
        self.offset = offset

    def __str__(self) -> str:
        where = []
        if self.part_index is not None:
            where.append(f"part {self.part_index}")
        if self.offset is not None:
            where.append(f"byte {self.offset}")
        at = f" at {', '.join(where)}" if where else ""
        return f"[{self.requirement}] {self.detail}{at}"

    def to_problem(self) -> dict[str, Any]:
        """The RFC 9457 problem document describing this error."""
        problem: dict[str, Any] = {
            "type": PROBLEM_TYPE_BASE + self.slug,
            "title": self.title,
            "status": self.status_hint,
            "detail": self.detail,
            "requirement": self.requirement,
        }
        if self.part_index is not None:
            problem["part_index"] = self.part_index
        if self.offset is not None:
            problem["byte_offset"] = self.offset
        return problem


class RemoteProtocolError(MixbatchError):
    """The peer sent a batch the spec does not allow."""

    blame = "peer"


class LocalProtocolError(MixbatchError):
    """Our caller asked the codec to write something the spec does not allow."""

    blame = "local"


class LimitExceeded(RemoteProtocolError):
    """The peer's batch is over one of the receiver's published limits (413, or 431)."""

    def __init__(
        self,
        detail: str,
        *,
        limit: str,
        value: int,
        status_hint: int = 413,
        part_index: int | None = None,
        offset: int | None = None,
        requirement: str = "MB-STATUS-3",
        title: str = "Batch over a limit",
    ) -> None:
        # MB-STATUS-3: "A batch over a limit is answered 413 (431 for a part header section)";
        # a limit with a requirement of its own (MB-LIMIT-5) cites that one instead.
        super().__init__(
            detail,
            requirement=requirement,
            status_hint=status_hint,
            slug="limit-exceeded",
            title=title,
            part_index=part_index,
            offset=offset,
        )
        self.limit = limit
        self.value = value

    def to_problem(self) -> dict[str, Any]:
        problem = super().to_problem()
        problem["limit"] = self.limit
        problem["value"] = self.value
        return problem


class IncompleteBatch(RemoteProtocolError):
    """The content ended before the close delimiter (MB-WIRE-13, MB-WIRE-14).

    ``parts_complete`` counts the parts that arrived whole; for a response those parts are valid
    and the caller keeps them, while the outcome of every later part is unknown.
    """

    def __init__(self, detail: str, *, requirement: str, parts_complete: int, offset: int) -> None:
        super().__init__(
            detail,
            requirement=requirement,
            slug="incomplete-batch",
            title="Incomplete batch",
            part_index=parts_complete,
            offset=offset,
        )
        self.parts_complete = parts_complete
