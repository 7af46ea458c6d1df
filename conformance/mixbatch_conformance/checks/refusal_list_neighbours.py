"""Methods and part fields beside the ones a refusal rule names are ordinary parts (spec 3.2.3,
3.2.4, 8.3, MB-SUB-3, MB-PART-8).

Theory of operation: two refusal rules are lists. MB-SUB-3 refuses a batch "in which any part's
`Http-Method` is `CONNECT` or `TRACE`, compared case-sensitively", and "MUST keep every other
method ... out of this rule". MB-PART-10 refuses a part carrying one of the eleven fields
MB-PART-9 names, and MB-PART-8 makes every other field of a part "the sub-request's header
fields, in order". A server that lengthens a list with what resembles its members (a method
hardening guides block beside TRACE, a field that is also a response-part field, a name that
begins like a forbidden one) or matches its members by prefix refuses batches whose parts are
ordinary requests. Which answer each part owes is not fixed here: it is learnt from the same
server, the same request sent alone to the `echo` (spec 3.2.4), and the part must get it; a
method refused alone (an HTTP parser in front of the echo may refuse a method it does not know)
may be refused in its part too, or run there, the echo's 200 describing the part's request (spec
3.2.1: an unknown method "is answered in its part"; MB-TEST-2). All parts go in one batch (as
few batches as a published `max_parts` allows, MB-LIMIT-3); when one is refused, each of its
parts goes in a batch of its own, so the refusal names the ones the rule was read into.

- `forbidden-method-neighbours-run`: parts whose method is TRACK, TRACES, TRAC, XTRACE,
  CONNECTS, CONNEC, CONNECT-UDP, DEBUG, PROPFIND, M-SEARCH, PATCH or a 64-octet extension token
  that begins with TRACE.
- `unforbidden-part-fields-reach-resource`: parts carrying response fields the spec defines or
  uses (Batch-Outcome, Batch-Summary, Preference-Applied, Location, Retry-After, Vary), names
  near the forbidden ones (Http-Status, X-Http-Status-Code, Status, Upgrade-Insecure-Requests,
  Expect-CT, X-Connection, Trailers, Content-Transfer-Type, Proxy-Status) and names near the
  control fields (Http-Method2, Content-Id2), and names of the properties every object of a
  scripting language inherits (Constructor, toString, hasOwnProperty, valueOf), which a
  forbidden-field table kept as a plain object finds in itself (`__proto__` is left out: HTTP
  fronts such as nginx drop a name holding `_` from a request alone by default). Fields that name
  another host (`X-Host`, `X-Forwarded-Host` and the others spec 3.2.2 lists after MB-SUB-2) are
  left out: a server may refuse a part carrying one under MB-SUB-2.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.alone import expect_same_as_alone
from mixbatch_conformance.checks._shared.part_limits import within_max_parts
from mixbatch_conformance.core.context import Context, SubRequest, problem_of
from mixbatch_conformance.core.echo import read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

#: An extension method token (RFC 9110 §9.1: `method = token`) of 64 octets that begins with
#: TRACE: a prefix reader takes it for TRACE.
LONG_METHOD = ("TRACE-MB-SUITE-EXTENSION-METHOD-" + "X" * 64)[:64]
#: Methods beside CONNECT and TRACE: aliases hardening guides block with TRACE (TRACK, DEBUG),
#: names sharing a prefix with either, CONNECT-UDP, and methods of WebDAV, SSDP and RFC 5789.
NEIGHBOUR_METHODS = (
    "TRACK",
    "TRACES",
    "TRAC",
    "XTRACE",
    "CONNECTS",
    "CONNEC",
    "CONNECT-UDP",
    "DEBUG",
    "PROPFIND",
    "M-SEARCH",
    "PATCH",
    LONG_METHOD,
)

#: Response fields the spec defines or uses (13.1, 5.5, 7.4, 3.3.2, 9.1, 6.1): none is among
#: the fields MB-PART-9 forbids in a request part.
RESPONSE_FIELDS = (
    ("Batch-Outcome", "skipped"),
    ("Batch-Summary", "ok=1, failed=0, skipped=0"),
    ("Preference-Applied", "batch-on-error=continue"),
    ("Location", "/mb-suite/elsewhere"),
    ("Retry-After", "1"),
    ("Vary", "Accept"),
)
#: Names that begin like, end like or hold a field MB-PART-9 forbids, and are not it.
NEAR_FORBIDDEN_FIELDS = (
    ("Http-Status", "200"),
    ("X-Http-Status-Code", "200"),
    ("Status", "200 OK"),
    ("Upgrade-Insecure-Requests", "1"),
    ("Expect-CT", "max-age=0"),
    ("X-Connection", "close"),
    ("Trailers", "mb-suite"),
    ("Content-Transfer-Type", "binary"),
    # A response field (RFC 9209) that shares its first word with Proxy-Connection.
    ("Proxy-Status", "mb-suite"),
)
#: Names that begin like the control fields and are not them.
NEAR_CONTROL_FIELDS = (
    ("Http-Method2", "DELETE"),
    ("Content-Id2", "<mb-suite-other>"),
)

#: Valid field names that are properties every JavaScript object inherits: a lookup
#: `table[name]` in a plain object finds them whatever the table holds.
BUILTIN_NAMED_FIELDS = (
    ("Constructor", "mb-suite"),
    ("toString", "mb-suite"),
    ("hasOwnProperty", "mb-suite"),
    ("valueOf", "mb-suite"),
)


def _name_refused(
    ctx: Context, judge: Judge, items: list[tuple[str, SubRequest]], rule: str, what: str
) -> None:
    """Send each of `items` in a batch of its own: the ones refused are the ones `rule` was
    read into."""
    for label, sub in items:
        one = ctx.batch(judge, [sub])
        doc = problem_of(one) if one.status != 200 else None
        named = None if doc is None else doc.get("requirement")
        judge.note(f"{label} in a batch of its own: {one.status} {named or ''}".rstrip())
        judge.expect(
            f"{label} ({what}): top-level status, alone in a batch", one.status, {200}, rule
        )


def _run_as_alone(
    ctx: Context,
    judge: Judge,
    items: list[tuple[str, SubRequest]],
    rule: str,
    what: str,
    *,
    refusal_as_alone: bool = False,
) -> None:
    """Send `items` alone and in one batch (or as few as the published `max_parts` allows);
    expect each batch processed and each part answered as alone. With `refusal_as_alone`, a
    request refused alone owes in its part a refusal, by whichever layer (MB-SUB-1), or the
    echo's 200 describing it (MB-TEST-2)."""
    alone = [ctx.alone(judge, sub) for _, sub in items]
    # As few batches as the published max_parts allows: one, unless it is below len(items).
    first = 0
    for run in within_max_parts(ctx, judge, list(zip(items, alone, strict=True))):
        _judge_batch(ctx, judge, run, first, rule, what, refusal_as_alone)
        first += len(run)


def _judge_batch(
    ctx: Context,
    judge: Judge,
    run: list[tuple[tuple[str, SubRequest], Response]],
    first: int,
    rule: str,
    what: str,
    refusal_as_alone: bool,
) -> None:
    """One batch of the items in `run` (each with its answer alone), the first of them item
    `first`, judged as `_run_as_alone` says."""
    items = [item for item, _ in run]
    resp = ctx.batch(judge, [sub for _, sub in items])
    # `what` quotes the rule: it names none of these, so the batch is not refused for them.
    if not judge.expect(f"top-level status ({what})", resp.status, {200}, rule):
        doc = problem_of(resp) or {}
        judge.note(f"the batch was refused: {doc.get('requirement')} {doc.get('detail', '')}")
        _name_refused(ctx, judge, items, rule, what)
        return
    env = expect_processed(ctx, judge, resp, [sub.content_id for _, sub in items], (), rule)
    for k, ((label, sub), single) in enumerate(run):
        i = first + k
        got = part_status(env, k)
        if refusal_as_alone and single.status is not None and single.status >= 400:
            # MB-SUB-1: "the same routing, authentication, authorisation, rate-limit,
            # input-validation and audit checks as the same request sent on its own, and
            # report a check's failure in the part": which layer refuses an unknown method
            # (the HTTP parser's 400, the router's 405, a 501) may differ in a batch. A
            # refusal that came from the parser in front of the echo may not happen in a
            # batch at all, which dispatches its parts in process: spec 3.2.1, an unknown
            # method "is answered in its part", and MB-TEST-2 has the echo "answer every
            # request to that resource whose method a sub-request may carry ... with 200".
            # A 200 then owes a description of the part's own request (method and target as
            # sent).
            judge.note(f"part {i} ({label}): alone {single.status}, in the batch {got}")
            seen = read_echo(env.parts[k].body) if got == 200 else None
            ran = seen is not None and (seen.method, seen.target) == (sub.method, sub.target)
            if got == 200:
                shown = "200, " + (
                    f"an echo of {seen.method} {seen.target}" if seen else "no echo description"
                )
            else:
                shown = str(got)
            judge.expect_true(
                f"part {i} ({label}) status",
                (isinstance(got, int) and got >= 400) or ran,
                shown,
                f"a refusal (4xx or 5xx), as alone ({single.status}), or 200 with an echo of "
                f"{sub.method} {sub.target}",
                "MB-SUB-1",
            )
            continue
        # Spec 3.2.4: "the standalone request to the batch request's origin with the part's
        # method, the part's resolved target, the part's header fields other than
        # `Http-Method` and `Content-Id` in the same order"; the echo lets the comparison see
        # what the resource received.
        expect_same_as_alone(
            ctx,
            judge,
            f"part {i} ({label})",
            sub,
            (got, env.parts[k].fields, env.parts[k].body),
            (single.status, single.headers, single.body),
        )


@checker(
    "forbidden-method-neighbours-run",
    ("MB-SUB-3", "MB-SUB-1"),
    "Parts whose method resembles CONNECT or TRACE without being either (TRACK, TRACES, TRAC, XTRACE, CONNECTS, CONNEC, CONNECT-UDP, DEBUG, PROPFIND, M-SEARCH, PATCH, a 64-octet token beginning with TRACE) run on the echo, the batch processed and each part answered as the same request alone (a method refused alone refused in its part, or run there on the echo).",
    state=State.READ_ONLY,
)
def forbidden_method_neighbours_run(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    items = [
        (method, SubRequest(method, f"{echo}?mb-method={i}"))
        for i, method in enumerate(NEIGHBOUR_METHODS)
    ]
    # MB-SUB-3: "answer 400 to a batch request in which any part's `Http-Method` is `CONNECT`
    # or `TRACE`, compared case-sensitively (RFC 9110 §9.1), and MUST keep every other
    # method, `trace` or `Connect` included, out of this rule".
    _run_as_alone(ctx, judge, items, "MB-SUB-3", "neither CONNECT nor TRACE", refusal_as_alone=True)


@checker(
    "unforbidden-part-fields-reach-resource",
    ("MB-PART-8", "MB-SUB-1"),
    "Parts carrying response fields (Batch-Outcome, Batch-Summary, Preference-Applied, Location, Retry-After, Vary), names near the forbidden part fields (Http-Status, X-Http-Status-Code, Status, Upgrade-Insecure-Requests, Expect-CT, X-Connection, Trailers, Content-Transfer-Type, Proxy-Status), near the control fields (Http-Method2, Content-Id2) or named as properties every object inherits (Constructor, toString, hasOwnProperty, valueOf) are processed, each field reaching the echo as the same request alone receives it.",
    state=State.READ_ONLY,
)
def unforbidden_part_fields_reach_resource(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    fields = (*RESPONSE_FIELDS, *NEAR_FORBIDDEN_FIELDS, *NEAR_CONTROL_FIELDS, *BUILTIN_NAMED_FIELDS)
    items = [
        (f"{name}: {value}", SubRequest("GET", f"{echo}?mb-field={i}", ((name, value),)))
        for i, (name, value) in enumerate(fields)
    ]
    # MB-PART-9 forbids "`Connection`, `Keep-Alive`, `Proxy-Connection`, `TE`,
    # `Transfer-Encoding`, `Upgrade`, `Expect`, `Host`, `Trailer`, `Content-Transfer-Encoding`,
    # `Http-Status-Code`" and no other; MB-PART-8: "take a request part's header fields other
    # than `Http-Method` and `Content-Id` as the sub-request's header fields, in order".
    _run_as_alone(ctx, judge, items, "MB-PART-8", "no field MB-PART-9 forbids")
