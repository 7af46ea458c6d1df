"""One campaign case: the bytes to send, the outcomes the spec allows, and where it says so.

A case is data: a stable ``id``, the raw request (or a builder that reads the peer's published
limits, for cases at and over a limit), the set of statuses RFC 9112 or the mixbatch spec
allows, whether the connection must close, may stay open or must stay open afterwards, the
problem ``type`` slug and ``requirement`` member the spec fixes (when it fixes one), and a
``cite`` naming the requirement ID or RFC section that decides the outcome. The builders here
write requests byte for byte, with no validation, so that a case can hold any defect.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum

__all__ = [
    "BOUNDARY",
    "CLOSED_SILENTLY",
    "Case",
    "Close",
    "batch",
    "part",
    "post",
]

#: The boundary of every hand-written batch.
BOUNDARY = "adv-boundary-0123456789"
#: In ``Case.statuses``: the peer may close the connection without answering at all.
CLOSED_SILENTLY = 0
#: Problem ``type`` URIs are this prefix and a slug (spec §5.3).
PROBLEM_TYPE_BASE = "https://mixbatch.dev/problems/"

Limits = dict[str, int]
Build = Callable[[Limits], bytes]


class Close(Enum):
    """What the connection must do after the answer."""

    MUST = "must close"
    MAY = "may close"
    KEEP = "must stay open"


@dataclass(frozen=True)
class Case:
    id: str
    request: bytes | Build
    statuses: frozenset[int]
    cite: str
    close: Close = Close.MAY
    #: The problem ``type`` slug the spec fixes for a 4xx answer, if it fixes one.
    problem: str | None = None
    #: The problem's ``requirement`` member the spec fixes (MB-STATUS-4), if it fixes one.
    requirement: str | None = None
    #: The problem's ``limit`` member (MB-LIMIT-4), for cases over a limit.
    limit: str | None = None
    #: The method the request used, which decides how its answer is framed (HEAD has none).
    method: str = "POST"
    #: A further predicate on the parsed answer, named in ``_verdicts.PREDICATES``.
    check: str | None = None
    #: Answers the exchange waits for (pipelined requests in ``request``).
    answers: int = 1
    #: Half-close the connection after sending, so the peer sees the end of the input.
    eof: bool = False
    #: Peers the case applies to.
    peers: frozenset[str] = field(default_factory=lambda: frozenset({"server", "proxy"}))

    def build(self, limits: Limits) -> bytes:
        return self.request if isinstance(self.request, bytes) else self.request(limits)


def statuses(*codes: int) -> frozenset[int]:
    return frozenset(codes)


def part(
    method: str = "GET",
    target: str = "/books/1",
    fields: Sequence[tuple[str, str]] = (),
    body: bytes = b"",
    *,
    raw_head: bytes | None = None,
) -> bytes:
    """One request part: its header section (``raw_head`` replaces it whole) and its body."""
    if raw_head is None:
        lines = [f"Http-Method: {method}", f"Content-Id: <{target}>"]
        lines += [f"{name}: {value}" for name, value in fields]
        if body:
            lines.append(f"Content-Length: {len(body)}")
        raw_head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
    return raw_head + body


def batch(*parts: bytes, boundary: str = BOUNDARY) -> bytes:
    """The content of a batch: each part after a delimiter line, then the close delimiter."""
    dash = b"--" + boundary.encode("latin-1")
    out = b"".join(dash + b"\r\n" + p + b"\r\n" for p in parts)
    return out + dash + b"--\r\n"


def post(
    content: bytes,
    *,
    target: str = "/batch",
    fields: Sequence[tuple[str, str]] = (),
    content_type: str | None = f"multipart/mixed; boundary={BOUNDARY}",
    host: str | None = "test",
    length: bool = True,
    method: str = "POST",
) -> bytes:
    """A batch request written byte for byte: request line, Host, Content-Type, fields, length."""
    lines = [f"{method} {target} HTTP/1.1"]
    if host is not None:
        lines.append(f"Host: {host}")
    if content_type is not None:
        lines.append(f"Content-Type: {content_type}")
    lines += [f"{name}: {value}" for name, value in fields]
    if length:
        lines.append(f"Content-Length: {len(content)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + content


#: A batch every peer answers 200: one GET of a seeded book.
NORMAL_CONTENT = batch(part())
NORMAL_REQUEST = post(NORMAL_CONTENT)


def chunked(content: bytes, size: int = 0) -> bytes:
    """``content`` in the chunked transfer coding (one chunk, or chunks of ``size``)."""
    size = size or len(content) or 1
    out = b"".join(
        b"%x\r\n" % len(content[i : i + size]) + content[i : i + size] + b"\r\n"
        for i in range(0, len(content), size)
    )
    return out + b"0\r\n\r\n"
