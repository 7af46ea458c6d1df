"""Planted undoing of the writes a batch's answer reported done, once its client leaves before
the answer ended (MB-PROC-2, MB-PROC-16).

A server that notices the client of a batch gone before it read the whole answer may undo what
the batch did, taking the client not to know of it. Each plant models such a server over the
reference: the relay streams the answer, its `client_left` hook tells the plant how the client
left, and the plant undoes the batch's writes through requests of its own to the reference
(`RelayRequest.upstream`):

    answered-writes-undone-when-connection-lost     under the continue policy, the write parts
                                                    answered 2xx without Batch-Outcome before
                                                    the client left, once a write to it fails
                                                    (a close or a reset) (MB-PROC-2)
    answered-writes-undone-at-client-end-of-stream  the same once the client's end of stream
                                                    arrives (a half-close, or the FIN of a
                                                    close), as a server whose request context
                                                    ends with the client's stream does
                                                    (MB-PROC-2)
    atomic-commit-undone-when-connection-lost       every write part of an atomic batch whose
                                                    first part was answered committed, the
                                                    parts the client never read too, once a
                                                    write to the client fails (MB-PROC-16)
    atomic-commit-undone-at-client-end-of-stream    the same once the client's end of stream
                                                    arrives (MB-PROC-16)

The undo: a member a PUT or a POST created is deleted; a member a PUT replaced is written back
with the document a GET of it answered just before the batch was forwarded; a member a DELETE
removed cannot be made again under its name on the reference (whose sandbox refuses a PUT that
would create), so the plant POSTs that document back and from then on sends every request
alone for the removed name to the member it made: a store that put the member back.
"""

from __future__ import annotations

import re
import threading
from urllib.parse import urlsplit

from mixbatch_conformance.run.mutations import FieldList, Mutation
from mixbatch_conformance.run.plants._edits import boundary_of, field_of, is_batch, parts_of
from mixbatch_conformance.transport.http import build_request
from mixbatch_conformance.transport.relay import (
    CLIENT_ENDED,
    CONNECTION_LOST,
    Behaviour,
    RelayRequest,
)

__all__ = ["PLANTS"]

#: The reference server's sandbox collection.
SANDBOX = "/books"
#: The key under which a batch's journal (its members as they were) is kept on its connection.
JOURNAL = "client-leaving-journal"
_CONTENT_LENGTH = re.compile(r"(?i)^content-length$")
#: A member as a GET of it answered before the batch: its Content-Type and document (None:
#: it was not there).
Before = tuple[str, bytes] | None


def _atomic(req: RelayRequest) -> bool:
    return re.search(r"(?i)\batomic\b", req.get("Batch-Mode") or "") is not None


def _writes(req: RelayRequest) -> list[tuple[str, str]]:
    """(method, path) of each part of a batch request, in order."""
    b = boundary_of(req)
    out: list[tuple[str, str]] = []
    for fields, _ in (parts_of(req.body, b) or []) if b else []:
        method = (field_of(fields, "Http-Method") or "").strip().upper()
        ref = (field_of(fields, "Content-Id") or "").strip().removeprefix("<").removesuffix(">")
        out.append((method, urlsplit(ref).path or ref))
    return out


def _answered(content: bytes) -> list[FieldList]:
    """The header fields of each response part of `content` that arrived whole (its one
    Content-Length of body, or the delimiter after it)."""
    first = content.split(b"\r\n", 1)[0].rstrip(b" \t")
    if not first.startswith(b"--"):
        return []
    delimiter = b"\r\n" + first
    out: list[FieldList] = []
    # Each chunk after the first (the empty preamble) is a part, or "--" and the epilogue.
    chunks = (b"\r\n" + content).split(delimiter)[1:]
    for i, chunk in enumerate(chunks):
        if chunk.startswith(b"--") or b"\r\n\r\n" not in chunk:
            break
        head, body = chunk.split(b"\r\n\r\n", 1)
        # The first line is what follows the boundary on the delimiter line.
        lines = head.decode("latin-1").split("\r\n")[1:]
        fields = [(n.strip(), v.strip()) for n, _, v in (line.partition(":") for line in lines)]
        length = next((v for n, v in fields if _CONTENT_LENGTH.match(n)), None)
        if i == len(chunks) - 1 and (
            length is None or not length.isdigit() or len(body) < int(length)
        ):
            break
        out.append(fields)
    return out


def _status(fields: FieldList) -> int:
    value = (field_of(fields, "Http-Status-Code") or "").strip()
    return int(value) if value.isdigit() else 0


class _UndoWhenLeft:
    """Undoes a batch's writes when its client leaves in the way `way`; `atomic` picks atomic
    batches (every write part, once part 0 is answered committed), else the others (the write
    parts answered 2xx without Batch-Outcome)."""

    def __init__(self, *, atomic: bool, way: str) -> None:
        self.atomic = atomic
        self.way = way
        self.lock = threading.Lock()
        #: A removed member's name -> the member the plant made in its place.
        self.aliases: dict[str, str] = {}

    def request(self, req: RelayRequest) -> None:
        if not is_batch(req):
            self._to_alias(req)
            return
        if _atomic(req) != self.atomic or req.upstream is None:
            return
        journal: dict[str, Before] = {}
        for method, path in _writes(req):
            if method in ("PUT", "DELETE") and path.startswith(SANDBOX + "/"):
                journal.setdefault(path, self._before(req, path))
        req.connection[JOURNAL] = journal

    def _to_alias(self, req: RelayRequest) -> None:
        path = urlsplit(req.target).path
        with self.lock:
            alias = self.aliases.get(path)
            if alias is not None and req.method == "DELETE":
                del self.aliases[path]
        if alias is not None:
            req.target = alias

    def _send(self, req: RelayRequest, method: str, path: str, before: Before = None) -> str:
        """Send a request of the plant's own; the Location its answer names, if any."""
        assert req.upstream is not None
        host = req.get("Host") or "relay"
        headers = [("Content-Type", before[0])] if before is not None else []
        body = before[1] if before is not None else None
        resp = req.upstream(build_request(method, path, host, headers, body))
        return (resp.get("Location") or "") if resp is not None else ""

    def _before(self, req: RelayRequest, path: str) -> Before:
        assert req.upstream is not None
        resp = req.upstream(build_request("GET", path, req.get("Host") or "relay", [], None))
        if resp is None or resp.status != 200:
            return None
        return resp.get("Content-Type") or "application/json", resp.body

    def left(self, req: RelayRequest, content: bytes, how: str) -> None:
        if how != self.way or not is_batch(req) or _atomic(req) != self.atomic:
            return
        journal = req.connection.get(JOURNAL)
        if not isinstance(journal, dict):
            return
        answered = _answered(content)
        writes = _writes(req)
        if self.atomic:
            if (
                not answered
                or field_of(answered[0], "Batch-Outcome")
                or _status(answered[0]) >= 400
            ):
                return
            undone = range(len(writes))
        else:
            undone = range(min(len(writes), len(answered)))
        for i in reversed(undone):
            method, path = writes[i]
            fields = answered[i] if i < len(answered) else None
            if fields is not None and (
                field_of(fields, "Batch-Outcome") or _status(fields) // 100 != 2
            ):
                continue
            self._undo(req, method, path, fields, journal)

    def _undo(
        self,
        req: RelayRequest,
        method: str,
        path: str,
        fields: FieldList | None,
        journal: dict[str, Before],
    ) -> None:
        if method == "POST" and path == SANDBOX:
            location = urlsplit(field_of(fields or [], "Location") or "").path
            if location:
                self._send(req, "DELETE", location)
            return
        if method not in ("PUT", "DELETE") or path not in journal:
            return
        before = journal[path]
        if before is None:
            self._send(req, "DELETE", path)
        elif method == "PUT":
            self._send(req, "PUT", path, before)
        else:
            made = urlsplit(self._send(req, "POST", SANDBOX, before)).path
            if made:
                with self.lock:
                    self.aliases[path] = made


def _plant(name: str, breaks: str, catcher: str, *, atomic: bool, way: str) -> Mutation:
    undo = _UndoWhenLeft(atomic=atomic, way=way)
    return Mutation(
        name,
        breaks,
        (catcher,),
        on_request=undo.request,
        behaviour=Behaviour(client_left=undo.left),
    )


PLANTS: tuple[Mutation, ...] = (
    _plant(
        "answered-writes-undone-when-connection-lost",
        "MB-PROC-2 answered writes undone once a write to the leaving client fails",
        "answered-writes-outlive-client-leaving",
        atomic=False,
        way=CONNECTION_LOST,
    ),
    _plant(
        "answered-writes-undone-at-client-end-of-stream",
        "MB-PROC-2 answered writes undone once the client's end of stream arrives",
        "answered-writes-outlive-client-leaving",
        atomic=False,
        way=CLIENT_ENDED,
    ),
    _plant(
        "atomic-commit-undone-when-connection-lost",
        "MB-PROC-16 a committed atomic batch undone once a write to the leaving client fails",
        "atomic-commit-outlives-client-leaving",
        atomic=True,
        way=CONNECTION_LOST,
    ),
    _plant(
        "atomic-commit-undone-at-client-end-of-stream",
        "MB-PROC-16 a committed atomic batch undone once the client's end of stream arrives",
        "atomic-commit-outlives-client-leaving",
        atomic=True,
        way=CLIENT_ENDED,
    ),
)
