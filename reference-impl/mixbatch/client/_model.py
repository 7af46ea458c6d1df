"""What a caller builds and what it gets back: sub-requests, sub-responses, batch results.

A ``Batch`` is an ordered list of ``SubRequest``; sending it yields one ``SubResponse`` per
sub-request, in the same order (MB-RESP-6: correlation is by position, never by Content-Id).
A sub-response that ran has a ``status``; one that never ran has ``outcome == "skipped"`` and no
status (MB-RESP-5); one whose fate the client cannot know (after an abort part) has
``outcome == "unknown"``. The ``Summary`` is counted from the parts themselves, never from a
``Batch-Summary`` trailer (MB-STATUS-10: "the parts decide").

Everything here is plain data: frozen dataclasses that check their arguments when built, so a
malformed sub-request fails where it is written rather than deep inside the sender.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from mixbatch.codec import Fields, is_field_value, is_token

__all__ = [
    "IDEMPOTENT_METHODS",
    "SAFE_METHODS",
    "Batch",
    "BatchResult",
    "EnvelopeInfo",
    "SubRequest",
    "SubResponse",
    "Summary",
    "header_pairs",
    "requests_of",
]

#: RFC 9110 §9.2.1: methods whose semantics are read-only.
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
#: RFC 9110 §9.2.2: methods a client may repeat without changing the intended effect.
IDEMPOTENT_METHODS = SAFE_METHODS | {"PUT", "DELETE"}

HeaderInput = Iterable[tuple[str, str]] | dict[str, str] | None


def header_pairs(headers: HeaderInput) -> tuple[tuple[str, str], ...]:
    if headers is None:
        return ()
    items = headers.items() if isinstance(headers, dict) else headers
    return tuple((str(k), str(v)) for k, v in items)


@dataclass(frozen=True, slots=True)
class SubRequest:
    """One request to put in a batch: method, target (a URI-reference), header fields, content.

    The target is resolved by the server against the batch endpoint's URI (MB-PART-5), so with
    a batch endpoint at ``/batch`` both ``books/1`` and ``/books/1`` name ``/books/1``.
    """

    method: str
    target: str
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""

    def __post_init__(self) -> None:
        # MB-SEC-3: "A sender does not write a part header field whose name is not a token or
        # whose value contains CR, LF or NUL; it fails locally instead."
        if not is_token(self.method):
            raise ValueError(f"SubRequest.method must be a token, got {self.method!r}")
        if not self.target or any(c in self.target for c in "\r\n\x00 <>"):
            raise ValueError(f"SubRequest.target must be a URI-reference, got {self.target!r}")
        for name, value in self.headers:
            if not is_token(name) or not is_field_value(value):
                raise ValueError(f"SubRequest.headers has an invalid field {name!r}: {value!r}")

    @property
    def safe(self) -> bool:
        return self.method.upper() in SAFE_METHODS

    @property
    def idempotent(self) -> bool:
        return self.method.upper() in IDEMPOTENT_METHODS


class Batch:
    """An ordered collection of sub-requests, built with ``add`` or the method shortcuts.

    >>> batch = Batch().get("/books/1").post("/books", json={"title": "T", "author": "A"})
    >>> [r.method for r in batch]
    ['GET', 'POST']
    """

    def __init__(self, requests: Iterable[SubRequest] = ()) -> None:
        self._requests: list[SubRequest] = list(requests)

    def add(
        self,
        method: str,
        target: str,
        *,
        headers: HeaderInput = None,
        body: bytes | str = b"",
        json: Any = None,
    ) -> Batch:
        """Append one sub-request and return the batch, so calls chain."""
        pairs = list(header_pairs(headers))
        if json is not None:
            if body:
                raise ValueError("give either body= or json=, not both")
            body = _json_bytes(json)
            if not any(k.lower() == "content-type" for k, _ in pairs):
                pairs.append(("Content-Type", "application/json"))
        if isinstance(body, str):
            body = body.encode("utf-8")
        self._requests.append(SubRequest(method.upper(), target, tuple(pairs), bytes(body)))
        return self

    def get(self, target: str, *, headers: HeaderInput = None) -> Batch:
        return self.add("GET", target, headers=headers)

    def delete(self, target: str, *, headers: HeaderInput = None) -> Batch:
        return self.add("DELETE", target, headers=headers)

    def post(
        self, target: str, *, headers: HeaderInput = None, body: bytes | str = b"", json: Any = None
    ) -> Batch:
        return self.add("POST", target, headers=headers, body=body, json=json)

    def put(
        self, target: str, *, headers: HeaderInput = None, body: bytes | str = b"", json: Any = None
    ) -> Batch:
        return self.add("PUT", target, headers=headers, body=body, json=json)

    def patch(
        self, target: str, *, headers: HeaderInput = None, body: bytes | str = b"", json: Any = None
    ) -> Batch:
        return self.add("PATCH", target, headers=headers, body=body, json=json)

    def __iter__(self) -> Iterator[SubRequest]:
        return iter(self._requests)

    def __len__(self) -> int:
        return len(self._requests)

    def __getitem__(self, index: int) -> SubRequest:
        return self._requests[index]

    def __repr__(self) -> str:
        return f"Batch({self._requests!r})"


def _json_bytes(document: Any) -> bytes:
    return json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


@dataclass(frozen=True, slots=True)
class SubResponse:
    """The answer to the sub-request at ``index``.

    ``outcome`` is ``None`` when the sub-request ran normally, ``"skipped"`` when it never ran,
    ``"rolled-back"`` when it ran and was undone (it keeps its real status), and ``"unknown"``
    when the server stopped before answering it (after an abort part).
    """

    index: int
    status: int | None
    headers: Fields = field(default_factory=Fields)
    body: bytes = b""
    outcome: str | None = None
    content_id: str | None = None
    #: How many times this sub-request was sent; more than 1 after a retry.
    attempts: int = 1

    @property
    def ok(self) -> bool:
        """True when the sub-request ran and its status is below 400."""
        return self.outcome is None and self.status is not None and self.status < 400

    def json(self) -> Any:
        return json.loads(self.body)

    def text(self) -> str:
        return self.body.decode("utf-8")


@dataclass(frozen=True, slots=True)
class Summary:
    """Counts of sub-responses by kind, computed from the parts."""

    ok: int = 0
    failed: int = 0
    skipped: int = 0
    rolled_back: int = 0
    unknown: int = 0

    @classmethod
    def of(cls, responses: Iterable[SubResponse]) -> Summary:
        counts = {"ok": 0, "failed": 0, "skipped": 0, "rolled_back": 0, "unknown": 0}
        for response in responses:
            if response.outcome == "skipped":
                counts["skipped"] += 1
            elif response.outcome == "rolled-back":
                counts["rolled_back"] += 1
            elif response.outcome is not None or response.status is None:
                counts["unknown"] += 1
            elif response.status >= 400:
                counts["failed"] += 1
            else:
                counts["ok"] += 1
        return cls(**counts)


@dataclass(frozen=True, slots=True)
class EnvelopeInfo:
    """One HTTP exchange made to deliver the batch: a batch POST, or a standalone request.

    ``parts`` are the indexes (into the caller's batch) this exchange carried.
    """

    mode: str  # "batch", "sequential" or "pipelined"
    status: int
    headers: Fields
    parts: tuple[int, ...]
    #: The abort part's problem document when the server stopped mid-response (MB-STATUS-6).
    aborted: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class BatchResult:
    """Every sub-response in request order, and how the batch travelled."""

    responses: tuple[SubResponse, ...]
    envelopes: tuple[EnvelopeInfo, ...]

    @property
    def status(self) -> int | None:
        """The top-level status of the batch response: that of the first batch envelope that
        carried parts.

        ``None`` when no batch envelope carried parts (the server does not batch and the client
        fell back to standalone requests; the refused batch is still listed in ``envelopes``).
        """
        for envelope in self.envelopes:
            if envelope.mode == "batch" and envelope.parts:
                return envelope.status
        return None

    @property
    def mode(self) -> str:
        """``batch`` when every part travelled in a batch, else the fallback mode used."""
        modes = {e.mode for e in self.envelopes if e.parts}
        if modes <= {"batch"}:
            return "batch"
        return "pipelined" if "pipelined" in modes else "sequential"

    @property
    def summary(self) -> Summary:
        return Summary.of(self.responses)

    def __iter__(self) -> Iterator[SubResponse]:
        return iter(self.responses)

    def __len__(self) -> int:
        return len(self.responses)

    def __getitem__(self, index: int) -> SubResponse:
        return self.responses[index]


def requests_of(batch: Batch | Sequence[SubRequest]) -> tuple[SubRequest, ...]:
    """The sub-requests of ``batch`` as a tuple, checking that there is at least one."""
    requests = tuple(batch)
    if not requests:
        # MB-WIRE-18: "A batch contains at least one part".
        raise ValueError("a batch needs at least one sub-request (MB-WIRE-18)")
    for request in requests:
        if not isinstance(request, SubRequest):
            raise TypeError(f"a batch holds SubRequest objects, got {request!r}")
    return requests
