"""Answers that carry no content, each followed on its connection by a request whose answer is
known: pipelined, and one after another on a kept connection.

Theory of operation: RFC 9112 §6.3 frames a response by the request it answers as well as by
its own fields: "Any response to a HEAD request and any response with a 1xx (Informational),
204 (No Content), or 304 (Not Modified) status code is always terminated by the first empty
line after the header fields, regardless of the header fields present in the message, and thus
cannot contain a message body or trailer section." A server that writes the content its handler
built after such a head (a HEAD answered as a GET, a 204 or 304 with the octets of a body) sends
octets no recipient reads as part of that answer: on a persistent connection they are read as
the start of the next answer, and the request behind is answered with garbage. Alone, on a
connection of its own, nothing shows it; a client that sets leftover octets aside before its
next request (the suite's own kept connections do, `transport.connections`) hides it too. So
each answer here is read with exact framing, the client knowing the method it sent, and every
octet after it read as the next answer's first (`Context.send_in_turn`, `Context.send_many`).

The leading requests, each where the target declares what it needs:

- a HEAD of every declared test resource (ok, not_found, etag_resource, echo, random, delay,
  the status resource for 200, 204, 304 and 404, the collections with and without
  `Accept: multipart/mixed`, the sandbox collection and a member of it that does not exist) and
  of the batch endpoint (405 under MB-METHOD-2, or whatever the server answers it alone);
- a GET of the status resource for 204 and 304 (MB-TEST-6: "with no content for 204 and 304"),
  of the empty collection (MB-TEST-8: "for `empty_collection`, with 204"), and conditional GETs
  answered 304: the etag resource and the collection with `If-None-Match` naming their own tag;
- batches whose parts are answered 204 and 304 and a HEAD part, in every declared form.

Each is followed by a GET of the `ok` resource, which MB-TEST-1 answers 200.

`pipelined-answers-without-content` writes the pair before reading either answer. MB-PIPE-1
binds every request on a pipelined connection: "answer pipelined requests on a connection,
batch requests and other requests alike, in the order it received them", so the leader is
answered as it is alone and the GET behind it 200. It runs direct only: an intermediary may
de-pipeline.

`kept-connection-answers-without-content` sends the GET once the leader's answer was read. No
requirement of this specification names a standalone HEAD of a test resource, nor the
connection it travels on; what binds is the request behind it: MB-TEST-1, "MUST answer a `GET`
of that resource with 200", holds for the GET of `ok` on the connection the leader left, and a
GET answered with the leader's leftover octets is not answered 200. Where the leader's own
answer is fixed (MB-TEST-6's 204 and 304 "with no content", MB-TEST-8's 204), its status is
judged, and octets found after it, before the next status line, break that requirement too. A
server may end the connection after any answer (`Connection: close`, RFC 9112 §9.6); the GET
behind is then not judged.

`sandbox-member-answers-without-content` does both for a member it creates in the sandbox: a
HEAD of it and a GET with `If-None-Match` naming its tag, each followed by a GET of the member,
which MB-TEST-3 answers 200; pipelined only where the target offers the `pipelining` profile
and the run is direct.
"""

from __future__ import annotations

from dataclasses import dataclass

from mixbatch_conformance.checks._shared.hops import PIPELINING_NEEDS_ONE_CONNECTION
from mixbatch_conformance.checks._shared.requests import new_member
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import MULTISTATUS_FORMS
from mixbatch_conformance.transport.http import Exchange

__all__: list[str] = []

BOUNDARY = "mb-no-content-5d2a8e4c1f9b3706"
#: The status resource's codes asked for with HEAD: one with content, the two without, an error.
HEAD_STATUSES = (200, 204, 304, 404)
#: The random resource's count and the delay resource's milliseconds: small, any accepted.
RANDOM_N = 16
DELAY_MS = 10
#: A member of the sandbox collection no client made (1 to 64 of A-Z a-z 0-9 - _, MB-TEST-3).
ABSENT_MEMBER = "mb-absent-7c1e9a3f5d"
#: The Accept field of a collection retrieval (spec 4.2).
RETRIEVAL = ("Accept", "multipart/mixed")


@dataclass(frozen=True)
class Leader:
    """A request whose answer carries no content, and what fixes that answer, if anything."""

    what: str
    request: bytes
    #: The requirement that fixes the answer's status, and the statuses it allows.
    fixed: tuple[str, frozenset[int]] | None = None


def _status(ctx: Context, code: int) -> str:
    template = ctx.target.resource("status") or ""
    return ctx.path(template.replace("{code}", str(code)))


def _etag(ctx: Context, judge: Judge, path: str, *fields: tuple[str, str]) -> str | None:
    """The ETag a GET of `path` answers (None without one, or unless it answers 200)."""
    resp = ctx.send(judge, ctx.raw_request("GET", path, list(fields)))
    return resp.get("ETag") if resp.status == 200 else None


def _heads(ctx: Context) -> list[Leader]:
    """A HEAD of every declared test resource, of the sandbox and of the batch endpoint."""
    target = ctx.target
    out: list[Leader] = []
    for role in ("ok", "not_found", "etag_resource", "echo"):
        path = target.resource(role)
        if path:
            out.append(Leader(f"a HEAD of {role}", ctx.raw_request("HEAD", ctx.path(path))))
    random, delay = target.resource("random"), target.resource("delay")
    if random:
        path = ctx.path(random.replace("{n}", str(RANDOM_N)))
        out.append(Leader(f"a HEAD of random for {RANDOM_N}", ctx.raw_request("HEAD", path)))
    if delay:
        path = ctx.path(delay.replace("{ms}", str(DELAY_MS)))
        out.append(Leader(f"a HEAD of delay for {DELAY_MS}", ctx.raw_request("HEAD", path)))
    if target.resource("status"):
        out += [
            Leader(f"a HEAD of status for {code}", ctx.raw_request("HEAD", _status(ctx, code)))
            for code in HEAD_STATUSES
        ]
    for role in ("collection", "empty_collection", "sandbox_collection"):
        path = target.resource(role)
        if path:
            full = ctx.path(path)
            out.append(Leader(f"a HEAD of {role}", ctx.raw_request("HEAD", full)))
            out.append(
                Leader(
                    f"a HEAD of {role} as a retrieval",
                    ctx.raw_request("HEAD", full, [RETRIEVAL]),
                )
            )
    sandbox = target.resource("sandbox_collection")
    if sandbox:
        absent = ctx.path(sandbox).rstrip("/") + "/" + ABSENT_MEMBER
        out.append(Leader("a HEAD of an absent sandbox member", ctx.raw_request("HEAD", absent)))
    out.append(Leader("a HEAD of the batch endpoint", ctx.raw_request("HEAD", ctx.batch_path)))
    return out


def _gets(ctx: Context, judge: Judge) -> list[Leader]:
    """GETs answered 204 or 304: the status resource, the empty collection, conditionals."""
    target = ctx.target
    out: list[Leader] = []
    if target.resource("status"):
        # MB-TEST-6: "answer a `GET` of that resource for a code from 200 to 599 with that
        # status, with no content for 204 and 304".
        for code in (204, 304):
            request = ctx.raw_request("GET", _status(ctx, code))
            fixed = ("MB-TEST-6", frozenset({code}))
            out.append(Leader(f"a GET of status for {code}", request, fixed))
    empty = target.resource("empty_collection")
    if empty:
        # MB-TEST-8: "answer a `GET` of that resource with `Accept: multipart/mixed` as a
        # collection retrieval ...: for `empty_collection`, with 204".
        request = ctx.raw_request("GET", ctx.path(empty), [RETRIEVAL])
        fixed = ("MB-TEST-8", frozenset({204}))
        out.append(Leader("a retrieval of empty_collection", request, fixed))
    etag_path = target.resource("etag_resource")
    if etag_path:
        path = ctx.path(etag_path)
        tag = _etag(ctx, judge, path)
        if tag:
            matched = ctx.raw_request("GET", path, [("If-None-Match", tag)])
            out.append(Leader("a GET of etag_resource naming its own tag", matched))
    coll = target.resource("collection")
    if coll:
        path = ctx.path(coll)
        tag = _etag(ctx, judge, path, RETRIEVAL)
        if tag:
            matched = ctx.raw_request("GET", path, [RETRIEVAL, ("If-None-Match", tag)])
            out.append(Leader("a retrieval of collection naming its own tag", matched))
    return out


def _batches(ctx: Context, judge: Judge) -> list[Leader]:
    """Batches whose parts are answered 204 and 304, and a HEAD part, in every declared form."""
    target = ctx.target
    parts: list[SubRequest] = []
    if target.resource("status"):
        parts += [SubRequest("GET", _status(ctx, 204)), SubRequest("GET", _status(ctx, 304))]
    etag_path = target.resource("etag_resource")
    if etag_path:
        path = ctx.path(etag_path)
        tag = _etag(ctx, judge, path)
        if tag:
            parts.append(SubRequest("GET", path, (("If-None-Match", tag),)))
    ok = target.resource("ok")
    if ok:
        parts.append(SubRequest("HEAD", ctx.path(ok)))
    if not parts:
        return []
    mixed = ("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")
    body = compose_batch(parts, BOUNDARY)
    accepts: list[tuple[str, list[tuple[str, str]]]] = [("multipart", [])]
    accepts += [
        (profile, [("Accept", accept)])
        for profile, accept, _, _ in MULTISTATUS_FORMS
        if target.claims(profile)
    ]
    return [
        Leader(
            f"a batch of parts without content, {form}",
            ctx.raw_request("POST", ctx.batch_path, [mixed, *accept], body),
        )
        for form, accept in accepts
    ]


def _leaders(ctx: Context, judge: Judge) -> list[Leader]:
    return _heads(ctx) + _gets(ctx, judge) + _batches(ctx, judge)


def _stray(ex: Exchange) -> bytes:
    """The octets that came where an answer's status line should have begun (b"" if none)."""
    if ex.response is not None or not ex.raw or ex.raw.startswith(b"HTTP/"):
        return b""
    at = ex.raw.find(b"HTTP/1.")
    return ex.raw[: at if at > 0 else 80]


def _got(ex: Exchange) -> str:
    """An answer as a report reads it: its status, or why there was none."""
    if ex.response is not None:
        return str(ex.response.status)
    stray = _stray(ex)
    where = f"; {stray[:80]!r} came before any status line" if stray else ""
    return f"no answer ({ex.error}){where}"


def _alone(ctx: Context, judge: Judge, leader: Leader) -> int | None:
    """The status `leader` gets on a connection of its own (None, noted, without one)."""
    ex = ctx.send_many(judge, [leader.request])[0]
    if ex.response is None:
        judge.note(f"{leader.what}, alone, got no answer ({ex.error}); not judged")
        return None
    return ex.response.status


def _judge_pipelined(
    ctx: Context, judge: Judge, leader: Leader, follower: bytes, then: str, answer: int
) -> None:
    """`leader` and `follower` written at once: the leader answered as alone, the follower
    `answer`."""
    alone = _alone(ctx, judge, leader)
    if alone is None:
        return
    first, second = ctx.send_many(judge, [leader.request, follower])
    # MB-PIPE-1: "answer pipelined requests on a connection, batch requests and other requests
    # alike, in the order it received them": the leader as alone, the request behind it with
    # its own answer, read from the first octet after the leader's (RFC 9112 §6.3).
    want = [alone, answer]
    got = [ex.response.status if ex.response else None for ex in (first, second)]
    judge.expect_true(
        f"{leader.what}, then {then}, pipelined",
        got == want,
        f"{_got(first)}, then {_got(second)}",
        f"{alone}, then {answer}",
        "MB-PIPE-1",
    )


def _judge_in_turn(
    ctx: Context,
    judge: Judge,
    leader: Leader,
    follower: bytes,
    then: tuple[str, int, str],
) -> None:
    """`follower` sent once `leader`'s answer was read, on its connection: the follower
    answered `then`'s status under `then`'s requirement; a fixed leader as its requirement
    says, with no octets after it."""
    what, answer, requirement = then
    first, second = ctx.send_in_turn(judge, [leader.request, follower])
    if leader.fixed is not None:
        fixed_by, statuses = leader.fixed
        status = first.response.status if first.response else None
        judge.expect_true(
            f"{leader.what}, on a kept connection",
            status in statuses,
            _got(first),
            " or ".join(str(s) for s in sorted(statuses)),
            fixed_by,
        )
        stray = _stray(second)
        if stray:
            # The answer the requirement fixes has no content (MB-TEST-6: "with no content for
            # 204 and 304"; a 204 has none by RFC 9110 §15.3.5): octets after its head are
            # content it was sent with.
            judge.expect_true(
                f"{leader.what}: octets after its answer, before the next one",
                False,
                repr(stray[:80]),
                "none: the next answer's status line",
                fixed_by,
            )
    if first.response is None:
        judge.note(f"{leader.what}, on a kept connection, got no answer ({first.error})")
        return
    if not first.response.persistent:
        judge.note(f"{leader.what}: the server ended the connection after its answer")
        return
    if second.response is None and not second.raw:
        # RFC 9112 §9.3: a server may close a persistent connection at any time; one closed
        # after the leader's answer, with nothing more written, left nothing to judge.
        judge.note(f"{leader.what}: the connection ended before {what} was answered")
        return
    # The request behind is answered as its requirement says, read from the first octet after
    # the leader's answer (RFC 9112 §6.3: a HEAD's, a 204's or a 304's answer "cannot contain
    # a message body"): octets the leader's answer left are no answer to it.
    judge.expect_true(
        f"{leader.what}, then {what}, on a kept connection",
        second.response is not None and second.response.status == answer,
        _got(second),
        str(answer),
        requirement,
    )


@checker(
    "pipelined-answers-without-content",
    ("MB-PIPE-1",),
    "A GET of the ok resource pipelined behind a HEAD of each declared resource and of the batch endpoint, behind GETs answered 204 or 304 (the status resource, the empty collection, a conditional GET naming the resource's own tag) and behind batches of parts without content, is answered 200 after the leader's own answer, read as having no content.",
    profile="pipelining",
    tier="standard",
    state=State.READ_ONLY,
    direct_only=PIPELINING_NEEDS_ONE_CONNECTION,
)
def pipelined_answers_without_content(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    follower = ctx.raw_request("GET", ok)
    for leader in _leaders(ctx, judge):
        # MB-TEST-1: a GET of `ok` is answered 200.
        _judge_pipelined(ctx, judge, leader, follower, "a GET of ok", 200)


@checker(
    "kept-connection-answers-without-content",
    ("MB-TEST-1", "MB-TEST-6", "MB-TEST-8"),
    "A GET of the ok resource sent on the connection that carried a HEAD of each declared resource or of the batch endpoint, a GET answered 204 or 304 (the status resource, the empty collection, a conditional GET naming the resource's own tag) or a batch of parts without content, once that answer was read, is answered 200, with no octets left between the two answers.",
    tier="standard",
    state=State.READ_ONLY,
)
def kept_connection_answers_without_content(ctx: Context, judge: Judge) -> None:
    if ctx.settings.http2:
        judge.not_applicable("HTTP/2 frames each answer in a stream of its own")
    ok = ctx.path(ctx.resource(judge, "ok"))
    follower = ctx.raw_request("GET", ok)
    for leader in _leaders(ctx, judge):
        # MB-TEST-1: "MUST answer a `GET` of that resource with 200".
        _judge_in_turn(ctx, judge, leader, follower, ("a GET of ok", 200, "MB-TEST-1"))


@checker(
    "sandbox-member-answers-without-content",
    ("MB-TEST-3", "MB-PIPE-1"),
    "A GET of a sandbox member the suite created, sent behind a HEAD of it and behind a GET naming its own tag on the same connection (pipelined where the target offers pipelining, and once the first answer was read), is answered 200 after the leader's answer, read as having no content.",
    tier="standard",
    state=State.WRITES_IN_SANDBOX,
)
def sandbox_member_answers_without_content(ctx: Context, judge: Judge) -> None:
    if ctx.settings.http2:
        judge.not_applicable("HTTP/2 frames each answer in a stream of its own")
    member, _ = new_member(ctx, judge)
    follower = ctx.raw_request("GET", member)
    leaders = [Leader("a HEAD of a sandbox member", ctx.raw_request("HEAD", member))]
    tag = _etag(ctx, judge, member)
    if tag:
        matched = ctx.raw_request("GET", member, [("If-None-Match", tag)])
        leaders.append(Leader("a GET of a sandbox member naming its own tag", matched))
    pipelined = ctx.target.claims("pipelining") and ctx.settings.via is None
    if not pipelined:
        judge.note(
            "pipelined pairs not sent: the target does not offer pipelining, or the run goes "
            "through an intermediary"
        )
    for leader in leaders:
        # MB-TEST-3: "a `GET` of a member with 200".
        _judge_in_turn(ctx, judge, leader, follower, ("a GET of the member", 200, "MB-TEST-3"))
        if pipelined:
            _judge_pipelined(ctx, judge, leader, follower, "a GET of the member", 200)
