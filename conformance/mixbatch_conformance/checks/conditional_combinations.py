"""Conditional fields in combination and on unsafe methods (spec 7.6, RFC 9110 §13.2.2).

Theory of operation: MB-PROC-9 says conditional fields in a part "give 304 or 412 exactly as
for the standalone request", and its note makes the evaluation RFC 9110 §13's own, "the order
of §13.2.2" included, even where the server makes the same mistake alone. That order is:
If-Match, else If-Unmodified-Since; then If-None-Match, else If-Modified-Since (GET and HEAD
only). So each case pairs a field that decides with one that RFC 9110 ignores beside it, the
two disagreeing, or a first field that holds with a second that does not (a true If-Match
ends nothing: the evaluation goes on to step 3 or 4), so a server that evaluates the ignored
field, stops at a true first one, or evaluates `*` without looking at whether a
representation exists (§13.1.1/§13.1.2) answers differently. Each case
names the status RFC 9110 gives (a date field whose value is no single HTTP-date is ignored,
§13.1.3, §13.1.4) for the validators the same server sends alone (a strong tag
is needed for an If-Match naming it: with a weak one the case is left out, `*` still holds),
and the part must give it. `conditional-unsafe-parts` checks PUT, PATCH and DELETE on a member
the check creates in the sandbox, with preconditions that fail, so nothing changes.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.requests import etag_of, new_member
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

EPOCH = "Thu, 01 Jan 1970 00:00:00 GMT"
NO_SUCH = '"mb-suite-no-such-etag"'


def _cases(path: str, etag: str, modified: str) -> list[tuple[SubRequest, int]]:
    """(part, the status RFC 9110 §13.2.2 gives it) for a resource that has a current
    representation with `etag` and `modified`."""
    out: list[tuple[SubRequest, int]] = []
    for method in ("GET", "HEAD"):
        out += [
            (SubRequest(method, path, (("If-Unmodified-Since", EPOCH),)), 412),
            (SubRequest(method, path, (("If-Unmodified-Since", modified),)), 200),
            # If-Match present: If-Unmodified-Since is not evaluated (step 2), and `*` is
            # true when the target has a current representation (§13.1.1).
            (SubRequest(method, path, (("If-Match", "*"), ("If-Unmodified-Since", EPOCH))), 200),
            # If-Match false: If-Unmodified-Since true beside it does not rescue it.
            (
                SubRequest(
                    method, path, (("If-Match", NO_SUCH), ("If-Unmodified-Since", modified))
                ),
                412,
            ),
            # If-None-Match present: If-Modified-Since is not evaluated (step 4).
            (
                SubRequest(
                    method, path, (("If-None-Match", NO_SUCH), ("If-Modified-Since", modified))
                ),
                200,
            ),
            (
                SubRequest(method, path, (("If-None-Match", etag), ("If-Modified-Since", EPOCH))),
                304,
            ),
            (SubRequest(method, path, (("If-None-Match", "*"), ("If-Modified-Since", EPOCH))), 304),
            (SubRequest(method, path, (("If-Modified-Since", modified),)), 304),
            # §13.1.3, §13.1.4: "A recipient MUST ignore" a date field whose value "is not a
            # valid HTTP-date".
            (SubRequest(method, path, (("If-Unmodified-Since", "not a date"),)), 200),
            (SubRequest(method, path, (("If-Modified-Since", "not a date"),)), 200),
            # A list of dates is no HTTP-date (§5.6.7: the field holds one), so it is ignored too,
            # though each member alone would make the request 304.
            (SubRequest(method, path, (("If-Modified-Since", f"{modified}, {modified}"),)), 200),
            # Step 1 or 2 false ends the evaluation with 412 before If-None-Match is read.
            (SubRequest(method, path, (("If-Match", NO_SUCH), ("If-None-Match", etag))), 412),
            # Step 1 or 2 true goes on to step 3 or 4 (it ends nothing): the second field's
            # false condition still gives 304.
            (SubRequest(method, path, (("If-Match", "*"), ("If-None-Match", etag))), 304),
            (SubRequest(method, path, (("If-Match", "*"), ("If-Modified-Since", modified))), 304),
            (
                SubRequest(
                    method, path, (("If-Unmodified-Since", modified), ("If-None-Match", etag))
                ),
                304,
            ),
            (
                SubRequest(
                    method,
                    path,
                    (("If-Unmodified-Since", modified), ("If-Modified-Since", modified)),
                ),
                304,
            ),
            (SubRequest(method, path, (("If-Match", "*"), ("If-None-Match", NO_SUCH))), 200),
        ]
        if not etag.startswith("W/"):
            # A strong tag matches If-Match by the strong comparison (§13.1.1).
            out.append(
                (
                    SubRequest(method, path, (("If-Match", etag), ("If-Unmodified-Since", EPOCH))),
                    200,
                )
            )
            out.append(
                (SubRequest(method, path, (("If-Match", etag), ("If-None-Match", etag))), 304)
            )
    return out


@checker(
    "conditional-combinations",
    ("MB-PROC-9",),
    "GET and HEAD parts pairing If-Match with If-Unmodified-Since and If-None-Match with If-Modified-Since, the two disagreeing, or a true If-Match or If-Unmodified-Since with a false If-None-Match or If-Modified-Since, give the status RFC 9110 §13.2.2's order gives: the field that takes precedence decides, and * holds for a resource that exists.",
    profile="conditional",
    state=State.READ_ONLY,
)
def conditional_combinations(ctx: Context, judge: Judge) -> None:
    path, etag = etag_of(ctx, judge)
    first = ctx.alone(judge, SubRequest("GET", path))
    modified = first.get("Last-Modified")
    if not modified:
        judge.not_applicable(f"GET {path} alone carries no Last-Modified to send back")
    cases = _cases(path, etag, modified)
    subs = [sub for sub, _ in cases]
    env = expect_processed(ctx, judge, ctx.batch(judge, subs), [s.content_id for s in subs])
    for i, (sub, want) in enumerate(cases):
        fields = "; ".join(f"{n}: {v}" for n, v in sub.headers)
        # MB-PROC-9: "evaluate the conditional header fields of a part (RFC 9110 §13) exactly
        # as for the standalone request", and its note: "the order of §13.2.2 ... a server
        # that evaluates a field otherwise breaks this requirement in its parts even when it
        # makes the same mistake for the request sent alone".
        judge.expect(
            f"part {i} ({sub.method} with {fields})", part_status(env, i), {want}, "MB-PROC-9"
        )


@checker(
    "conditional-unsafe-parts",
    ("MB-PROC-9",),
    "PUT, PATCH and DELETE parts whose If-Match, If-None-Match or If-Unmodified-Since fails give the status they get alone (412, or 405 for a method the member lacks), and change nothing.",
    profile="conditional",
    state=State.WRITES_IN_SANDBOX,
)
def conditional_unsafe_parts(ctx: Context, judge: Judge) -> None:
    path, doc = new_member(ctx, judge)
    json_type = ("Content-Type", "application/json")
    subs = [
        SubRequest("PUT", path, (json_type, ("If-Match", NO_SUCH)), doc),
        SubRequest("PATCH", path, (json_type, ("If-Match", NO_SUCH)), doc),
        SubRequest("PUT", path, (json_type, ("If-Unmodified-Since", EPOCH)), doc),
        SubRequest("DELETE", path, (("If-None-Match", "*"),)),
        SubRequest("DELETE", path, (("If-Match", NO_SUCH),)),
    ]
    alone = [ctx.alone(judge, s).status for s in subs]
    # RFC 9110 §13.2.1: a server evaluates preconditions only when the request without them
    # would be answered 2xx or 412, so a method the member does not offer is 405 alone, not
    # 412. What each request gets alone is learnt from the same server; only a write that
    # went through alone (2xx) leaves nothing to compare.
    if any(200 <= s < 300 for s in alone):
        judge.setup_error(f"alone the failing preconditions answered {alone}: a write went through")
    if 412 not in alone:
        judge.not_applicable(f"alone no failing precondition answered 412 ({alone})")
    env = expect_processed(ctx, judge, ctx.batch(judge, subs), [s.content_id for s in subs])
    for i, sub in enumerate(subs):
        fields = ", ".join(n for n, _ in sub.headers if n != "Content-Type")
        # MB-PROC-9: "evaluate the conditional header fields of a part (RFC 9110 §13) exactly as
        # for the standalone request, answering ... 412 (Precondition Failed) in the part when
        # the standalone request would get them".
        judge.expect(f"part {i} ({sub.method} with {fields})", part_status(env, i), {alone[i]})
    after = ctx.alone(judge, SubRequest("GET", path))
    judge.expect("member still there after the failed DELETE parts", after.status, {200})
