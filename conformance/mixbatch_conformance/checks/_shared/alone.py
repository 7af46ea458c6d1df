"""A response part judged against the same request sent alone (spec 3.2.4).

Theory of operation: MB-SUB-1 and MB-RESP-4 make a part's sub-response what the same request
gets alone. Spec 3.2.4 says how two responses compare: "equal status, equal content, and equal
header fields after leaving out the fields MB-RESP-4 drops, `Date` and the declared volatile
fields". Two of the test resources answer differently on purpose, and the spec says how to
compare them instead:

- the `echo` resource describes the request it received, and the framing fields a server's HTTP
  stack adds to a sub-request need not be those of a standalone request, so its answers are
  compared as request descriptions by the rules of 3.2.4 (MB-TEST-2, `core.echo.differences`);
- the `random` resource's octets "may differ from one request to the next, so a check relies on
  their number only" (MB-TEST-5).

Every other resource is compared octet for octet.

3.2.4 leaves `Content-Length` out of the comparison, since where a stack puts the length it adds
is its own business. A part's own `Content-Length` field line is no such addition: MB-PART-8
makes it one of "the sub-request's header fields, in order". MB-TEST-2 lets the echo "list or
leave out" the framing fields, so what the echo does with a received `Content-Length` is learnt
from the same request alone: when the echo lists the very length the request carried alone, it
is an echo that reports a received `Content-Length`, and the part's echo owes it too, in its
place among the part's fields (`expect_declared_length`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from mixbatch_conformance.checks._shared.part_limits import batches_within_limits, limit_refused
from mixbatch_conformance.checks._shared.resolution import may_name_batch_endpoint, resolve
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.echo import FRAMING_FIELDS, Echo, differences, read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.representations import comparable_fields

__all__ = [
    "Answer",
    "declared_lengths",
    "expect_declared_length",
    "expect_parts_as_alone",
    "expect_same_as_alone",
    "expect_same_request",
    "name_refused_parts",
    "readable_echoes",
    "role_of",
    "without_batch_endpoints",
]

#: One answer as compared: status, header fields, content.
Answer = tuple[int | None, Sequence[tuple[str, str]], bytes]


def _template(pattern: str) -> re.Pattern[str]:
    parts = re.split(r"(\{[a-z_]+\})", pattern)
    return re.compile("".join("[^/?]+" if p.startswith("{") else re.escape(p) for p in parts))


#: The request fields that make a request conditional (RFC 9110 §13.1).
CONDITIONAL_FIELDS = frozenset(
    {"if-match", "if-none-match", "if-modified-since", "if-unmodified-since", "if-range"}
)
#: The response fields MB-PROC-10 names.
VALIDATOR_FIELDS = frozenset({"etag", "last-modified"})


def _conditional(sub: SubRequest) -> bool:
    return any(name.lower() in CONDITIONAL_FIELDS for name, _ in sub.headers)


def _validators(fields: Sequence[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    return tuple((n, v) for n, v in fields if n in VALIDATOR_FIELDS)


def role_of(ctx: Context, target: str) -> str | None:
    """`echo` or `random` when `target` names that declared resource, else None."""
    path = ctx.resolve(target).partition("?")[0]
    for role in ("echo", "random"):
        declared = ctx.target.resource(role)
        if declared and _template(ctx.path(declared)).fullmatch(path):
            return role
    return None


#: Why a check that reads what a part received cannot judge a server whose echo resource does
#: not answer as MB-TEST-2 gives it (test-resource-echo judges that answer itself).
UNREADABLE_ECHO = (
    "the echo resource does not describe the request as JSON with method, target and headers, "
    "so the suite cannot see the sub-request's fields"
)


def readable_echoes(judge: Judge, *contents: bytes) -> list[Echo]:
    """The echo resource's descriptions in `contents` (MB-TEST-2), or N/A when one is not."""
    echoes = [read_echo(content) for content in contents]
    readable = [echo for echo in echoes if echo is not None]
    if len(readable) != len(echoes):
        judge.not_applicable(UNREADABLE_ECHO)
    return readable


def expect_same_request(
    ctx: Context, judge: Judge, label: str, seen: Echo, alone: Echo, requirement: str
) -> None:
    """Expect the request a part's resource received to be the one the same request alone
    received, compared as spec 3.2.4 says (MB-TEST-2, `core.echo.differences`)."""
    found = differences(seen, alone, ctx.target.volatile_headers)
    judge.expect_true(
        f"{label} is the same request as alone",
        not found,
        "; ".join(found) or "the same request",
        "the same method, target, authority, content and fields (spec 3.2.4)",
        requirement,
    )


#: The one framing field a part carries as its own (MB-WIRE-15, MB-WIRE-16).
LENGTH = "content-length"
#: The methods `compose_batch` and `Context.alone` give a length even with no content.
LENGTH_EVEN_EMPTY = ("POST", "PUT", "PATCH")


def declared_lengths(sub: SubRequest) -> list[str]:
    """The `Content-Length` values the part carries as `compose_batch` writes it: its own field
    lines, then the one written for its content; the whitespace around a value is no part of it
    (RFC 9110 §5.5)."""
    own = [v.strip(" \t") for n, v in sub.headers if n.lower() == LENGTH]
    if sub.content_length and (sub.body or sub.method in LENGTH_EVEN_EMPTY):
        own.append(str(len(sub.body)))
    return own


def _own_fields(
    sub: SubRequest, echo: Echo, volatile: Sequence[str]
) -> tuple[tuple[str, str], ...]:
    """The fields `echo` lists under the names the part itself carries, Content-Length included,
    in the order listed, names lower-cased: what the part's fields look like to the resource,
    without the fields a stack or MB-SUB-5 adds beside them."""
    names = {n.lower() for n, _ in sub.headers} | {LENGTH}
    skip = (FRAMING_FIELDS - {LENGTH}) | {v.lower() for v in volatile}
    return tuple((n.lower(), v) for n, v in echo.headers if n.lower() in names - skip)


def expect_declared_length(
    ctx: Context, judge: Judge, label: str, sub: SubRequest, seen: Echo, alone: Echo
) -> None:
    """Expect the part's own `Content-Length` among the fields its resource received, in its
    place, when the echo of the same request alone lists the length that request carried."""
    declared = declared_lengths(sub)
    if not declared or ctx.target.proxy:
        # A batching proxy frames each request it forwards itself (MB-PROXY-4: "with a
        # `Content-Length` equal to the part body's length when the part has content"), and
        # its own framing is judged by the proxy checks.
        return
    if alone.get_all("Content-Length") != declared:
        # MB-TEST-2: "The echo may list or leave out the framing and connection fields (`Host`,
        # `Content-Length`, ...)": this echo did not report the length received alone, so
        # nothing says what it reports for the part.
        return
    volatile = ctx.target.volatile_headers
    got, want = _own_fields(sub, seen, volatile), _own_fields(sub, alone, volatile)
    # MB-PART-8: "A receiver MUST take a request part's header fields other than `Http-Method`
    # and `Content-Id` as the sub-request's header fields, in order": the part's
    # `Content-Length` is one of them, and the echo reported the same field received alone.
    if [f for f in got if f[0] != LENGTH] == [f for f in want if f[0] != LENGTH]:
        judge.expect(
            f"{label} fields with the part's Content-Length, as alone", got, {want}, "MB-PART-8"
        )
        return
    # The other fields already differ (the comparison of spec 3.2.4 says how): only the
    # length's presence and value are judged here.
    judge.expect(
        f"{label} the part's Content-Length, as alone",
        tuple(seen.get_all("Content-Length")),
        {tuple(declared)},
        "MB-PART-8",
    )


def expect_same_as_alone(
    ctx: Context,
    judge: Judge,
    label: str,
    sub: SubRequest,
    got: Answer,
    alone: Answer,
    *,
    content: bool = True,
) -> None:
    """Expect the part's answer `got` to be the standalone `alone`, compared as 3.2.4 says;
    without `content`, its status and fields only (a content the resource does not keep from
    one standalone request to the next is no content a part can be held to)."""
    volatile = ctx.target.volatile_headers
    judge.expect(f"{label} status", got[0], {alone[0]}, "MB-SUB-1")
    if _conditional(sub):
        # MB-PROC-9: "Conditional header fields in a part give 304 or 412 exactly as for the
        # standalone request": a part with such a field that answers otherwise breaks it too.
        judge.expect(f"{label} status, conditional", got[0], {alone[0]}, "MB-PROC-9")
    fields, alone_fields = (
        comparable_fields(got[1], volatile),
        comparable_fields(alone[1], volatile),
    )
    judge.expect(f"{label} fields", fields, {alone_fields}, "MB-RESP-4")
    # MB-PROC-10: "A part's ETag and Last-Modified fields are passed through unchanged".
    judge.expect(
        f"{label} validators",
        _validators(fields),
        {_validators(alone_fields)},
        "MB-PROC-10",
    )
    if not content:
        return
    role = role_of(ctx, sub.target)
    if role is None and read_echo(got[2]) is not None and read_echo(alone[2]) is not None:
        # A target the server routes to its echo though it is not the declared path (a
        # percent-encoded dot segment the server's own router removes, alone and in the part
        # alike): both answers describe a request, compared as spec 3.2.4 says.
        role = "echo"
    if role == "random":
        # MB-TEST-5: "a sub-request and the same request sent alone answer the same status and
        # the same length, not the same octets".
        judge.expect(f"{label} content length", len(got[2]), {len(alone[2])}, "MB-TEST-5")
        return
    if role == "echo":
        mine, theirs = read_echo(got[2]), read_echo(alone[2])
        if mine is None or theirs is None:
            # The echo is not in the form MB-TEST-2 gives (test-resource-echo says so), and
            # octets would compare what 3.2.4 leaves out: the suite cannot judge, so it does
            # not guess.
            judge.note(f"{label}: the echo's description is unreadable; content not compared")
            return
        # MB-PART-8 / MB-PART-13, compared as spec 3.2.4 says (MB-TEST-2).
        expect_same_request(ctx, judge, label, mine, theirs, "MB-PART-8")
        expect_declared_length(ctx, judge, label, sub, mine, theirs)
        return
    judge.expect(f"{label} body", got[2], {alone[2]}, "MB-RESP-4")


def _may_nest(ctx: Context, sub: SubRequest) -> bool:
    """Whether `sub`'s target, resolved (MB-PART-5), may be a batch endpoint (MB-SUB-4)."""
    return may_name_batch_endpoint(ctx.batch_path, resolve(ctx.batch_path, sub.target))


def without_batch_endpoints(
    ctx: Context, judge: Judge, subs: Sequence[SubRequest]
) -> list[SubRequest]:
    """`subs` without those whose target may name a batch endpoint, each left out with a note.

    MB-SUB-4: "A server MUST answer 400 to a batch request in which any part's target is a
    batch endpoint", "whatever its query": such a part is never one a batch of valid parts
    holds, and its refusal is judged by the nesting checks, not as a valid part refused."""
    kept = []
    for sub in subs:
        if _may_nest(ctx, sub):
            judge.note(f"{sub.method} <{sub.target}> left out: it may name the batch endpoint")
        else:
            kept.append(sub)
    return kept


def name_refused_parts(
    ctx: Context, judge: Judge, subs: Sequence[SubRequest], requirement: str
) -> None:
    """After a batch of valid parts `subs` was refused, send each in a batch of its own and
    expect each processed, so that a refusal is traced to the parts that draw it: one refused
    part refuses its whole batch, whichever of many it is. A part that may name a batch
    endpoint is not sent (MB-SUB-4 refuses it), and a batch of one refused by a 413 or 431
    naming a limit is not judged (spec 9.1: a server chooses its limits)."""
    for sub in without_batch_endpoints(ctx, judge, subs):
        resp = ctx.batch(judge, [sub])
        limit = limit_refused(resp)
        if limit is not None:
            judge.note(f"{sub.method} <{sub.target}> alone in a batch: {resp.status} for {limit}")
            continue
        # Under the caller's rule, the one that made the batch of all of them processable
        # (MB-PART-4: "never for how a valid reference is written"): each part, valid, makes
        # a valid batch on its own too.
        judge.expect(
            f"{sub.method} <{sub.target}> in a batch of its own: top-level status",
            resp.status,
            {200},
            requirement,
        )


def expect_parts_as_alone(
    ctx: Context,
    judge: Judge,
    subs: Sequence[SubRequest],
    *,
    requirement: str = "MB-PART-8",
    refused: str = "MB-PART-8",
    alone_as: Callable[[SubRequest], SubRequest] | None = None,
    trace_refusal: bool = False,
) -> None:
    """Send `subs` alone (each as `alone_as` spells it, when given), then as batches, and
    expect each part answered as it was alone; a batch refused is a fault under `refused`, a
    part not processed one under `requirement`. With `trace_refusal`, a refused batch's parts
    are then sent one to a batch, to name those refused.

    The parts go in as many batches as the published limits ask (`batches_within_limits`),
    leaving out a part no batch within them could carry and one that may name a batch endpoint
    (MB-SUB-4); a batch refused by a 413 or 431 naming a limit is not judged. N/A when no batch
    is left to judge."""
    kept = without_batch_endpoints(ctx, judge, subs)
    judged = 0
    first = 0
    for run in batches_within_limits(ctx, judge, kept):
        alone = [ctx.alone(judge, alone_as(s) if alone_as else s) for s in run]
        resp = ctx.batch(judge, run)
        start, first = first, first + len(run)
        limit = limit_refused(resp)
        if limit is not None:
            # Spec 9.1: "A server may choose other values; what it must do is enforce and
            # publish them": a refusal naming a limit is the server's to give, not judged here.
            judge.note(f"parts {start} to {first - 1}: {resp.status} naming {limit}; not judged")
            continue
        judged += 1
        if trace_refusal and resp.status != 200:
            name_refused_parts(ctx, judge, run, refused)
        # MB-PART-8: "take a request part's header fields other than `Http-Method` and
        # `Content-Id` as the sub-request's header fields": a batch of valid parts is processed.
        judge.require("top-level status", resp.status, {200}, refused)
        env = expect_processed(ctx, judge, resp, [s.content_id for s in run], (), requirement)
        for i, (sub, single) in enumerate(zip(run, alone, strict=True)):
            shown = "; ".join(f"{n}: {v!r}" for n, v in sub.headers)
            expect_same_as_alone(
                ctx,
                judge,
                f"part {start + i} ({sub.method} {sub.target} {shown})",
                sub,
                (part_status(env, i), env.parts[i].fields, env.parts[i].body),
                (single.status, single.headers, single.body),
            )
    if not judged:
        judge.not_applicable("no batch of these parts was left to judge within the limits")
