"""Planted violations in time and order: streaming, pipelining, the budget of batches in flight.

These bugs change no octet of any one answer, so a rewrite of the relayed message cannot plant
them; each sets the relay's `Behaviour` instead, or keeps a count across the connections it
relays. Each is a mistake a competent implementer makes:

    answer-built-in-memory                 a server that builds the whole response before
                                           writing any of it (MB-PROC-4)
    pipelined-answers-in-completion-order  a server that hands pipelined requests to a worker
                                           pool and writes each answer when it is ready
                                           (MB-PIPE-1)
    pipelined-requests-run-side-by-side    the same pool, its answers written in the order
                                           sent: a request behind a batch runs before the
                                           batch's writes (MB-PIPE-1)
    refusal-clock-cuts-answers-ahead       a server that ends a connection two seconds after
                                           it reads a request it must refuse, not after the
                                           answers ahead of it are written (MB-PIPE-1)
    empty-line-read-after-refused-post     a server that skips the empty line after a POST's
                                           content only where it read the content for a batch
                                           that ran, not after a refusal (MB-PIPE-4)
    client-probe-eats-an-octet             a server that checks between parts whether its
                                           client has gone with a read, not a peek, and drops
                                           what it read (MB-PIPE-1)
    busy-without-retry-after               the 503 of a full budget with no Retry-After
                                           (MB-LIMIT-6)
    busy-as-text                           the 503 of a full budget written as text, not a
                                           problem document (MB-STATUS-4)
    busy-answered-429                      a full budget answered 429 with Retry-After, the
                                           status of a rate limit (MB-LIMIT-6)
    excess-batch-queued                    a front end that holds the batch beyond the budget
                                           and sends it on when room frees, so the server holds
                                           more than its budget and refuses nothing
                                           (MB-LIMIT-6)
    busy-refusal-keeps-its-place           a budget whose 503 keeps the place the refused
                                           batch took, so it shrinks by one with every refusal
                                           (MB-LIMIT-6)
    budget-checked-after-parts-ran         a budget counted where the response is written, so
                                           the excess batch is refused after its parts ran
                                           (MB-LIMIT-6)
    budget-place-kept-when-client-leaves   a budget whose place is given back only where the
                                           answer was written whole, so each client that
                                           leaves mid-answer keeps one for good (MB-LIMIT-6)
    atomic-hold-taken-per-part             an atomic batch that holds the store only while
                                           each part runs, so a read between two parts sees a
                                           write the batch later rolls back (MB-PROC-15)

The last one is a server of its own: the relay and the reference server behind it publish a
budget one smaller than the reference's (`max_batches_in_flight` in the capabilities
document), and the relay counts the batches it holds; a batch that arrives beyond that count
is still forwarded, and its answer replaced by a 503 with Retry-After once its parts have run.
The plants run the reference server as it is configured: no switch in it turns a bug on.
"""

from __future__ import annotations

import json
import re
import threading
from urllib.parse import urlsplit

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import (
    boundary_of,
    field_of,
    is_batch,
    parts_of,
    problem,
)
from mixbatch_conformance.transport.relay import Behaviour, RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: The capabilities `limits` member that publishes the budget (spec 9.1, MB-LIMIT-6).
BUDGET = "max_batches_in_flight"
#: The Retry-After the planted late refusal sends, in seconds.
LATE_RETRY_AFTER = "1"


def _without_retry_after(req: RelayRequest, resp: RelayResponse) -> None:
    if is_batch(req) and resp.status == 503:
        resp.set("Retry-After", None)


def _busy_as_text(req: RelayRequest, resp: RelayResponse) -> None:
    if is_batch(req) and resp.status == 503:
        resp.set("Content-Type", "text/plain")
        resp.body = b"busy, try again later\n"


def _busy_as_429(req: RelayRequest, resp: RelayResponse) -> None:
    if is_batch(req) and resp.status == 503:
        resp.status = 429


def _document(resp: RelayResponse) -> dict[str, object]:
    """A capabilities answer's document (empty when it is no JSON object)."""
    try:
        doc = json.loads(resp.body)
    except ValueError:
        return {}
    return doc if isinstance(doc, dict) else {}


def _published_budget(resp: RelayResponse) -> tuple[dict[str, object] | None, int | None]:
    """A capabilities answer's `limits` object and the budget it publishes (None for either
    that is not there)."""
    limits = _document(resp).get("limits")
    if not isinstance(limits, dict):
        return None, None
    budget = limits.get(BUDGET)
    return limits, budget if isinstance(budget, int) else None


class _LateBudget:
    """A budget one smaller than the upstream's, counted by the relay and checked only when the
    answer is written: the batch over it has run by then."""

    def __init__(self) -> None:
        self.limit: int | None = None
        self.held = 0
        self.over: set[int] = set()

    def request(self, req: RelayRequest) -> None:
        if not is_batch(req):
            return
        self.held += 1
        if self.limit is not None and self.held > self.limit:
            self.over.add(id(req))

    def response(self, req: RelayRequest, resp: RelayResponse) -> None:
        if req.method == "OPTIONS":
            self._publish(resp)
            return
        if not is_batch(req):
            return
        self.held = max(0, self.held - 1)
        if id(req) in self.over:
            self.over.discard(id(req))
            problem(resp, 503, "MB-LIMIT-6")
            resp.set("Retry-After", LATE_RETRY_AFTER)

    def _publish(self, resp: RelayResponse) -> None:
        """Publish the upstream's budget less one, and start counting afresh."""
        self.held, self.over = 0, set()
        limits, budget = _published_budget(resp)
        if limits is None or budget is None or budget < 2:
            self.limit = None
            return
        self.limit = limits[BUDGET] = budget - 1
        resp.body = json.dumps({**_document(resp), "limits": limits}).encode()


_LATE = _LateBudget()


class _LeakyBudget:
    """The relay as a server with a budget of `budget` batches in flight (the upstream's
    published one, read from its capabilities document), refusing the batch beyond it with
    503 before forwarding it, whose refusal keeps the place it took: each 503 leaves the
    budget one smaller for good (a slot taken on arrival and given back only when a batch's
    response is complete, which a refused batch never has)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.budget: int | None = None
        #: The batches admitted and not yet answered.
        self.held: set[int] = set()
        #: The places refusals took and never gave back.
        self.kept = 0

    def refuse(self, req: RelayRequest) -> bool:
        if not is_batch(req) or self.budget is None:
            return False
        with self.lock:
            if len(self.held) + self.kept >= self.budget:
                self.kept += 1
                return True
            self.held.add(id(req))
        return False

    def response(self, req: RelayRequest, resp: RelayResponse) -> None:
        if req.method == "OPTIONS":
            self._learn(resp)
            return
        with self.lock:
            self.held.discard(id(req))

    def _learn(self, resp: RelayResponse) -> None:
        """The upstream's published budget; the places kept so far are the server's for good."""
        _, budget = _published_budget(resp)
        if budget is not None and budget > 0:
            self.budget = budget


_LEAKY = _LeakyBudget()


class _KeptWhenLeft:
    """The relay as a server whose budget of batches in flight (the upstream's published one)
    gives a batch's place back only when its answer was written whole: each batch whose
    client left before its streamed answer ended keeps its place for good, and once they fill
    the budget every batch is refused with 503. Learning the budget (from the capabilities
    document, which every run reads once, asked of the upstream by the plant itself so that
    the answers stay streamed) starts the count again."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.budget: int | None = None
        self.kept = 0

    def left(self, req: RelayRequest, written: bytes, how: str) -> None:
        if is_batch(req):
            with self.lock:
                self.kept += 1

    def refuse(self, req: RelayRequest) -> bool:
        with self.lock:
            return is_batch(req) and self.budget is not None and self.kept >= self.budget

    def request(self, req: RelayRequest) -> None:
        if req.method != "OPTIONS" or req.upstream is None:
            return
        answer = req.upstream(req.to_bytes())
        if answer is None:
            return
        _, budget = _published_budget(RelayResponse.from_upstream(answer))
        if budget is not None and budget > 0:
            with self.lock:
                self.budget, self.kept = budget, 0


_KEPT = _KeptWhenLeft()


class _HoldPerPart:
    """An atomic batch that holds the store only while each part runs: a standalone GET that
    arrives while the batch runs sees the batch's PUT (its document) or DELETE (404) of that
    member, though the batch later rolls back. The relay answers such a GET from the batch's
    request, which is what the read would have found between two of its parts."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        #: The members the atomic batches in flight write: path -> document (None: deleted).
        self.pending: dict[str, bytes | None] = {}
        #: The reads that arrived while a batch writing their target ran: id -> what they see.
        self.seen: dict[int, bytes | None] = {}

    def request(self, req: RelayRequest) -> None:
        if is_batch(req) and re.search(r"(?i)\batomic\b", req.get("Batch-Mode") or ""):
            with self.lock:
                self.pending.update(_writes(req))
            return
        if req.method == "GET":
            with self.lock:
                if req.target in self.pending:
                    self.seen[id(req)] = self.pending[req.target]

    def response(self, req: RelayRequest, resp: RelayResponse) -> None:
        if is_batch(req):
            with self.lock:
                for path in _writes(req):
                    self.pending.pop(path, None)
            return
        with self.lock:
            if id(req) not in self.seen:
                return
            doc = self.seen.pop(id(req))
        if doc is None:
            resp.status, resp.body = 404, b""
            resp.set("Content-Type", None)
        else:
            resp.status, resp.body = 200, doc
            resp.set("Content-Type", "application/json")
            resp.set("ETag", '"planted-uncommitted"')


def _writes(req: RelayRequest) -> dict[str, bytes | None]:
    """The members a batch request PUTs (their documents) and DELETEs (None), by path."""
    b = boundary_of(req)
    out: dict[str, bytes | None] = {}
    for fields, body in (parts_of(req.body, b) or []) if b else []:
        method = (field_of(fields, "Http-Method") or "").strip().upper()
        ref = (field_of(fields, "Content-Id") or "").strip().removeprefix("<").removesuffix(">")
        path = urlsplit(ref).path or ref
        if method == "PUT":
            out[path] = body
        elif method == "DELETE":
            out[path] = None
    return out


_HOLD = _HoldPerPart()

#: The connection-state key under which the last answer's refusal of a POST is noted.
_REFUSED_POST = "mb-plant-refused-post"


def _note_refused_post(req: RelayRequest, resp: RelayResponse) -> None:
    req.connection[_REFUSED_POST] = req.method == "POST" and resp.status >= 400


def _after_refused_post(state: dict[str, object]) -> bool:
    """Whether the answer just written refused a POST: a reader whose skipping of empty lines
    is set only where it read the content for a batch that ran skips none after it."""
    return state.get(_REFUSED_POST) is True


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "answer-built-in-memory",
        "MB-PROC-4 whole answer held",
        ("parts-streamed-in-order",),
        caught_by=("WARN", "FAIL", "FLAKY"),
        behaviour=Behaviour(stream=False),
    ),
    Mutation(
        "pipelined-answers-in-completion-order",
        "MB-PIPE-1 completion order",
        ("pipelining-in-order",),
        behaviour=Behaviour(completion_order=True),
    ),
    Mutation(
        "pipelined-requests-run-side-by-side",
        "MB-PIPE-1 pipelined requests processed side by side, answered in order",
        ("pipelined-writes-take-effect-in-order",),
        behaviour=Behaviour(side_by_side=True),
    ),
    Mutation(
        "refusal-clock-cuts-answers-ahead",
        "MB-PIPE-1 a connection ended two seconds after an unreadable request is read",
        ("pipelining-slow-answers-ahead-of-early-refusals",),
        behaviour=Behaviour(side_by_side=True, refusal_clock_s=2.0),
    ),
    Mutation(
        "client-probe-eats-an-octet",
        "MB-PIPE-1 an octet of a request written while a batch is answered read and dropped",
        ("pipelining-requests-written-while-batch-runs",),
        behaviour=Behaviour(probe_eats_octet=True),
    ),
    Mutation(
        "empty-line-read-after-refused-post",
        "MB-PIPE-4 the empty line after a refused POST's content read as a request line",
        ("pipelined-request-after-empty-line",),
        caught_by=("WARN", "FAIL"),
        on_response=_note_refused_post,
        behaviour=Behaviour(reads_empty_lines_when=_after_refused_post),
    ),
    Mutation(
        "busy-without-retry-after",
        "MB-LIMIT-6 no Retry-After",
        ("budget-excess-batch-refused", "budget-refusal-retry-after"),
        caught_by=("WARN", "FAIL", "FLAKY"),
        on_response=_without_retry_after,
    ),
    Mutation(
        "busy-as-text",
        "MB-STATUS-4 the 503 of a full budget as text",
        ("budget-refusal-retry-after",),
        on_response=_busy_as_text,
    ),
    Mutation(
        "busy-answered-429",
        "MB-LIMIT-6 the status of a full budget",
        ("budget-excess-batch-refused", "budget-refusal-retry-after"),
        caught_by=("WARN", "FAIL", "FLAKY"),
        on_response=_busy_as_429,
    ),
    Mutation(
        "excess-batch-queued",
        "MB-LIMIT-6 budget not enforced",
        ("budget-excess-batch-refused",),
        caught_by=("WARN", "FAIL", "FLAKY"),
        behaviour=Behaviour(queue_when_busy=True),
    ),
    Mutation(
        "atomic-hold-taken-per-part",
        "MB-PROC-15 an atomic batch's write seen before it rolls back",
        ("atomic-rollback-never-seen",),
        on_request=_HOLD.request,
        on_response=_HOLD.response,
    ),
    Mutation(
        "busy-refusal-keeps-its-place",
        "MB-LIMIT-6 each 503 of a full budget keeps the place it took, the budget shrinking",
        ("budget-excess-batch-refused",),
        caught_by=("WARN", "FAIL", "FLAKY"),
        on_response=_LEAKY.response,
        behaviour=Behaviour(refuse=_LEAKY.refuse),
    ),
    Mutation(
        "budget-place-kept-when-client-leaves",
        "MB-LIMIT-6 a batch whose client left mid-answer keeps its place in the budget for good",
        ("budget-places-given-back-when-clients-leave",),
        caught_by=("WARN", "FAIL", "FLAKY"),
        on_request=_KEPT.request,
        behaviour=Behaviour(client_left=_KEPT.left, refuse=_KEPT.refuse),
    ),
    Mutation(
        "budget-checked-after-parts-ran",
        "MB-LIMIT-6 refused after running",
        ("budget-excess-batch-refused",),
        caught_by=("WARN", "FAIL", "FLAKY"),
        on_request=_LATE.request,
        on_response=_LATE.response,
    ),
)
