"""Planted servers that write the answer to a batch asking for a mode on a writer of its own
(spec 3.1.1, 6.1: MB-MULTI-10, MB-WIRE-5, MB-WIRE-3, MB-MULTI-1, MB-STATUS-9).

An atomic batch is held until it commits or rolls back and then written whole; a stopped
batch ends on its failing part. A server that gives those paths their own writer can leave out
what the plain writer does: `Vary: Accept` on an atomic answer, a fresh boundary for a batch
that asked for stop (one drawn when the endpoint starts), a boundary spelled as Content-Type
allows for an atomic answer (the transaction's id, with a colon, unquoted); or it can choose
the form by a shortcut: the first member of Accept for an atomic batch, an empty Accept read as
admitting nothing for a stop batch, the multipart form whatever Accept says for an atomic
batch; or it can fill the Content-Id of a part it did not answer itself (skipped, rolled back)
from the part's resolved target. Batches without a mode are answered as before.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from urllib.parse import urljoin, urlsplit

from mixbatch_conformance.run.mutations import Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    Part,
    Pred,
    RespEdit,
    accepts,
    all_of,
    boundary_of,
    field_of,
    header_has,
    is_batch,
    map_parts,
    parts_of,
    problem,
    set_field,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

STOP = header_has("Prefer", r"(?i)batch-on-error\s*=\s*\"?stop")
ATOMIC = header_has("Batch-Mode", r"(?i)\batomic\b")
#: The boundary a stop writer drew once, when the endpoint started.
STOP_BOUNDARY = "mixbatch-stop-writer-7Qe2LxV9"


def _rebound(when: Pred, make: str | None = None) -> RespEdit:
    """Answers to requests `when` matches get the boundary `make` (or a fresh transaction id
    with a colon), written unquoted in Content-Type."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        b = boundary_of(resp)
        parts = parts_of(resp.body, b) if b else None
        if not b or parts is None or not is_batch(req) or not when(req):
            return
        new = make or f"tx:{secrets.token_urlsafe(18)}"
        resp.headers = [
            (n, f"multipart/mixed; boundary={new}" if n.lower() == "content-type" else v)
            for n, v in resp.headers
        ]
        resp.body = write_parts(parts, new)

    return edit


def _without_vary(req: RelayRequest, resp: RelayResponse) -> None:
    if is_batch(req) and ATOMIC(req):
        resp.set("Vary", None)


def _first_accept_member(req: RelayRequest) -> None:
    """An atomic batch's Accept read as its first member, parameters dropped."""
    if not (is_batch(req) and ATOMIC(req)):
        return
    whole = ", ".join(v for n, v in req.headers if n.lower() == "accept")
    if not whole.strip():
        return
    first = whole.split(",")[0].split(";")[0].strip()
    req.headers = [(n, v) for n, v in req.headers if n.lower() != "accept"]
    req.headers.append(("Accept", first))


def _empty_accept(req: RelayRequest) -> bool:
    values = [v for n, v in req.headers if n.lower() == "accept"]
    return bool(values) and not "".join(values).strip()


def _empty_accept_refused(req: RelayRequest, resp: RelayResponse) -> None:
    if is_batch(req) and STOP(req) and _empty_accept(req):
        problem(resp, 406, "MB-STATUS-9")


def _admits_no_form(req: RelayRequest) -> bool:
    return ", ".join(v for n, v in req.headers if n.lower() == "accept").strip() == "text/html"


def _echo_resolved(req: RelayRequest) -> Callable[[list[Part]], list[Part]]:
    """Skipped and rolled-back parts echo `<` the resolved target's path and query `>`."""

    def edit(parts: list[Part]) -> list[Part]:
        out: list[Part] = []
        for fields, body in parts:
            cid = field_of(fields, "Content-Id") or ""
            if field_of(fields, "Batch-Outcome") in ("skipped", "rolled-back") and cid[:1] == "<":
                url = urlsplit(urljoin(f"http://plant.invalid{req.target}", cid[1:-1]))
                target = url.path + (f"?{url.query}" if url.query else "")
                fields = set_field(fields, "Content-Id", f"<{target}>")
            out.append((fields, body))
        return out

    return edit


def _outcome_echo(req: RelayRequest, resp: RelayResponse) -> None:
    map_parts(_echo_resolved(req))(req, resp)


CATCHERS = ("batch-response-header-in-every-mode",)
ECHOES = ("outcome-parts-echo-every-reference-form",)
NEGOTIATION = ("accept-read-alike-in-every-mode",)

PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "atomic-answer-without-vary",
        "MB-MULTI-10 an atomic batch's answer written without Vary",
        CATCHERS,
        caught_by=("WARN", "FAIL"),
        on_response=_without_vary,
    ),
    Mutation(
        "stop-answer-one-boundary",
        "MB-WIRE-5 a batch asking for stop answered with one boundary drawn at start-up",
        CATCHERS,
        caught_by=("WARN", "FAIL"),
        on_response=_rebound(STOP, STOP_BOUNDARY),
    ),
    Mutation(
        "atomic-boundary-transaction-id-unquoted",
        "MB-WIRE-3 an atomic batch's boundary holding a colon written unquoted",
        CATCHERS,
        on_response=_rebound(ATOMIC),
    ),
    Mutation(
        "atomic-form-by-first-accept-member",
        "MB-MULTI-1 an atomic batch's form chosen by the first member of Accept",
        NEGOTIATION,
        on_request=_first_accept_member,
    ),
    Mutation(
        "stop-empty-accept-admits-nothing",
        "MB-MULTI-1 a stop batch's empty Accept read as admitting no form",
        NEGOTIATION,
        on_response=_empty_accept_refused,
    ),
    Mutation(
        "atomic-answered-multipart-whatever-accept",
        "MB-STATUS-9 an atomic batch whose Accept admits no form answered in multipart/mixed",
        NEGOTIATION,
        on_response=accepts(all_of(ATOMIC, _admits_no_form)),
    ),
    Mutation(
        "outcome-parts-echo-resolved-target",
        "MB-RESP-3 skipped and rolled-back parts echo their resolved target, not the Content-Id",
        ECHOES,
        on_response=_outcome_echo,
    ),
)
