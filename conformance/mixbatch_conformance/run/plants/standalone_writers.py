"""Planted violations of what a standalone write meets while an atomic batch runs (spec 7.5,
MB-PROC-15): it sees nothing of a batch that does not commit, and its rollback leaves it alone.

    standalone-precondition-sees-atomic-write  a standalone PUT's If-Match is compared with
                                               the document a running atomic batch wrote to
                                               the same member, so it fails (412)
    standalone-write-undone-by-rollback        a standalone PUT that arrives while an atomic
                                               batch runs is answered 204, and the batch's
                                               rollback puts back the member as it was

The plants remember the members each atomic batch in flight PUTs. The first forwards such a
PUT with its If-Match replaced by a tag nothing carries, which the relay's reference server
answers 412. The second forwards a PUT that arrives while any atomic batch runs as a GET of
the same member, which changes nothing, and answers it 204 without content: the write is lost,
as if the rollback had restored the member over it.
"""

from __future__ import annotations

import re
import threading
from urllib.parse import urlsplit

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import boundary_of, field_of, is_batch, parts_of
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: An entity-tag no representation of the relay's reference server carries.
UNCOMMITTED_TAG = '"relay-uncommitted-document"'
#: The request field a lost write is marked with on its way to the response hook.
LOST_MARK = "X-Relay-Lost-Write"


def _path(target: str) -> str:
    """The path a request target or a Content-Id reference names (its query left out)."""
    return urlsplit(target).path or target


class _AtomicWrites:
    """The members each atomic batch in flight PUTs, by batch."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.inflight: dict[int, set[str]] = {}

    def start(self, req: RelayRequest) -> bool:
        """Record `req` when it is an atomic batch; whether it was a batch at all."""
        if not is_batch(req):
            return False
        if not re.search(r"(?i)\batomic\b", req.get("Batch-Mode") or ""):
            return True
        b = boundary_of(req)
        parts = parts_of(req.body, b) if b else None
        puts = set()
        for fields, _ in parts or []:
            if (field_of(fields, "Http-Method") or "").strip().upper() == "PUT":
                ref = (field_of(fields, "Content-Id") or "").strip().strip("<>")
                puts.add(_path(ref))
        with self.lock:
            self.inflight[id(req)] = puts
        return True

    def end(self, req: RelayRequest) -> None:
        with self.lock:
            self.inflight.pop(id(req), None)

    def running(self, path: str | None = None) -> bool:
        """Whether an atomic batch runs (one that PUTs `path`, when given)."""
        with self.lock:
            return any(path is None or path in puts for puts in self.inflight.values())


def _precondition_sees(state: _AtomicWrites) -> Mutation:
    def request(req: RelayRequest) -> None:
        if state.start(req) or req.method != "PUT" or req.get("If-Match") is None:
            return
        if state.running(_path(req.target)):
            req.headers = [(n, v) for n, v in req.headers if n.lower() != "if-match"]
            req.headers.append(("If-Match", UNCOMMITTED_TAG))

    def response(req: RelayRequest, resp: RelayResponse) -> None:
        state.end(req)

    # MB-PROC-15: "MUST NOT let any other request ... observe ... any effect of an atomic batch
    # that does not commit."
    return Mutation(
        "standalone-precondition-sees-atomic-write",
        "MB-PROC-15 a standalone PUT's If-Match meets a running atomic batch's write",
        ("atomic-rollback-spares-standalone-writes",),
        on_request=request,
        on_response=response,
    )


def _write_undone(state: _AtomicWrites) -> Mutation:
    def request(req: RelayRequest) -> None:
        if state.start(req) or req.method != "PUT" or not state.running():
            return
        req.method = "GET"
        req.body = b""
        req.headers = [
            (n, v)
            for n, v in req.headers
            if n.lower() not in ("content-type", "content-length", "if-match", "if-none-match")
        ]
        req.headers.append((LOST_MARK, "1"))

    def response(req: RelayRequest, resp: RelayResponse) -> None:
        state.end(req)
        if req.get(LOST_MARK) and resp.status == 200:
            resp.status = 204
            resp.body = b""
            resp.headers = [
                (n, v)
                for n, v in resp.headers
                if n.lower() not in ("content-type", "content-length", "etag", "last-modified")
            ]

    # MB-PROC-15: "nor any effect of an atomic batch that does not commit": a write undone by
    # its rollback.
    return Mutation(
        "standalone-write-undone-by-rollback",
        "MB-PROC-15 a standalone PUT sent while an atomic batch runs is lost in its rollback",
        ("atomic-rollback-spares-standalone-writes",),
        on_request=request,
        on_response=response,
    )


PLANTS: tuple[Mutation, ...] = (
    _precondition_sees(_AtomicWrites()),
    _write_undone(_AtomicWrites()),
)
