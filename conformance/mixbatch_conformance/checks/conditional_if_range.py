"""If-Range on a part decides only whether Range is read, never a 412, and Range never comes
before a precondition (spec 7.6, RFC 9110 §13.1.5, §13.2.2).

Theory of operation: MB-PROC-9 has a part's conditional fields evaluated as RFC 9110 §13 does,
and §13.1.5 gives If-Range its own rule: "If the validator does not match, the server MUST
ignore the Range header field"; when it matches, the range is served as Range alone asks, and a
server that serves no ranges ignores both. If-Range is no precondition: a server that puts it
through the routine of If-Match answers a stale one 412, where RFC 9110 has the whole
representation. The check learns from the `etag_resource` alone its status and content, and the
status of the same GET with `Range: bytes=0-3`; then it sends parts with that Range under an
If-Range naming a tag the representation does not carry, its current tag marked weak, `*`, a
list holding its current tag, a date before its Last-Modified and one after it (none matches:
the part must be the GET without Range, its status and content), and under an If-Range holding
its current strong tag (the part must get what the Range alone gets). Last, §13.2.2 evaluates
If-None-Match and If-Match before Range: a part with Range under an If-None-Match holding the
current tag, or an If-Match of another, gets the 304 or 412 the GET without Range gets alone.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.precondition_values import EPOCH, NO_SUCH_ETAG
from mixbatch_conformance.checks._shared.requests import etag_of
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

RANGE = ("Range", "bytes=0-3")
#: A date after every Last-Modified a server can give.
FAR_FUTURE = "Fri, 01 Jan 2100 00:00:00 GMT"


@checker(
    "conditional-if-range-ignores-range-or-serves-it",
    ("MB-PROC-9",),
    "A GET part with Range under an If-Range that does not match (another tag, the current tag marked weak, *, a list holding the current tag, a date before or after Last-Modified) gets the whole representation with the status of the GET without Range, never 412; under an If-Range holding the current strong tag it gets what the Range alone gets; with Range under an If-None-Match holding the current tag, or an If-Match of another, it gets the 304 or 412 the GET without Range gets.",
    profile="conditional",
    state=State.READ_ONLY,
)
def conditional_if_range(ctx: Context, judge: Judge) -> None:
    path, etag = etag_of(ctx, judge)
    whole = ctx.alone(judge, SubRequest("GET", path))
    ranged = ctx.alone(judge, SubRequest("GET", path, (RANGE,))).status
    stale = [("If-Range", NO_SUCH_ETAG)]
    if whole.get("Last-Modified"):
        # §13.1.5: "If the HTTP-date validator provided exactly matches the Last-Modified field
        # value ..., the condition is true. Otherwise, the condition is false": a date after
        # Last-Modified matches no more than one before it (it is no If-Unmodified-Since).
        stale += [("If-Range", EPOCH), ("If-Range", FAR_FUTURE)]
    if not etag.startswith("W/"):
        # §13.1.5: an entity-tag validator matches when it "exactly matches the ETag field
        # value ... using the strong comparison function", which a weak tag never passes
        # (§8.8.3.2): the current tag marked weak matches nothing.
        stale.append(("If-Range", f"W/{etag}"))
        # `If-Range = entity-tag / HTTP-date` (§13.1.5): `*` and a list holding the current
        # tag are neither, so they are no validator that "matches the current validator".
        stale += [("If-Range", "*"), ("If-Range", f"{NO_SUCH_ETAG}, {etag}")]
    cases = [(SubRequest("GET", path, (RANGE, field)), whole.status, True) for field in stale]
    if not etag.startswith("W/"):
        # §13.1.5: If-Range matches by the strong comparison only.
        cases.append((SubRequest("GET", path, (RANGE, ("If-Range", etag))), ranged, False))
    # RFC 9110 §13.2.2 evaluates If-None-Match and If-Match before it reads Range ("5. When
    # the method is GET and both Range and If-Range are present ..."): a precondition that
    # fails answers 304 or 412 whatever Range asks for, as the same GET without Range gets.
    for field in (("If-None-Match", etag), ("If-Match", NO_SUCH_ETAG)):
        unranged = ctx.alone(judge, SubRequest("GET", path, (field,))).status
        if unranged in (304, 412):
            cases.append((SubRequest("GET", path, (RANGE, field)), unranged, False))
    subs = [sub for sub, _, _ in cases]
    env = expect_processed(ctx, judge, ctx.batch(judge, subs), [s.content_id for s in subs])
    for i, (sub, want, full) in enumerate(cases):
        shown = "; ".join(f"{n}: {v}" for n, v in sub.headers)
        # MB-PROC-9, RFC 9110 §13.1.5: "If the validator does not match, the server MUST ignore
        # the Range header field"; if it matches, the Range is read as it is alone.
        judge.expect(f"part {i} (GET with {shown}): status", part_status(env, i), {want})
        if full and part_status(env, i) == whole.status:
            judge.expect(f"part {i} (GET with {shown}): content", env.parts[i].body, {whole.body})
