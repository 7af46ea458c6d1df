"""Requests on one connection, each answered as the same request alone (spec 11, 14.4).

Theory of operation: a request's answer depends on that request only. A server that keeps
per-request state on its connection (a tap of the raw octets it read, the last `Host`, a form
chosen by the first `Accept`, a `Prefer` or a boundary parsed once, a body buffer or a header
map not cleared) answers a request with what another request on the connection said. Pipelined
requests show it most: a server that looks up a request's field lines in what it has read of
the connection finds the last head read, which belongs to a request behind it. Sent one after
another, the requests show a state that outlives the request it came from.

Both checks write sequences of requests on one connection whose requests differ in what such a
state confuses: echo GETs of one target with other field values and other fields, echo GETs of
other queries, a batch then an echo GET of its part's target, an echo GET then a batch of echo
parts of the same target, echo PUTs and a GET with and without content, batches with other
`Accept` values (every form the target offers), other `Prefer` and `Batch-Mode` fields, other
boundaries, and, where the target's host has a name (a loopback address has `localhost`), echo
GETs and batches addressed to the authority as the suite sends it and to that name in lower,
upper and mixed case (a spelling the echo does not answer alone is left out). An echo's
authority is compared octet for octet: the same request alone reports the spelling it sent. Each
request is first sent alone, twice, each time on a connection of its own: what the server
answers alone is what it must answer on a shared one (the spec fixes none of these answers
beyond what MB-TEST-2, MB-MULTI-1, MB-PROC-5, MB-PROC-6, MB-PROC-8 and MB-WIRE-4 say of the
request itself), so each answer is judged against its own request's alone, in request order: the
status, the form, `Preference-Applied`, each part's status, outcome and Content-Id echo, and
each echo compared as spec 3.2.4 says (MB-TEST-2: "the request's header fields ... in the order
received"). Content other than an echo's is compared octet for octet only where the two answers
alone carry the same octets: spec 14.4 lets a suite rely on nothing about a declared resource
beyond MB-TEST-1's statuses, and a `not_found` may carry a timestamp or trace id of its own.

`pipelined-requests-answered-apart` writes each sequence before reading any answer (MB-PIPE-1:
"answer pipelined requests on a connection ... in the order it received them"); it runs direct
only, an intermediary may de-pipeline. `kept-connection-requests-answered-apart` sends each one
after another on the check's kept connection. Neither writes: the echo resource describes a PUT
without storing it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mixbatch_conformance.checks._shared.hops import PIPELINING_NEEDS_ONE_CONNECTION
from mixbatch_conformance.checks._shared.host_names import case_spellings, host_name
from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.echo import differences, read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import (
    MULTISTATUS_FORMS,
    Entry,
    entries_from_multipart,
)
from mixbatch_conformance.core.validator import parse_media_type, read_multipart
from mixbatch_conformance.transport.http import Response
from mixbatch_conformance.transport.urls import DEFAULT_PORTS

__all__: list[str] = []

#: Boundaries of the batches that differ in their boundary: lengths apart, one quoted with a
#: space and the other characters MB-WIRE-3's `bchars` allows.
BOUNDARY_A = "mb-apart-a-5d0e"
BOUNDARY_B = "mb-apart-boundary-b-91c7f2e04a"
BOUNDARY_C = "mb apart (c)+_,./:=?"
#: The field whose values tell the echo requests apart.
MARK = "X-Mb-Apart"
MULTIPART = "multipart/mixed"
#: The 207 forms' readers, by media type.
READERS = {accept: reader for _, accept, reader, _ in MULTISTATUS_FORMS}


@dataclass(frozen=True)
class _Request:
    """One request of a sequence: what it is, its octets, and the requirement that fixes its
    answer from the request itself."""

    label: str
    raw: bytes
    requirement: str
    batch: bool = False


def _echo_get(
    ctx: Context, echo: str, query: str, fields: tuple[tuple[str, str], ...], authority: str = ""
) -> _Request:
    names = ", ".join(f"{n}: {v}" for n, v in fields) or "no fields"
    raw = ctx.raw_request("GET", f"{echo}?{query}", fields, authority=authority or None)
    where = f" to {authority}" if authority else ""
    return _Request(f"echo GET ?{query} ({names}){where}", raw, "MB-TEST-2")


def _batch(
    ctx: Context,
    label: str,
    subs: list[SubRequest],
    requirement: str,
    fields: tuple[tuple[str, str], ...] = (),
    *,
    boundary: str = BOUNDARY_A,
    authority: str = "",
) -> _Request:
    quoted = f'"{boundary}"' if " " in boundary else boundary
    head = [("Content-Type", f"multipart/mixed; boundary={quoted}"), *fields]
    body = compose_batch(subs, boundary)
    raw = ctx.raw_request("POST", ctx.batch_path, head, body, authority=authority or None)
    return _Request(label, raw, requirement, batch=True)


def _host_spellings(ctx: Context) -> list[str]:
    """The target's authority as the suite sends it and with its host name in lower, upper
    and mixed case."""
    name = host_name(ctx)
    if name is None:
        return []
    port = "" if ctx.port == DEFAULT_PORTS[ctx.scheme] else f":{ctx.port}"
    spelled = [f"{spelling}{port}" for spelling in case_spellings(name)]
    return list(dict.fromkeys([ctx.authority, *spelled]))


def _sequences(ctx: Context, judge: Judge) -> list[tuple[str, list[_Request]]]:
    """(what differs, requests) of each sequence sent on one connection."""
    echo = ctx.path(ctx.resource(judge, "echo"))
    ok, nf = ok_and_not_found(ctx, judge)
    part = f"{echo}?mb-apart=part"
    out: list[tuple[str, list[_Request]]] = [
        (
            "echo GETs of one target with other fields",
            [
                _echo_get(ctx, echo, "mb-apart=same", ((MARK, "1"), ("Accept", "text/plain"))),
                _echo_get(
                    ctx, echo, "mb-apart=same", (("Accept", "application/json"), (MARK, "2"))
                ),
                _echo_get(ctx, echo, "mb-apart=same", ()),
            ],
        ),
        (
            "echo GETs of other queries",
            [
                _echo_get(ctx, echo, "mb-apart=a", ((MARK, "a"),)),
                _echo_get(ctx, echo, "mb-apart=b&c=d", ((MARK, "b"), (f"{MARK}-B", "b"))),
                _echo_get(ctx, echo, "mb-apart=a", ((f"{MARK}-C", "c"),)),
            ],
        ),
        (
            "a batch, then an echo GET of its part's target",
            [
                _batch(
                    ctx,
                    "batch of an echo part, with fields of its own",
                    [SubRequest("GET", part, ((MARK, "part"),))],
                    "MB-TEST-2",
                    ((f"{MARK}-Batch", "batch only"), ("Accept", MULTIPART)),
                ),
                _echo_get(ctx, echo, "mb-apart=part", ((MARK, "alone"),)),
            ],
        ),
        (
            "an echo GET, then a batch of echo parts of the same target",
            [
                _echo_get(ctx, echo, "mb-apart=part", ((MARK, "alone"), ("Accept", "text/plain"))),
                _batch(
                    ctx,
                    "batch of two echo parts",
                    [SubRequest("GET", part, ((MARK, "part 1"),)), SubRequest("GET", part)],
                    "MB-TEST-2",
                ),
            ],
        ),
        (
            "echo requests with and without content",
            [
                _Request(
                    "echo PUT with content",
                    ctx.raw_request(
                        "PUT",
                        f"{echo}?mb-apart=content",
                        (("Content-Type", "text/plain"),),
                        b"the first request's content, longer than the next",
                    ),
                    "MB-TEST-2",
                ),
                _echo_get(ctx, echo, "mb-apart=content", ()),
                _Request(
                    "echo PUT with shorter content",
                    ctx.raw_request(
                        "PUT", f"{echo}?mb-apart=content", (("Content-Type", "text/plain"),), b"2"
                    ),
                    "MB-TEST-2",
                ),
            ],
        ),
    ]
    # MB-MULTI-1: "choose the representation of a batch result by the request's `Accept`
    # field": every form the target offers, then none (multipart/mixed).
    mixed = [SubRequest("GET", part, ((MARK, "form"),)), nf]
    forms = [(MULTIPART, (("Accept", MULTIPART),))] + [
        (accept, (("Accept", accept),))
        for profile, accept, _, _ in MULTISTATUS_FORMS
        if ctx.target.claims(profile)
    ]
    out.append(
        (
            "batches asking for other forms",
            [
                *(_batch(ctx, f"batch with Accept {a}", mixed, "MB-MULTI-1", f) for a, f in forms),
                _batch(ctx, "batch without Accept", mixed, "MB-MULTI-1"),
            ],
        )
    )
    modes: list[tuple[str, tuple[tuple[str, str], ...], str]] = []
    if ctx.target.claims("error-policy"):
        modes.append(
            ("Prefer: batch-on-error=stop", (("Prefer", "batch-on-error=stop"),), "MB-PROC-6")
        )
    if ctx.target.claims("atomic"):
        modes.append(("Batch-Mode: atomic", (("Batch-Mode", "atomic"),), "MB-PROC-8"))
    if modes:
        # MB-PROC-5: "apply the `continue` policy to a batch request that does not ask for
        # another policy"; MB-PROC-6 and MB-PROC-8 fix what stop and atomic answer.
        plain = _batch(ctx, "batch without Prefer", [ok, nf, ok], "MB-PROC-5")
        asked = [_batch(ctx, f"batch with {what}", [ok, nf, ok], req, f) for what, f, req in modes]
        sequence = [plain]
        for batch in asked:
            sequence += [batch, plain]
        out.append(("batches asking for other policies", sequence))
    # MB-WIRE-4: "MUST accept, as far as the boundary goes, every boundary that MB-WIRE-3
    # allows": each batch's own.
    out.append(
        (
            "batches with other boundaries",
            [
                _batch(ctx, f"batch with boundary {b!r}", [ok, nf], "MB-WIRE-4", boundary=b)
                for b in (BOUNDARY_A, BOUNDARY_B, BOUNDARY_C, BOUNDARY_A)
            ],
        )
    )
    hosts = [h for h in _host_spellings(ctx) if _answered(ctx, judge, echo, h)]
    if len(hosts) > 1:
        # MB-TEST-2: "`authority`, the authority the request was addressed to (for a
        # sub-request, the batch request's)".
        host_part = [SubRequest("GET", f"{echo}?mb-apart=host")]
        requests = [_echo_get(ctx, echo, "mb-apart=host", (), authority=h) for h in hosts]
        requests += [
            _batch(ctx, f"batch of an echo part to {h}", host_part, "MB-TEST-2", authority=h)
            for h in reversed(hosts)
        ]
        out.append(("requests to other spellings of the host", requests))
    else:
        judge.note("the target's host has no name to spell otherwise: no Host spellings sent")
    return out


def _answered(ctx: Context, judge: Judge, echo: str, authority: str) -> bool:
    """Whether an echo GET addressed to `authority` is answered 200 alone (a spelling the
    server refuses is not sent)."""
    request = ctx.raw_request("GET", f"{echo}?mb-apart=host", authority=authority)
    ex = ctx.send_many(judge, [request])[0]
    return ex.response is not None and ex.response.status == 200


@dataclass(frozen=True)
class _Reading:
    """What an answer is judged by."""

    status: int
    media: str
    applied: str | None
    entries: list[Entry] | None
    content: bytes


def _reading(resp: Response) -> _Reading:
    media = resp.media_type
    entries: list[Entry] | None = None
    if media == MULTIPART:
        try:
            _, params = parse_media_type(resp.get("Content-Type") or "")
        except ValueError:
            params = {}
        env = read_multipart(resp.body, params.get("boundary", ""))
        entries = None if env.fatal or not env.complete else entries_from_multipart(env)
    elif media in READERS:
        read, problem = READERS[media](resp.body)
        entries = None if problem else read
    return _Reading(resp.status, media, resp.get("Preference-Applied"), entries, resp.body)


def _same_content(
    ctx: Context,
    judge: Judge,
    what: str,
    got: bytes,
    alone: tuple[bytes, bytes | None],
    requirement: str,
) -> None:
    """An echo's description compared as spec 3.2.4 says; any other content octet for octet,
    where the request sent alone twice got the same octets both times.

    `alone` is the content of the same request's two answers alone (None for a second answer
    of another status, or without that part). Spec 14.4: "a suite relies on nothing about a
    declared resource beyond them" (MB-TEST-1 fixes the `ok` and `not_found` statuses, no
    content), so content other than the echo's may carry a timestamp or trace id of its own;
    content the server does not repeat for the same request alone is not compared."""
    first, second = alone
    mine, theirs = read_echo(got), read_echo(first)
    if theirs is None:
        if second is None or first != second:
            judge.note(
                f"{what}: the request alone did not answer the same content twice; not compared"
            )
            return
        judge.expect_true(what, got == first, repr(got[:160]), repr(first[:160]), requirement)
        return
    found = (
        ["not a description"]
        if mine is None
        else differences(mine, theirs, ctx.target.volatile_headers)
    )
    if mine is not None and not found and mine.authority != theirs.authority:
        # The same request alone reports its Host in this spelling: another spelling is the
        # Host of another request on the connection.
        found = [f"authority {mine.authority!r}, alone {theirs.authority!r}"]
    # MB-TEST-2: "the request's header fields as an array of `[name, value]` pairs in the order
    # received", of the request it answers, compared by the rules of 3.2.4.
    judge.expect_true(
        f"{what}: the request it describes",
        not found,
        "; ".join(found) or "the same request",
        "the request the same request alone describes (spec 3.2.4)",
        "MB-TEST-2",
    )


def _judge_answer(
    ctx: Context,
    judge: Judge,
    label: str,
    req: _Request,
    got: Response,
    alone: tuple[Response, Response],
) -> None:
    """`got` judged against the same request's two answers alone (status, form, outcomes),
    content compared where the two alone agree on it."""
    mine = _reading(got)
    theirs, again = _reading(alone[0]), _reading(alone[1])
    # Each answer is fixed by its own request (`req.requirement`): MB-TEST-2 "answer every
    # request to that resource ... with 200" and a description of it; MB-MULTI-1 "choose the
    # representation of a batch result by the request's `Accept` field"; MB-PROC-5 "apply the
    # `continue` policy to a batch request that does not ask for another policy"; MB-PROC-6 and
    # MB-PROC-8 what stop and atomic answer; MB-WIRE-4 "accept ... every boundary that
    # MB-WIRE-3 allows". The same request alone shows what the server makes of it.
    judge.expect(f"{label} status", mine.status, {theirs.status}, req.requirement)
    if mine.status != theirs.status:
        return
    if not req.batch:
        _same_content(
            ctx,
            judge,
            f"{label} content",
            mine.content,
            (theirs.content, again.content if again.status == theirs.status else None),
            req.requirement,
        )
        return
    # MB-MULTI-1: the form is chosen "by the request's `Accept` field", this request's.
    judge.expect(f"{label} form", mine.media, {theirs.media}, "MB-MULTI-1")
    judge.expect(f"{label} Preference-Applied", mine.applied, {theirs.applied}, req.requirement)
    if theirs.entries is None or mine.media != theirs.media:
        return
    got_entries = mine.entries or []
    repeated = again.entries if again.media == theirs.media and again.entries else []
    judge.expect(f"{label} entry count", len(got_entries), {len(theirs.entries)}, req.requirement)
    for i, (a, b) in enumerate(zip(got_entries, theirs.entries, strict=False)):
        judge.expect(
            f"{label} part {i} status, outcome, Content-Id",
            (a.status, a.outcome, a.content_id),
            {(b.status, b.outcome, b.content_id)},
            req.requirement,
        )
        # The part's content as the second answer alone gave it; another part there (or
        # none) is other content, and the part's content is then not compared octet for octet.
        other = repeated[i] if i < len(repeated) else None
        if other is not None and (other.status, other.content_id) != (b.status, b.content_id):
            other = None
        second = None if other is None else other.body
        _same_content(
            ctx, judge, f"{label} part {i} content", a.body, (b.body, second), req.requirement
        )


Sender = Callable[[Context, Judge, str, list[_Request]], list[Response | None]]


def _judge_sequences(ctx: Context, judge: Judge, how: str, send: Sender) -> None:
    for what, requests in _sequences(ctx, judge):
        # Each request alone, twice, each time on a connection of its own: what the server
        # repeats for the same request is what it owes that request on a shared connection.
        alone: list[tuple[Response, Response]] = []
        for req in requests:
            twice: list[Response] = []
            for _ in range(2):
                ex = ctx.send_many(judge, [req.raw])[0]
                if ex.response is None:
                    judge.setup_error(f"{req.label}, alone, got no answer: {ex.error}")
                twice.append(ex.response)
            alone.append((twice[0], twice[1]))
        for i, (req, got, single) in enumerate(
            zip(requests, send(ctx, judge, what, requests), alone, strict=True)
        ):
            label = f"{what}, {how}: request {i + 1}, {req.label}"
            if got is not None:
                _judge_answer(ctx, judge, label, req, got, single)


def _pipelined(
    ctx: Context, judge: Judge, what: str, requests: list[_Request]
) -> list[Response | None]:
    exchanges = ctx.send_many(judge, [req.raw for req in requests])
    for i, ex in enumerate(exchanges):
        # MB-PIPE-1: "answer pipelined requests on a connection, batch requests and other
        # requests alike, in the order it received them".
        judge.expect_true(
            f"{what}, pipelined: request {i + 1} answered",
            ex.response is not None,
            ex.error or "an answer",
            "an answer",
            "MB-PIPE-1",
        )
    return [ex.response for ex in exchanges]


def _in_turn(
    ctx: Context, judge: Judge, what: str, requests: list[_Request]
) -> list[Response | None]:
    return [ctx.send(judge, req.raw, as_written=True) for req in requests]


@checker(
    "pipelined-requests-answered-apart",
    ("MB-PIPE-1", "MB-TEST-2", "MB-MULTI-1", "MB-PROC-5", "MB-PROC-6", "MB-PROC-8", "MB-WIRE-4"),
    "Pipelined on one connection, echo GETs of one target with other fields or of other queries, echo PUTs and GETs with and without content, batches and echo GETs of their parts' target, batches asking for other forms, policies and modes, with other boundaries, and requests to other spellings of the host are each answered, in order, as the same request alone: the echo describing its own request.",
    profile="pipelining",
    tier="standard",
    state=State.READ_ONLY,
    direct_only=PIPELINING_NEEDS_ONE_CONNECTION,
)
def pipelined_requests_apart(ctx: Context, judge: Judge) -> None:
    _judge_sequences(ctx, judge, "pipelined", _pipelined)


@checker(
    "kept-connection-requests-answered-apart",
    ("MB-TEST-2", "MB-MULTI-1", "MB-PROC-5", "MB-PROC-6", "MB-PROC-8", "MB-WIRE-4"),
    "Sent one after another on one kept connection, echo GETs of one target with other fields or of other queries, echo PUTs and GETs with and without content, batches and echo GETs of their parts' target, batches asking for other forms, policies and modes, with other boundaries, and requests to other spellings of the host are each answered as the same request alone: the echo describing its own request.",
    tier="standard",
    state=State.READ_ONLY,
)
def kept_connection_requests_apart(ctx: Context, judge: Judge) -> None:
    _judge_sequences(ctx, judge, "in turn", _in_turn)
