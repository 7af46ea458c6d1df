"""The client's protocol logic, written once and free of I/O: a generator of operations.

Theory of operation. ``BatchRun.ops()`` is a generator that says what it needs done and is
resumed with the answer, in the style of a sans-IO state machine that drives its own I/O:

    yield Send(requests)    -> None      write these HTTP requests (pipelined if several)
    yield ReceiveHead()     -> Head      the next response's status and fields
    yield ReadBody()        -> bytes     the next piece of its content, b"" at its end
    yield Sleep(seconds)    -> None      wait (Retry-After)
    yield Emit(response)    -> None      hand one finished sub-response to the caller

A transport that fails while reading a body throws ``ConnectionLost`` into the generator, which
then treats the content as ended. ``_sync`` and ``_async`` each interpret these five operations
in a few lines, so splitting, discovery, retries and fallback exist once.

The run, step by step:
1. Discovery (once per client): ``OPTIONS`` on the batch endpoint; a capabilities document
   (MB-LIMIT-2) gives the limits used to split (MB-LIMIT-3).
2. Rounds. Round 0 sends every sub-request; each later round sends only those the retry policy
   deferred (``_retry``). A round's parts are packed into consecutive chunks (``_plan``), each
   sent as one batch, or standalone when it cannot fit any batch.
3. Each arriving part is settled: final, or deferred for the next round. Finals are emitted in
   index order as soon as every earlier index is final, so the caller sees part i while part
   i + 1 is still on its way (the server streams them: MB-PROC-4).
4. Fallback. A batch endpoint answering 404, 405 or 415 does not batch; its parts (which did not
   run) are sent as standalone requests over the same keep-alive connection, pipelined when all
   are safe (RFC 9110 §9.2.1) and no stop policy needs each answer first. Stop and credential
   inheritance are applied by the client, so the result has the same shape and meaning.

An atomic batch, or one holding references (spec §7.5, §7.7), only means something as one
envelope: it is never split, no part of it is retried alone, and it never falls back to
standalone requests; an endpoint that refuses it raises ``BatchRejected``.
"""

from __future__ import annotations

import json
from collections.abc import Generator, Sequence
from dataclasses import dataclass, replace
from dataclasses import fields as dataclass_fields
from typing import Any, cast
from urllib.parse import urlsplit

from mixbatch._constants import CAPABILITIES_MEDIA_TYPE, INHERITED_FIELDS
from mixbatch.codec import (
    BatchEnd,
    BatchParser,
    IncompleteBatch,
    Limits,
    PartData,
    PartEnd,
    RemoteProtocolError,
    ResponsePartStart,
    Role,
    format_batch_content_type,
    parse_batch_content_type,
    resolve_target,
)

from ._decoding import ACCEPT_ENCODING, ContentDecoder
from ._errors import BatchProtocolError, BatchRejected, ConnectionLost, TruncatedResponse
from ._http1 import Head, HttpRequest
from ._model import BatchResult, EnvelopeInfo, SubRequest, SubResponse
from ._plan import Chunk, EncodedPart, encode_parts, join_parts, plan_chunks
from ._retry import RetryPolicy

__all__ = [
    "CAPABILITIES_MEDIA_TYPE",
    "BatchOptions",
    "BatchRun",
    "Emit",
    "Endpoint",
    "EndpointState",
    "Op",
    "ReadBody",
    "ReceiveHead",
    "Send",
    "Sleep",
]

#: Statuses of a batch POST that mean "this endpoint does not take batches" (nothing ran).
FALLBACK_STATUSES = frozenset({404, 405, 415})
_HOP_BY_HOP = ("Connection", "Keep-Alive", "Transfer-Encoding", "Proxy-Connection", "Upgrade")
#: Bounds for parsing a response: the part count is known; octets are the caller's to judge.
_RESPONSE_HEADER_BYTES = 1024 * 1024
#: A field line takes at least four octets ("a:" and CRLF), so this many lines always fit in
#: _RESPONSE_HEADER_BYTES: the byte bound is the one that counts, as for header bytes above.
_RESPONSE_PART_FIELDS = _RESPONSE_HEADER_BYTES // 4
_RESPONSE_PART_BYTES = 1 << 40
#: The published limits that bound a batch's envelope, and so how a batch is split (MB-LIMIT-3).
_SPLIT_LIMITS = tuple(f.name for f in dataclass_fields(Limits))


@dataclass(frozen=True, slots=True)
class Send:
    requests: tuple[HttpRequest, ...]


@dataclass(frozen=True, slots=True)
class ReceiveHead:
    pass


@dataclass(frozen=True, slots=True)
class ReadBody:
    pass


@dataclass(frozen=True, slots=True)
class Sleep:
    seconds: float


@dataclass(frozen=True, slots=True)
class Emit:
    response: SubResponse


Op = Send | ReceiveHead | ReadBody | Sleep | Emit


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where the batch endpoint is: ``scheme://authority`` + ``path``, and how to connect."""

    scheme: str
    authority: str
    path: str
    host: str
    port: int

    @classmethod
    def from_url(cls, url: str) -> Endpoint:
        """The endpoint of a batch URL such as ``http://127.0.0.1:8080/batch``."""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"the batch URL must be http:// or https:// with a host, got {url!r}")
        if parts.fragment or parts.username or parts.password:
            raise ValueError(f"the batch URL must have no fragment or userinfo, got {url!r}")
        default = 443 if parts.scheme == "https" else 80
        port = parts.port or default
        host = parts.hostname
        shown = f"[{host}]" if ":" in host else host
        authority = shown if port == default else f"{shown}:{port}"
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        return cls(parts.scheme, authority, path, host, port)


@dataclass(slots=True)
class EndpointState:
    """What a client has learnt about its endpoint; shared by every batch it sends."""

    discovered: bool = False
    capabilities: dict[str, Any] | None = None
    limits: Limits | None = None
    #: False once the endpoint answered a batch with 404, 405 or 415.
    batching: bool = True


@dataclass(frozen=True, slots=True)
class BatchOptions:
    """Per-batch choices: error policy, atomicity, outer header fields."""

    stop_on_error: bool = False
    atomic: bool = False
    headers: tuple[tuple[str, str], ...] = ()
    discover: bool = True
    pipeline: bool = True
    #: The batch holds references (``Batch-Mode: references``, spec §7.7).
    references: bool = False

    @property
    def whole(self) -> bool:
        """The batch must travel as one envelope: atomic, or holding references."""
        return self.atomic or self.references

    @property
    def modes(self) -> str | None:
        """The Batch-Mode value to send, if any."""
        listed = [m for m, on in (("atomic", self.atomic), ("references", self.references)) if on]
        return ", ".join(listed) or None


class BatchRun:
    """One batch from first byte to last result. ``result`` is set when ``ops()`` finishes."""

    def __init__(
        self,
        endpoint: Endpoint,
        state: EndpointState,
        requests: Sequence[SubRequest],
        options: BatchOptions,
        policy: RetryPolicy,
    ) -> None:
        self._endpoint = endpoint
        self._state = state
        self._requests = tuple(requests)
        self._options = options
        self._policy = policy
        self._final: dict[int, SubResponse] = {}
        self._deferred: dict[int, float] = {}  # index -> seconds to wait before the retry
        self._answers: dict[int, SubResponse] = {}  # latest answer of every index
        self._attempts = [0] * len(self._requests)
        self._emitted = 0
        self._stop: str | None = None  # within a round: "final" or "retry" after a failure
        self._last_round = False
        self._envelopes: list[EnvelopeInfo] = []
        self._standalone_targets = [self._resolve(r) for r in self._requests]
        self.result: BatchResult | None = None

    # -- the run ---------------------------------------------------------------------------

    def ops(self) -> Generator[Op, object, None]:
        state = self._state
        if self._options.discover and not state.discovered and state.batching:
            yield from self._discover()
        pending = list(range(len(self._requests)))
        round_no = 0
        while pending:
            self._last_round = round_no >= self._policy.max_retries or self._options.whole
            self._stop = None
            self._deferred.clear()
            for index in pending:
                self._attempts[index] += 1
            yield from self._round(pending)
            delay = max(self._deferred.values(), default=0.0)
            pending = sorted(self._deferred)
            if pending and delay > 0:
                yield Sleep(delay)
            round_no += 1
        responses = tuple(self._final[i] for i in range(len(self._requests)))
        self.result = BatchResult(responses, tuple(self._envelopes), self._options.atomic)

    def _round(self, pending: list[int]) -> Generator[Op, object, None]:
        whole = self._options.whole
        if self._state.batching or whole:
            boundary, encoded = encode_parts(self._requests, pending)
            limits = self._state.limits
            chunks = plan_chunks([encoded[i] for i in pending], boundary, limits)
            if whole and (len(chunks) > 1 or not chunks[0].batch):
                what = "an atomic batch" if self._options.atomic else "a batch with references"
                raise ValueError(
                    f"{what} cannot be split, and this one exceeds the server's limits "
                    f"{limits!r} (MB-LIMIT-3)"
                )
        else:
            boundary, encoded, chunks = "", {}, [Chunk(tuple(pending), False)]
        for chunk in chunks:
            if self._stop is not None and self._options.stop_on_error:
                for index in chunk.indexes:
                    yield from self._settle(SubResponse(index, None, outcome="skipped"))
                continue
            if chunk.batch and (self._state.batching or whole):
                sent = yield from self._send_batch(
                    chunk, boundary, [encoded[i] for i in chunk.indexes]
                )
                if sent:
                    continue
            yield from self._send_standalone(chunk.indexes)

    # -- settling and emitting ----------------------------------------------------------------

    def _settle(self, response: SubResponse) -> Generator[Op, object, None]:
        index = response.index
        response = replace(response, attempts=self._attempts[index])
        self._answers[index] = response
        request = self._requests[index]
        retry = not self._last_round
        defer: float | None = None
        if response.outcome == "skipped":
            if self._stop == "retry" and retry:
                defer = 0.0
        elif response.outcome == "unknown":
            if request.idempotent and retry:
                defer = 0.0
        else:
            delay = self._policy.delay_for(response.status, response.headers)
            if delay is not None and retry:
                defer = delay
            failed = response.status is not None and response.status >= 400
            if failed and self._stop is None:
                self._stop = "retry" if defer is not None else "final"
        if defer is not None:
            self._deferred[index] = defer
        else:
            self._final[index] = response
        while self._emitted in self._final:
            yield Emit(self._final[self._emitted])
            self._emitted += 1

    def _arrived(self) -> tuple[SubResponse, ...]:
        return tuple(self._answers[i] for i in sorted(self._answers))

    # -- discovery ----------------------------------------------------------------------------

    def _discover(self) -> Generator[Op, object, None]:
        request = HttpRequest(
            "OPTIONS",
            self._endpoint.path,
            (("Accept", CAPABILITIES_MEDIA_TYPE), *self._credentials()),
        )
        yield Send((request,))
        head = cast(Head, (yield ReceiveHead()))
        body = yield from self._read_all()
        self._state.discovered = True
        if head.status != 200:
            return
        try:
            document = json.loads(body)
            # Limits the parser does not know (max_batches_in_flight, later additions) say
            # nothing about how to split a batch.
            published = document["limits"]
            known = {k: int(published[k]) for k in _SPLIT_LIMITS if k in published}
            self._state.limits = Limits(**known)
        except (ValueError, TypeError, KeyError):
            return  # no usable capabilities document: send unsplit, as if none were published
        self._state.capabilities = document

    def _credentials(self) -> list[tuple[str, str]]:
        names = {n.lower() for n in INHERITED_FIELDS}
        return [(k, v) for k, v in self._options.headers if k.lower() in names]

    def _read_all(self) -> Generator[Op, object, bytes]:
        chunks: list[bytes] = []
        while True:
            chunk = cast(bytes, (yield ReadBody()))
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)

    # -- batch envelopes ----------------------------------------------------------------------

    def _batch_request(self, boundary: str, content: bytes) -> HttpRequest:
        boundary_type = format_batch_content_type(boundary)
        headers = [
            ("Content-Type", boundary_type),
            ("Accept", "multipart/mixed"),
            ("Accept-Encoding", ACCEPT_ENCODING),
            # MB-INTER-4: "A sender SHOULD include Cache-Control: no-transform".
            ("Cache-Control", "no-transform"),
        ]
        if self._options.stop_on_error:
            headers.append(("Prefer", "batch-on-error=stop"))
        modes = self._options.modes
        if modes is not None:
            # MB-PROC-17: Batch-Mode is "a comma-separated list of modes".
            headers.append(("Batch-Mode", modes))
        own = {k.lower() for k, _ in headers}
        headers += [(k, v) for k, v in self._options.headers if k.lower() not in own]
        # MB-METHOD-1: "A client sends a batch with content with the POST method".
        return HttpRequest("POST", self._endpoint.path, tuple(headers), content)

    def _send_batch(
        self, chunk: Chunk, boundary: str, parts: list[EncodedPart]
    ) -> Generator[Op, object, bool]:
        """Send one envelope; False when the endpoint turned out not to batch."""
        request = self._batch_request(boundary, join_parts(boundary, parts))
        whole_retries = 0
        while True:
            yield Send((request,))
            head = cast(Head, (yield ReceiveHead()))
            if head.status == 200:
                break
            body = yield from self._read_all()
            if head.status in FALLBACK_STATUSES and not self._options.whole:
                self._state.batching = False
                self._envelopes.append(EnvelopeInfo("batch", head.status, head.headers, ()))
                return False
            # A 429 or 503 before any part ran (MB-STATUS-12) may be retried as a whole.
            delay = self._policy.delay_for(head.status, head.headers)
            if delay is not None and whole_retries < self._policy.max_retries:
                whole_retries += 1
                if delay:
                    yield Sleep(delay)
                continue
            raise BatchRejected(head.status, _problem(head, body), responses=self._arrived())
        yield from self._read_batch(chunk, head)
        return True

    def _read_batch(self, chunk: Chunk, head: Head) -> Generator[Op, object, None]:
        indexes = chunk.indexes
        try:
            response_boundary = parse_batch_content_type(head.headers.get("Content-Type"))
            decoder = ContentDecoder(head.headers.get_all("Content-Encoding"))
        except RemoteProtocolError as exc:
            yield from self._read_all()
            raise BatchProtocolError(
                f"a 200 batch response must be multipart/mixed: {exc.detail}",
                requirement="MB-STATUS-1",
                responses=self._arrived(),
            ) from exc
        limits = Limits(
            max_parts=len(indexes) + 1,  # one more for an abort part (MB-STATUS-6)
            max_part_header_bytes=_RESPONSE_HEADER_BYTES,
            max_part_fields=_RESPONSE_PART_FIELDS,
            max_part_bytes=_RESPONSE_PART_BYTES,
            max_batch_bytes=_RESPONSE_PART_BYTES * 1024,
        )
        parser = BatchParser(response_boundary, Role.RESPONSE, limits)
        reader = _PartAssembler(indexes)
        aborted: dict[str, Any] | None = None
        ended = False
        try:
            while not ended:
                try:
                    data = cast(bytes, (yield ReadBody()))
                except ConnectionLost:
                    data = b""
                if data:
                    events = parser.feed(decoder.decode(data))
                else:
                    tail = decoder.flush()
                    events = (parser.feed(tail) if tail else []) + parser.feed_eof()
                    ended = True
                for event in events:
                    done = reader.handle(event)
                    if done is None:
                        continue
                    if done.outcome == "aborted":
                        aborted = _json_or_none(done.body)
                        continue
                    yield from self._settle(done)
                if reader.finished:
                    # Drain whatever follows the close delimiter (the epilogue) to keep the
                    # connection usable.
                    yield from self._read_all()
                    ended = True
        except IncompleteBatch:
            got = reader.count
            self._record(chunk, head, aborted)
            raise TruncatedResponse(self._arrived(), indexes[got:]) from None
        except RemoteProtocolError as exc:
            self._record(chunk, head, aborted)
            raise BatchProtocolError(
                f"malformed batch response: {exc}",
                requirement=exc.requirement,
                responses=self._arrived(),
            ) from exc
        self._record(chunk, head, aborted)
        missing = indexes[reader.count :]
        if missing and aborted is None:
            # MB-RESP-1: "exactly one part per request part, in request order".
            raise BatchProtocolError(
                f"the batch response has {reader.count} parts for {len(indexes)} sub-requests",
                requirement="MB-RESP-1",
                responses=self._arrived(),
            )
        for index in missing:
            # MB-STATUS-6: after an abort part, later parts have an unknown outcome.
            yield from self._settle(SubResponse(index, None, outcome="unknown"))

    def _record(self, chunk: Chunk, head: Head, aborted: dict[str, Any] | None) -> None:
        self._envelopes.append(
            EnvelopeInfo("batch", head.status, head.headers, chunk.indexes, aborted)
        )

    # -- standalone requests ------------------------------------------------------------------

    def _resolve(self, request: SubRequest) -> str:
        endpoint = self._endpoint
        try:
            target = resolve_target(
                endpoint.path, request.target, scheme=endpoint.scheme, authority=endpoint.authority
            )
        except RemoteProtocolError as exc:
            raise ValueError(f"sub-request target {request.target!r}: {exc.detail}") from None
        if target.partition("?")[0] == endpoint.path:
            # MB-SUB-4: batches do not nest.
            raise ValueError(f"sub-request target {request.target!r} is the batch endpoint")
        return target

    def _standalone(self, index: int) -> HttpRequest:
        request = self._requests[index]
        own = {k.lower() for k, _ in request.headers}
        inherited = [(k, v) for k, v in self._credentials() if k.lower() not in own]
        headers = (*request.headers, *inherited)
        return HttpRequest(request.method, self._standalone_targets[index], headers, request.body)

    def _send_standalone(self, indexes: tuple[int, ...]) -> Generator[Op, object, None]:
        requests = [self._requests[i] for i in indexes]
        pipelined = (
            self._options.pipeline
            and len(indexes) > 1
            and not self._options.stop_on_error
            and all(r.safe for r in requests)
        )
        mode = "pipelined" if pipelined else "sequential"
        if pipelined:
            yield Send(tuple(self._standalone(i) for i in indexes))
        for index in indexes:
            if not pipelined:
                if self._stop is not None and self._options.stop_on_error:
                    yield from self._settle(SubResponse(index, None, outcome="skipped"))
                    continue
                yield Send((self._standalone(index),))
            head = cast(Head, (yield ReceiveHead()))
            body = yield from self._read_all()
            fields = head.headers.without(*_HOP_BY_HOP)
            self._envelopes.append(EnvelopeInfo(mode, head.status, head.headers, (index,)))
            yield from self._settle(SubResponse(index, head.status, fields, body))


class _PartAssembler:
    """Turns parser events into whole sub-responses, correlated by position (MB-RESP-6)."""

    def __init__(self, indexes: tuple[int, ...]) -> None:
        self._indexes = indexes
        self._start: ResponsePartStart | None = None
        self._body: list[bytes] = []
        self.count = 0  # parts complete, abort part excluded
        self.finished = False

    def handle(self, event: object) -> SubResponse | None:
        if isinstance(event, ResponsePartStart):
            self._start = event
            self._body = []
        elif isinstance(event, PartData):
            self._body.append(bytes(event.data))  # the view points into a reused buffer
        elif isinstance(event, PartEnd):
            start = self._start
            assert start is not None
            body = b"".join(self._body)
            if start.outcome == "aborted":
                return SubResponse(-1, None, start.fields, body, "aborted")
            if event.index >= len(self._indexes):
                raise RemoteProtocolError(
                    f"the batch response has more parts than the {len(self._indexes)} sent",
                    requirement="MB-RESP-1",
                    part_index=event.index,
                )
            self.count += 1
            return SubResponse(
                self._indexes[event.index],
                start.status,
                start.fields,
                body,
                start.outcome,
                start.content_id,
            )
        elif isinstance(event, BatchEnd):
            self.finished = True
        return None


def _json_or_none(body: bytes) -> dict[str, Any] | None:
    try:
        document = json.loads(body)
    except ValueError:
        return None
    return document if isinstance(document, dict) else None


def _problem(head: Head, body: bytes) -> dict[str, Any] | None:
    media = (head.headers.get("Content-Type") or "").split(";")[0].strip().lower()
    if media.endswith("json"):
        return _json_or_none(body)
    return None
