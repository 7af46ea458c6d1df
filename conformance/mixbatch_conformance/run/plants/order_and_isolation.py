"""Planted violations of what parts see: other batches' uncommitted writes, the writes before
them in their own batch, and their own content.

    batch-parts-outside-atomic-hold    the parts of a batch (no mode) read the store outside an
                                       atomic batch's hold, so a GET part sees what a running
                                       atomic batch wrote and later rolls back (MB-PROC-15);
                                       standalone requests stay isolated
    json-reader-outside-atomic-hold    the same for a batch answered in the JSON form only
    atomic-reader-outside-atomic-hold  the same for the GET parts of another atomic batch
    safe-parts-started-first           every safe part starts when the batch begins, under the
                                       default policy, so a read after a write of the same
                                       member answers the state before it (MB-PROC-2)
    safe-parts-started-first-stop      the same under batch-on-error=stop
    get-head-part-content-dropped      a GET or HEAD part reaches its resource without its
                                       content (MB-SUB-1)
    options-delete-part-content-dropped  the same for OPTIONS and DELETE parts
    atomic-snapshot-before-hold        an atomic batch records the state to restore when it
                                       arrives, before it holds the store, so one queued behind
                                       another atomic batch records that batch's uncommitted
                                       writes and, when it rolls back in its turn, puts them
                                       back (MB-PROC-15)

The hold plants remember the writes of the atomic batches in flight (a PUT's document, a
DELETE's absence) and answer a reader batch's GET parts of those members from them, which is
what a read outside the hold finds. The early snapshot remembers, for an atomic batch that
arrives while others run, their PUTs and DELETEs; when it rolls back, the members they wrote
read as those batches left them (a GET alone or in a batch answers the PUT's document, or 404
for a DELETE) until the next write of the member. The early-start plants forward the batch with its safe
parts moved before every other part, then put the answers back in request order. The relay's
reference server keeps its sandbox at /books and its echo at /echo.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from urllib.parse import urlsplit

from mixbatch_conformance.run.mutations import FieldList, Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    Part,
    boundary_of,
    field_of,
    is_batch,
    parts_of,
    set_field,
    without_field,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: Methods RFC 9110 §9.2.1 calls safe, the ones a server may be tempted to start early.
SAFE = frozenset({"GET", "HEAD", "OPTIONS"})


def _method(fields: FieldList) -> str:
    return (field_of(fields, "Http-Method") or "").strip().upper()


def _target(fields: FieldList) -> str:
    ref = (field_of(fields, "Content-Id") or "").strip().removeprefix("<").removesuffix(">")
    return urlsplit(ref).path or ref


def _atomic(req: RelayRequest) -> bool:
    return bool(re.search(r"(?i)\batomic\b", req.get("Batch-Mode") or ""))


def _stop(req: RelayRequest) -> bool:
    return bool(re.search(r"(?i)batch-on-error=\"?stop", req.get("Prefer") or ""))


class _OutsideHold:
    """Batches chosen by `reads` run their GET parts outside the hold of the atomic batches in
    flight: a GET part of a member such a batch PUT answers its document, of one it DELETEd
    404."""

    def __init__(self, reads: Callable[[RelayRequest], bool]) -> None:
        self.reads = reads
        self.lock = threading.Lock()
        #: Member path -> the document an atomic batch in flight wrote (None: deleted).
        self.pending: dict[str, bytes | None] = {}
        #: Reader batches that arrived meanwhile: id -> part index -> what that part sees.
        self.seen: dict[int, dict[int, bytes | None]] = {}

    def request(self, req: RelayRequest) -> None:
        b = boundary_of(req)
        parts = parts_of(req.body, b) if b and is_batch(req) else None
        if parts is None:
            return
        writes: dict[str, bytes | None] = {
            _target(f): body for f, body in parts if _method(f) == "PUT"
        }
        writes |= {_target(f): None for f, _ in parts if _method(f) == "DELETE"}
        with self.lock:
            if _atomic(req) and writes:
                self.pending.update(writes)
                return
            if not writes and self.reads(req):
                seen = {
                    i: self.pending[_target(f)]
                    for i, (f, _) in enumerate(parts)
                    if _method(f) == "GET" and _target(f) in self.pending
                }
                if seen:
                    self.seen[id(req)] = seen

    def response(self, req: RelayRequest, resp: RelayResponse) -> None:
        b = boundary_of(req)
        parts = parts_of(req.body, b) if b and is_batch(req) else None
        with self.lock:
            if parts is not None and _atomic(req):
                for f, _ in parts:
                    if _method(f) in ("PUT", "DELETE"):
                        self.pending.pop(_target(f), None)
            seen = self.seen.pop(id(req), None)
        if seen is None:
            return
        if resp.status == 207 and "json" in (resp.get("Content-Type") or ""):
            resp.body = _json_as_read(resp.body, seen)
            return
        _parts_as_read(resp, seen)


def _committed(resp: RelayResponse) -> bool:
    """Whether a batch answer shows every part ran and none failed or was undone."""
    rb = boundary_of(resp)
    answered = parts_of(resp.body, rb) if rb and resp.status == 200 else None
    if answered is None:
        return False
    for fields, _ in answered:
        status = (field_of(fields, "Http-Status-Code") or "").strip()
        if field_of(fields, "Batch-Outcome") is not None or not status.isdigit():
            return False
        if int(status) >= 400:
            return False
    return True


class _EarlySnapshot:
    """An atomic batch's snapshot taken when it arrives: the writes of the atomic batches in
    flight then are in it, and come back when it rolls back."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        #: Atomic batch id -> the members it writes (a PUT's document; None: deleted).
        self.inflight: dict[int, dict[str, bytes | None]] = {}
        #: Atomic batch id -> the other batches' writes in its snapshot.
        self.snapshots: dict[int, dict[str, bytes | None]] = {}
        #: Member path -> what it reads as since a rollback put it back.
        self.restored: dict[str, bytes | None] = {}

    @staticmethod
    def _writes(parts: list[Part]) -> dict[str, bytes | None]:
        writes: dict[str, bytes | None] = {
            _target(f): body for f, body in parts if _method(f) == "PUT"
        }
        return writes | {_target(f): None for f, _ in parts if _method(f) == "DELETE"}

    def request(self, req: RelayRequest) -> None:
        b = boundary_of(req)
        parts = parts_of(req.body, b) if b and is_batch(req) else None
        with self.lock:
            if parts is None:
                if req.method in ("PUT", "DELETE", "POST"):
                    self.restored.pop(urlsplit(req.target).path, None)
                return
            if not _atomic(req):
                return
            snapshot: dict[str, bytes | None] = {}
            for writes in self.inflight.values():
                snapshot |= writes
            if snapshot:
                self.snapshots[id(req)] = snapshot
            self.inflight[id(req)] = self._writes(parts)

    def response(self, req: RelayRequest, resp: RelayResponse) -> None:
        b = boundary_of(req)
        parts = parts_of(req.body, b) if b and is_batch(req) else None
        if parts is None:
            self._read_alone(req, resp)
            return
        with self.lock:
            self.inflight.pop(id(req), None)
            snapshot = self.snapshots.pop(id(req), None)
            undone = _atomic(req) and not _committed(resp)
            if not undone:
                for path in self._writes(parts):
                    self.restored.pop(path, None)
            elif snapshot:
                self.restored |= snapshot
            seen = {
                i: self.restored[_target(f)]
                for i, (f, _) in enumerate(parts)
                if _method(f) == "GET" and _target(f) in self.restored
            }
        _parts_as_read(resp, seen)

    def _read_alone(self, req: RelayRequest, resp: RelayResponse) -> None:
        if req.method != "GET":
            return
        with self.lock:
            path = urlsplit(req.target).path
            if path not in self.restored:
                return
            doc = self.restored[path]
        for name in ("ETag", "Last-Modified", "Content-Type", "Content-Encoding"):
            resp.set(name, None)
        if doc is None:
            resp.status, resp.body = 404, b""
            return
        resp.status, resp.body = 200, doc
        resp.set("Content-Type", "application/json")
        resp.set("ETag", '"planted-restored"')


def _json_as_read(body: bytes, seen: dict[int, bytes | None]) -> bytes:
    """A JSON multistatus document whose entries in `seen` are answered from their documents."""
    doc = json.loads(body)
    entries = doc.get("responses") if isinstance(doc, dict) else None
    if not isinstance(entries, list):
        return body
    for i, member in seen.items():
        if i < len(entries) and isinstance(entries[i], dict):
            entry = entries[i]
            entry.pop("body_base64", None)
            entry["status"] = 200 if member is not None else 404
            entry["body"] = member.decode("utf-8", "replace") if member is not None else ""
            entry["headers"] = [["Content-Type", "application/json"]] if member is not None else []
    return json.dumps(doc).encode()


def _parts_as_read(resp: RelayResponse, seen: dict[int, bytes | None]) -> None:
    """The multipart answer's parts at the indexes of `seen` show what was read there (nothing
    when `seen` is empty)."""
    rb = boundary_of(resp)
    answered = parts_of(resp.body, rb) if rb and seen else None
    if answered is None:
        return
    for i, doc in seen.items():
        if i < len(answered):
            answered[i] = _as_read(answered[i], doc)
    resp.body = write_parts(answered, rb or "")


def _as_read(part: Part, doc: bytes | None) -> Part:
    """A GET part answered from `doc` (None: the member is gone)."""
    fields = without_field(without_field(part[0], "ETag"), "Last-Modified")
    if doc is None:
        fields = without_field(set_field(fields, "Http-Status-Code", "404"), "Content-Type")
        return set_field(fields, "Content-Length", "0"), b""
    fields = set_field(set_field(fields, "Http-Status-Code", "200"), "ETag", '"planted-pending"')
    fields = set_field(fields, "Content-Type", "application/json")
    return set_field(fields, "Content-Length", str(len(doc))), doc


class _SafeFirst:
    """Batches chosen by `when` run every safe part before the others: forwarded with the safe
    parts moved first, answered with the parts put back in request order."""

    def __init__(self, when: Callable[[RelayRequest], bool]) -> None:
        self.when = when
        self.lock = threading.Lock()
        #: Batch id -> the request index of each part as forwarded.
        self.order: dict[int, list[int]] = {}

    def request(self, req: RelayRequest) -> None:
        b = boundary_of(req)
        parts = parts_of(req.body, b) if b and is_batch(req) and self.when(req) else None
        if parts is None or b is None:
            return
        safe = [i for i, (f, _) in enumerate(parts) if _method(f) in SAFE]
        order = safe + [i for i in range(len(parts)) if i not in safe]
        with self.lock:
            self.order[id(req)] = order
        req.body = write_parts([parts[i] for i in order], b)

    def response(self, req: RelayRequest, resp: RelayResponse) -> None:
        with self.lock:
            order = self.order.pop(id(req), None)
        rb = boundary_of(resp)
        answered = parts_of(resp.body, rb) if rb and order else None
        if answered is None or order is None or len(answered) != len(order):
            return
        back: list[Part] = list(answered)
        for j, i in enumerate(order):
            back[i] = answered[j]
        resp.body = write_parts(back, rb or "")


def _content_dropped(methods: frozenset[str]) -> Callable[[list[Part]], list[Part]]:
    """Parts of `methods` reach their resource with no content."""

    def edit(parts: list[Part]) -> list[Part]:
        return [
            (without_field(f, "Content-Length"), b"") if _method(f) in methods else (f, body)
            for f, body in parts
        ]

    return edit


def _json_asked(req: RelayRequest) -> bool:
    return "json" in (req.get("Accept") or "")


_BATCH_READER = _OutsideHold(lambda req: not _atomic(req) and not _json_asked(req))
_JSON_READER = _OutsideHold(lambda req: not _atomic(req) and _json_asked(req))
_ATOMIC_READER = _OutsideHold(_atomic)
_EARLY_SNAPSHOT = _EarlySnapshot()
_FIRST = _SafeFirst(lambda req: not _atomic(req) and not _stop(req))
_FIRST_STOP = _SafeFirst(lambda req: not _atomic(req) and _stop(req))

P = Mutation


def _stateful(
    name: str,
    breaks: str,
    catchers: tuple[str, ...],
    server: _OutsideHold | _EarlySnapshot | _SafeFirst,
) -> Mutation:
    """A plant whose request and response edits are those of one planted server's state."""
    return P(name, breaks, catchers, on_request=server.request, on_response=server.response)


PLANTS: tuple[Mutation, ...] = (
    _stateful(
        "batch-parts-outside-atomic-hold",
        "MB-PROC-15 a batch's GET part sees a running atomic batch's write",
        ("atomic-rollback-unseen-by-every-reader",),
        _BATCH_READER,
    ),
    _stateful(
        "json-reader-outside-atomic-hold",
        "MB-PROC-15 a batch answered in the JSON form sees a running atomic batch's write",
        ("atomic-rollback-unseen-by-every-reader",),
        _JSON_READER,
    ),
    _stateful(
        "atomic-reader-outside-atomic-hold",
        "MB-PROC-15 an atomic batch's GET part sees another running atomic batch's write",
        ("atomic-rollback-unseen-by-every-reader",),
        _ATOMIC_READER,
    ),
    _stateful(
        "atomic-snapshot-before-hold",
        "MB-PROC-15 a rolled-back atomic batch puts back another atomic batch's rolled-back writes",
        ("atomic-batches-queued-undo-only-their-own",),
        _EARLY_SNAPSHOT,
    ),
    _stateful(
        "safe-parts-started-first",
        "MB-PROC-2 safe parts run before the writes placed ahead of them",
        ("safe-parts-see-earlier-writes",),
        _FIRST,
    ),
    _stateful(
        "safe-parts-started-first-stop",
        "MB-PROC-2 safe parts run first under batch-on-error=stop",
        ("safe-parts-see-earlier-writes",),
        _FIRST_STOP,
    ),
    P(
        "get-head-part-content-dropped",
        "MB-SUB-1 a GET or HEAD part's content not passed on",
        ("parts-with-content-on-any-method-as-alone",),
        on_request_parts=_content_dropped(frozenset({"GET", "HEAD"})),
    ),
    P(
        "options-delete-part-content-dropped",
        "MB-SUB-1 an OPTIONS or DELETE part's content not passed on",
        ("parts-with-content-on-any-method-as-alone",),
        on_request_parts=_content_dropped(frozenset({"OPTIONS", "DELETE"})),
    ),
)
