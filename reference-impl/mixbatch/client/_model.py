"""What a caller builds and what it gets back: sub-requests, sub-responses, batch results.

A ``Batch`` is an ordered list of ``SubRequest``; sending it yields one ``SubResponse`` per
sub-request, in the same order (MB-RESP-6: correlation is by position, never by Content-Id).
A sub-response that ran has a ``status``; one that never ran has ``outcome == "skipped"`` and no
status (MB-RESP-5); one whose fate the client cannot know (after an abort part) has
``outcome == "unknown"``. The ``Summary`` is counted from the parts themselves, never from a
``Batch-Summary`` trailer (MB-STATUS-10: "the parts decide").

A later sub-request may name a result of an earlier one (spec §7.7): ``batch.ref(0)`` is
``$(0)``, the ``Location`` of part 0's response, usable in a target; ``batch.ref(0, "ETag")`` is
``$(0:ETag)``, usable in a header value. A batch holding references is sent with
``Batch-Mode: references``, and every reference is checked to look back when its part is added.
The ``BatchResult`` of an atomic batch says whether it committed (``outcome``).

Everything here is plain data: frozen dataclasses that check their arguments when built, so a
malformed sub-request fails where it is written rather than deep inside the sender.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from mixbatch.codec import Fields, is_field_value, is_token
from mixbatch.references import malformed_in, references_in

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
    >>> batch = Batch().post("/orders", json={"to": "Ada"})
    >>> batch.post(batch.ref(0) + "/lines", json={"sku": 1}).references
    True

    ``references`` is true once ``ref`` was called (or when passed): the batch then goes with
    ``Batch-Mode: references`` and ``$(`` in its targets and header values is a reference
    (write ``$$(`` for a literal ``$(``).
    """

    def __init__(self, requests: Iterable[SubRequest] = (), *, references: bool = False) -> None:
        self._requests: list[SubRequest] = []
        self._references = False
        for request in requests:
            self._append(request)
        if references:
            self._use_references()

    @property
    def references(self) -> bool:
        """True when the batch is sent with ``Batch-Mode: references``."""
        return self._references

    def ref(self, index: int, field: str | None = None) -> str:
        """``$(index)`` (part ``index``'s Location, for a target) or ``$(index:field)`` (that
        response field's value, for a header value) for a sub-request added after this call.

        ``index`` must name a sub-request already in the batch: references look back only
        (MB-PROC-19).
        """
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(self):
            raise ValueError(
                f"Batch.ref index must name an earlier sub-request (0 to {len(self) - 1}), "
                f"got {index!r}"
            )
        if field is not None and not is_token(field):
            raise ValueError(f"Batch.ref field must be a field name, got {field!r}")
        self._use_references()
        return f"$({index})" if field is None else f"$({index}:{field})"

    def _use_references(self) -> None:
        if not self._references:
            self._references = True
            for position, request in enumerate(self._requests):
                _check_references(request, position)

    def _append(self, request: SubRequest) -> None:
        if self._references:
            _check_references(request, len(self._requests))
        self._requests.append(request)

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
        self._append(SubRequest(method.upper(), target, tuple(pairs), bytes(body)))
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


def _check_references(request: SubRequest, position: int) -> None:
    """Raise ``ValueError`` for a reference the server would refuse with 400 (MB-PROC-19)."""
    sources = [("target", request.target), *request.headers]
    for name, value in sources:
        malformed = malformed_in(value)
        if malformed is not None:
            # MB-PROC-19: a `$(` that "neither begins a `reference` nor belongs to a `$$(`".
            raise ValueError(
                f"sub-request {position} ({request.method} {request.target}): {malformed!r} in "
                f"{name} begins no reference $(N) or $(N:field); write a literal $( as $$("
            )
        for written, index, field_name in references_in(value):
            # MB-PROC-19: a reference may not name "that part itself, a later part or a part
            # that does not exist", nor a field from the Content-Id (the target).
            if index >= position:
                raise ValueError(
                    f"sub-request {position} ({request.method} {request.target}): {written} in "
                    f"{name} names sub-request {index}, which does not come before it"
                )
            if name == "target" and field_name is not None:
                raise ValueError(
                    f"sub-request {position} ({request.method} {request.target}): a target may "
                    f"only name a Location, as $({index}); {written} names a field"
                )


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

    @property
    def skipped(self) -> bool:
        """True when it never ran: a stop policy, an atomic batch that failed before it, or a
        reference that named nothing (MB-RESP-5, MB-PROC-20)."""
        return self.outcome == "skipped"

    @property
    def rolled_back(self) -> bool:
        """True when it ran and an atomic batch undid it; ``status`` is its real status."""
        return self.outcome == "rolled-back"

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
    #: The batch was sent with ``Batch-Mode: atomic``.
    atomic: bool = False

    @property
    def outcome(self) -> str | None:
        """How an atomic batch ended; None for one that was not atomic.

        ``"committed"`` when its parts ran and none was undone (MB-PROC-16);
        ``"rolled-back"`` when nothing committed: a part was rolled back or skipped, or failed
        (MB-PROC-8, MB-PROC-14, MB-PROC-21); ``"unknown"`` when the server stopped before
        answering any part.
        """
        if not self.atomic:
            return None
        responses = self.responses
        if any(r.outcome in ("rolled-back", "skipped") for r in responses) or any(
            r.outcome is None and (r.status or 0) >= 400 for r in responses
        ):
            return "rolled-back"
        # §7.5: a server that stops after it committed leaves the rest unanswered, "the parts it
        # does not answer did take effect".
        if any(r.outcome is None for r in responses):
            return "committed"
        return "unknown"

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
