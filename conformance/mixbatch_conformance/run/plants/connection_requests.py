"""Planted faults of servers that read a request's own state from its connection.

A server keeps some state per connection (what it has read of it, a parser, buffers) and must
keep the rest per request. Each plant models one that files a request's state under the
connection, in the relay's per-connection dict (`RelayRequest.connection`), so a request on a
connection is answered with what an earlier request on it said, or, pipelined, a later one:

    echo-fields-from-last-head           the echo finds a request's field lines by the last
                                         head on the connection with its request line, so a
                                         request pipelined ahead of another of the same target
                                         is described with the later one's fields (MB-TEST-2)
    batch-form-of-first-batch            the first batch's Accept chooses the form of every
                                         batch on the connection (MB-MULTI-1)
    batch-policy-of-first-batch          the first batch's Prefer and Batch-Mode stand for
                                         every batch on the connection (MB-PROC-6)
    batch-boundary-of-first-batch        the first batch's boundary parameter is the one every
                                         batch on the connection is split by (MB-WIRE-4)
    host-of-first-request                the first request's Host stands for every request on
                                         the connection (MB-TEST-2)
    fields-of-previous-request           a request is given the field lines of the request
                                         before it on the connection that it does not carry,
                                         a header map not cleared between requests (MB-TEST-2)
    content-of-previous-request          a request without content is given the content of
                                         the request before it, a body buffer not cleared
                                         (MB-TEST-2)
"""

from __future__ import annotations

import re
from collections.abc import Callable

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import is_batch
from mixbatch_conformance.transport.relay import TAP, Behaviour, RelayRequest

__all__ = ["PLANTS"]

#: The reference target's echo resource (the relay fronts the reference server).
ECHO_PATH = "/echo"
#: Fields that frame the request or route it: the relay writes its own framing.
_OWN = frozenset({"host", "content-length", "transfer-encoding", "connection"})
_PIPELINED = ("pipelined-requests-answered-apart",)
_BOTH = (*_PIPELINED, "kept-connection-requests-answered-apart")


def _set(req: RelayRequest, name: str, value: str | None) -> None:
    req.headers = [(n, v) for n, v in req.headers if n.lower() != name.lower()]
    if value is not None:
        req.headers.append((name, value))


def _fields_from_last_head(req: RelayRequest) -> None:
    """The echo reads the field lines after the last request line like its own in the tap."""
    tap = req.connection.get(TAP)
    if req.target.split("?", 1)[0] != ECHO_PATH or not isinstance(tap, bytes):
        return
    line = f"{req.method} {req.target} HTTP/1.".encode("latin-1")
    at = tap.rfind(line)
    if at < 0:
        return
    head = tap[at:].split(b"\r\n\r\n", 1)[0].split(b"\r\n")[1:]
    fields = [
        (name.strip(), value.strip())
        for name, _, value in (f.decode("latin-1").partition(":") for f in head)
    ]
    own = [(n, v) for n, v in req.headers if n.lower() in _OWN]
    req.headers = own + [(n, v) for n, v in fields if n.lower() not in _OWN]


def _kept_of_first_batch(*names: str) -> Callable[[RelayRequest], None]:
    """Every batch on the connection carries the first batch's `names` fields (or none)."""

    def plant(req: RelayRequest) -> None:
        if not is_batch(req):
            return
        for name in names:
            kept = req.connection.setdefault(f"first {name}", req.get(name))
            _set(req, name, kept if isinstance(kept, str) else None)

    return plant


def _first_batch_boundary(req: RelayRequest) -> None:
    """Every batch on the connection is split by the boundary the first one named."""
    if not is_batch(req):
        return
    own = req.get("Content-Type") or ""
    kept = req.connection.setdefault("first boundary", own)
    if isinstance(kept, str):
        _set(req, "Content-Type", kept)


def _first_host(req: RelayRequest) -> None:
    kept = req.connection.setdefault("first host", req.get("Host"))
    if isinstance(kept, str):
        _set(req, "Host", kept)


def _previous_fields(req: RelayRequest) -> None:
    """Field lines of the request before, by a name this one does not carry, are added."""
    previous = req.connection.get("previous fields")
    req.connection["previous fields"] = list(req.headers)
    if not isinstance(previous, list):
        return
    names = {n.lower() for n, _ in req.headers}
    req.headers += [(n, v) for n, v in previous if n.lower() not in names | _OWN]


def _previous_content(req: RelayRequest) -> None:
    """A request without content gets the content the request before it had."""
    previous = req.connection.get("previous content")
    req.connection["previous content"] = req.body
    if not req.body and isinstance(previous, bytes) and re.fullmatch(r"GET|PUT", req.method):
        req.body = previous


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "echo-fields-from-last-head",
        "MB-TEST-2 a request's fields read from the last head with its request line",
        _PIPELINED,
        on_request=_fields_from_last_head,
        behaviour=Behaviour(read_ahead=True),
    ),
    Mutation(
        "batch-form-of-first-batch",
        "MB-MULTI-1 the first batch's Accept for every batch on the connection",
        _BOTH,
        on_request=_kept_of_first_batch("Accept"),
    ),
    Mutation(
        "batch-policy-of-first-batch",
        "MB-PROC-6 the first batch's Prefer and Batch-Mode for every batch on the connection",
        _BOTH,
        on_request=_kept_of_first_batch("Prefer", "Batch-Mode"),
    ),
    Mutation(
        "batch-boundary-of-first-batch",
        "MB-WIRE-4 the first batch's boundary for every batch on the connection",
        _BOTH,
        on_request=_first_batch_boundary,
    ),
    Mutation(
        "host-of-first-request",
        "MB-TEST-2 the first request's Host for every request on the connection",
        _BOTH,
        on_request=_first_host,
    ),
    Mutation(
        "fields-of-previous-request",
        "MB-TEST-2 the previous request's fields for a request without them",
        _BOTH,
        on_request=_previous_fields,
    ),
    Mutation(
        "content-of-previous-request",
        "MB-TEST-2 the previous request's content for a request without",
        _BOTH,
        on_request=_previous_content,
    ),
)
