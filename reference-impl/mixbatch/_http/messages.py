"""The server's internal request/response model, shared by standalone requests and sub-requests.

Thesis ch. 5.2 chose "recursive" requests because a separate code path per operation for the
batch interface invites "incompatibilities between the two". Here both paths meet in one model:
the connection turns an h11 request into a ``Request``, the batch endpoint turns a request part
into the same ``Request``, and the router answers both with a ``Response``. Handlers see only
end-to-end header fields, so nothing framing- or connection-specific can make a sub-request
behave differently from the same request sent alone.

A request body is a ``RequestBody``: read whole with a bound, or streamed. A response body is
``bytes`` or an async iterator of ``bytes`` (written as each chunk is ready); a streaming body
may append trailer fields to ``Response.trailers`` before it finishes.
"""

from __future__ import annotations

import abc
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import IO

from mixbatch.codec import HOP_BY_HOP_FIELDS, Fields, end_to_end

__all__ = [
    "FRAMING_AND_HOP_FIELDS",
    "BodyReadError",
    "BodyTooLarge",
    "BytesBody",
    "Handler",
    "Request",
    "RequestBody",
    "Response",
    "ResponseCut",
    "SpooledBody",
    "end_to_end",
]


#: The server's name for the codec's hop-by-hop and framing fields (MB-RESP-4).
FRAMING_AND_HOP_FIELDS = HOP_BY_HOP_FIELDS


class BodyTooLarge(Exception):
    """A request body exceeded the bound its reader set (mapped to 413)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"request content exceeds {limit} octets")
        self.limit = limit


class ResponseCut(Exception):
    """A streaming response body's source failed part-way (an origin that closed or stalled):
    a peer's fault, not this host's. The host closes the connection, which cuts the response
    short where the client can see it, and logs one warning line rather than a traceback."""


class BodyReadError(Exception):
    """The request body could not be read: malformed framing (400) or too slow (408)."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


class RequestBody(abc.ABC):
    """The content of a request, read at most once."""

    #: The declared length when known up front (Content-Length), else ``None``.
    length: int | None = None

    @abc.abstractmethod
    def stream(self) -> AsyncIterator[bytes | bytearray | memoryview]:
        """The content chunk by chunk."""

    async def read(self, limit: int) -> bytes:
        """The whole content; raises ``BodyTooLarge`` past ``limit`` octets."""
        if self.length is not None and self.length > limit:
            raise BodyTooLarge(limit)
        chunks: list[bytes | bytearray | memoryview] = []
        size = 0
        async for chunk in self.stream():
            size += len(chunk)
            if size > limit:
                raise BodyTooLarge(limit)
            chunks.append(chunk)
        return b"".join(chunks)


class BytesBody(RequestBody):
    """Content already in memory."""

    def __init__(self, data: bytes = b"") -> None:
        self._data = data
        self.length = len(data)

    async def stream(self) -> AsyncIterator[bytes]:
        if self._data:
            yield self._data


class SpooledBody(RequestBody):
    """A slice of a spool file holding a batch's part bodies (see ``_spool``)."""

    #: Read the spool in slices of this size so a large part never sits in memory whole.
    CHUNK = 64 * 1024

    def __init__(self, spool: IO[bytes], start: int, length: int) -> None:
        self._spool = spool
        self._start = start
        self.length = length

    async def stream(self) -> AsyncIterator[bytes]:
        position = self._start
        remaining = self.length or 0
        while remaining:
            self._spool.seek(position)
            chunk = self._spool.read(min(self.CHUNK, remaining))
            if not chunk:
                return
            position += len(chunk)
            remaining -= len(chunk)
            yield chunk


@dataclass(slots=True)
class Request:
    """One request as handlers see it: end-to-end fields only, target in origin-form.

    Not frozen, though nothing changes one after it is built: a batch builds one per part, and
    a frozen dataclass's ``__init__`` (``object.__setattr__`` per field) costs several times as
    much as the whole of routing one.
    """

    method: str
    target: str
    headers: Fields
    body: RequestBody = field(default_factory=BytesBody)
    #: The target URI's scheme and authority (from Host, or the enclosing batch's).
    scheme: str = "http"
    authority: str = ""
    #: The client sent ``TE: trailers`` (a connection fact; always False for sub-requests).
    accepts_trailers: bool = False

    @property
    def path(self) -> str:
        return self.target.partition("?")[0]

    @property
    def query(self) -> str:
        return self.target.partition("?")[2]


@dataclass(slots=True)
class Response:
    """One response: status, end-to-end fields and content (bytes, or chunks as they come)."""

    status: int
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes | AsyncIterator[bytes] = b""
    #: Trailer fields a streaming body appends before it ends (sent only when chunked).
    trailers: list[tuple[str, str]] = field(default_factory=list)

    def header(self, name: str) -> str | None:
        lname = name.lower()
        for key, value in self.headers:
            if key.lower() == lname:
                return value
        return None


Handler = Callable[[Request, Mapping[str, str]], Awaitable[Response] | Response]
"""A resource method: the request and the path parameters its route captured. A handler that
never waits may return its response directly; it then runs in its caller's context, so it must
not set a context variable."""
