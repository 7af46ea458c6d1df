"""Part fields as the resource meets them: names in any case, and nothing the part did not carry.

Theory of operation: MB-PART-8 makes "a request part's header fields other than `Http-Method`
and `Content-Id`" the sub-request's header fields. Field names are case-insensitive (RFC 9110
§5.1), so a part that spells a name in lower, upper or mixed case carries the same field, and
the resource must act on it as it acts on the same request sent alone, which an HTTP stack
hands over whatever case the client wrote. A receiver that keys fields by the name as written,
while its resources look names up in one canonical case, leaves a precondition unseen: the
`etag_resource` then answers 200 where alone it answers 304 or 412. The same sentence gives
the sub-request no field the part lacks: a part with content and no `Content-Type` reaches the
`echo` without one (no MIME default of RFC 2045 is added), as the same request alone does.
Both halves are judged against the same request alone, never against a status the suite
assumes, and each is N/A when its resource is not declared. A target that claims the
conditional profile answers a precondition part otherwise than alone under MB-PROC-9 as well.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.alone import expect_same_request, readable_echoes
from mixbatch_conformance.checks._shared.requests import etag_of
from mixbatch_conformance.checks._shared.spellings import spellings
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

#: An entity tag no representation has, so If-Match with it fails (RFC 9110 §13.1.1).
NO_SUCH_TAG = '"mb-suite-no-such-tag"'


@checker(
    "part-field-names-any-case",
    ("MB-PART-8", "MB-PROC-9"),
    "Preconditions a part spells in lower, upper or mixed case act on the etag_resource as the same request alone, and parts with content but no Content-Type (or with one spelled in other case) reach the echo with exactly the fields the same request alone has.",
    state=State.READ_ONLY,
)
def part_field_names_any_case(ctx: Context, judge: Judge) -> None:
    subs: list[SubRequest] = []
    conditional = ctx.target.claims("conditional")
    etag_path: str | None = None
    if ctx.target.resource("etag_resource"):
        path, etag = etag_of(ctx, judge)
        etag_path = path
        for name, value in (("If-None-Match", etag), ("If-Match", NO_SUCH_TAG)):
            for spelled in spellings(name):
                subs.append(SubRequest("GET", path, ((spelled, value),)))
        subs.append(SubRequest("HEAD", path, (("if-none-match", etag),)))
    echo = ctx.target.resource("echo")
    if echo:
        where = ctx.path(echo)
        subs += [
            # No Content-Type: the sub-request carries none, as alone.
            SubRequest("POST", f"{where}?mb-untyped=post", (), b"mb-suite untyped content"),
            SubRequest("PUT", f"{where}?mb-untyped=put", (), b"{}", False),
            # A content field in other case: the same field.
            SubRequest("PUT", f"{where}?mb-typed=lower", (("content-type", "text/plain"),), b"x"),
            SubRequest("PUT", f"{where}?mb-typed=upper", (("CONTENT-TYPE", "text/plain"),), b"x"),
        ]
    if not subs:
        judge.not_applicable("the target declares neither an etag_resource nor an echo")
    alone = [ctx.alone(judge, s) for s in subs]
    resp = ctx.batch(judge, subs)
    # MB-PART-8: the fields are the sub-request's, whatever case names them; none is a fault.
    judge.require("top-level status", resp.status, {200}, "MB-PART-8")
    env = expect_processed(ctx, judge, resp, [s.content_id for s in subs], (), "MB-PART-8")
    for i, (sub, single) in enumerate(zip(subs, alone, strict=True)):
        label = f"part {i} ({sub.method} {sub.target} {', '.join(n for n, _ in sub.headers)})"
        # MB-PART-8: "take a request part's header fields other than `Http-Method` and
        # `Content-Id` as the sub-request's header fields": a name in any case is the field
        # (RFC 9110 §5.1), so the resource answers as it answers the same request alone.
        judge.expect(f"{label} status", part_status(env, i), {single.status}, "MB-PART-8")
        if conditional and sub.target == etag_path:
            # MB-PROC-9: "evaluate the conditional header fields of a part (RFC 9110 §13)
            # exactly as for the standalone request", whatever the case of their names.
            judge.expect(
                f"{label} status, conditional", part_status(env, i), {single.status}, "MB-PROC-9"
            )
        if echo is None or "mb-typed" not in sub.target.replace("untyped", "typed"):
            continue
        mine, theirs = readable_echoes(judge, env.parts[i].body, single.body)
        # MB-PART-8: the part's fields, "in order", and no other: no Content-Type the part
        # did not carry (compared as spec 3.2.4 says).
        expect_same_request(ctx, judge, label, mine, theirs, "MB-PART-8")
        if not sub.headers:
            judge.expect(
                f"{label} Content-Type received", mine.get_all("Content-Type"), [[]], "MB-PART-8"
            )
