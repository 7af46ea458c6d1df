"""Reference syntax in batches that do not ask for references (spec 7.7, MB-PROC-18).

Theory of operation: MB-PROC-18 ends "in a batch whose `Batch-Mode` does not list
`references`, `$(` has no special meaning", and MB-PROC-19 refuses only "a batch that lists
`references`". A server that reads references whatever the mode substitutes `$(0:ETag)`, skips
a part whose `$(0)` names no `Location` (MB-PROC-20), refuses a part naming itself or a later
part (MB-PROC-19), or turns the escape `$$(` into `$(`, and each of these changes what a
resource receives. So every spelling spec 7.7 gives a meaning is sent where it has none: a
reference to an earlier part, to the part itself, to a later part, to a part that does not
exist, with and without a field name (`$(0)`, `$(0:ETag)`, `$(1:Location)`), the escape `$$(`,
`$$`, a lone `$(` and `$)`, and `$($(0))` nested, in the query of the echo's target, in the path
of a target, in header field values and in the content of a part. Each part must reach its
resource exactly as written, which the suite sees by comparing it with the same request sent
alone (spec 3.2.4): the echo's description by `core.echo.differences`, any other answer status,
fields and content (`_shared.alone`). The Content-Id echo of each part is the one written
(MB-RESP-3 in multipart/mixed; MB-MULTI-6 and the JSON schema in the 207 forms, whose href is
the written target resolved, no reference substituted).

- `reference-syntax-plain-without-mode`: the batch carries no `Batch-Mode`, and is sent in
  every form the target declares;
- `reference-syntax-plain-in-other-modes`: the batch asks for another mode: `atomic` where the
  target implements it, in every form, without the part whose target is unknown (an atomic batch
  commits only when every part succeeds), and a mode no server implements, which MB-PROC-17
  answers 501 whatever the parts hold (a 400 there is the references read as faults).

Both run on every target, with the references profile or without: the rule binds a server that
offers references as much as one that does not.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.alone import (
    expect_same_as_alone,
    expect_same_request,
    readable_echoes,
    role_of,
)
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.echo import read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import answers_in_every_form
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

#: The echo's query: `$`, `(`, `)` and `:` are sub-delims or allowed in a query (RFC 3986 §3.4).
#: Part 1 holds it, so `$(1)` names the part itself and `$(2)` a later one.
QUERY = (
    "ref=$(0)&field=$(0:ETag)&loc=$(1:Location)&self=$(1)&later=$(2)&none=$(9)"
    "&esc=$$(0)&dd=$$&open=$(&close=$)&nested=$($(0))"
)
#: Header field values holding each spelling, one field each, so that a difference names it.
FIELDS: tuple[tuple[str, str], ...] = (
    ("X-Mb-Earlier", "$(0)"),
    ("X-Mb-Field", "$(0:ETag)"),
    ("X-Mb-Location", "$(1:Location)"),
    ("X-Mb-Escape", "a$$(0)"),
    ("X-Mb-Dollars", "$$ $( $) $ $$(9:ETag)"),
    ("X-Mb-Nested", "$($(0))"),
    ("X-Mb-Self", "$(1)"),
    ("X-Mb-Later", "$(2:ETag)"),
)
#: A relative reference whose path holds an earlier part, an escape, the part itself (part 2),
#: a later part and a field name; the first segment has no colon (RFC 3986 §4.2).
PATH = "$(0)/$$(1)/$(2)/$(3)/$(0:ETag)/$($(0))"
#: Part content holding every spelling; content never holds references (spec 7.7).
CONTENT = b"$(0) $(0:ETag) $(1:Location) $$(0) $$ $( $) $($(0)) $(3) $(4)"
CONTENT_FIELDS = (("Content-Type", "text/plain"), ("X-Mb-Content", "$$(0) $(3)"))
#: A mode no server implements.
UNKNOWN_MODE = "mb-suite-no-such-mode"


def _first(ctx: Context, judge: Judge) -> SubRequest:
    """Part 0: a resource with an `ETag` where the target declares one, so that `$(0:ETag)`
    would resolve on a server that substitutes it."""
    first = ctx.target.resource("etag_resource") or ctx.resource(judge, "ok")
    return SubRequest("GET", ctx.path(first))


def _parts(ctx: Context, judge: Judge, *, path: bool) -> list[SubRequest]:
    """The batch: the part named by `$(0)`, the echo with reference syntax in its query and
    fields, (with `path`) a target whose path holds it, and a POST of content holding it."""
    echo = ctx.path(ctx.resource(judge, "echo"))
    subs = [_first(ctx, judge), SubRequest("GET", f"{echo}?{QUERY}", FIELDS)]
    if path:
        subs.append(SubRequest("GET", PATH))
    subs.append(SubRequest("POST", f"{echo}?mb-content=1", CONTENT_FIELDS, CONTENT))
    return subs


def _alone(ctx: Context, judge: Judge, subs: list[SubRequest]) -> list[Response]:
    return [ctx.alone(judge, sub) for sub in subs]


def _steady(
    ctx: Context, judge: Judge, subs: list[SubRequest], alone: list[Response]
) -> list[bool]:
    """Whether each sub-request's content is the same when sent alone a second time: a
    resource may answer each request with content of its own (a 404 page carrying a trace id
    or a time), which no part can be held to."""
    return [
        role_of(ctx, sub.target) == "echo" or ctx.alone(judge, sub).body == first.body
        for sub, first in zip(subs, alone, strict=True)
    ]


def _expect_as_written(
    ctx: Context,
    judge: Judge,
    what: str,
    subs: list[SubRequest],
    alone: list[Response],
    headers: tuple[tuple[str, str], ...],
) -> None:
    """Send `subs` with `headers` in every form; each part reaches its resource as written."""
    steady = _steady(ctx, judge, subs, alone)
    # MB-PROC-18: "in a batch whose `Batch-Mode` does not list `references`, `$(` has no
    # special meaning"; MB-PROC-19 refuses only "a batch that lists `references`": these are
    # valid parts, and the batch is processed.
    for media, _, entries in answers_in_every_form(ctx, judge, subs, headers, refused="MB-PROC-18"):
        for i, (sub, entry, single) in enumerate(zip(subs, entries, alone, strict=True)):
            label = f"{what} {media} part {i} ({sub.method} {sub.target})"
            # A part holding `$(0)` is no reference to resolve (MB-PROC-20 would skip it), and
            # one naming itself or a later part no fault (MB-PROC-19): it runs as alone.
            judge.expect(f"{label} outcome", entry.outcome, {None}, "MB-PROC-18")
            judge.expect(f"{label} status", entry.status, {single.status}, "MB-PROC-18")
            if entry.href is not None:
                # MB-MULTI-6: "`DAV:href` with the resolved target"; the target the part ran is
                # the one written, no reference substituted in it (MB-PROC-18).
                judge.expect(f"{label} href", entry.href, {ctx.resolve(sub.target)}, "MB-PROC-18")
            if role_of(ctx, sub.target) == "echo":
                _expect_echo_as_written(ctx, judge, label, sub, entry.body, single.body)
            else:
                expect_same_as_alone(
                    ctx,
                    judge,
                    label,
                    sub,
                    (entry.status, entry.fields, entry.body),
                    (single.status, single.headers, single.body),
                    content=steady[i],
                )


def _expect_echo_as_written(
    ctx: Context, judge: Judge, label: str, sub: SubRequest, got: bytes, alone: bytes
) -> None:
    (single,) = readable_echoes(judge, alone)
    seen = read_echo(got)
    if seen is None:
        # The echo described the request alone: a part that did not reach it (skipped, refused)
        # or reached another resource was not run as written.
        judge.expect_true(
            f"{label} reached the echo",
            False,
            f"{got[:80]!r}",
            "the echo's description of the request",
            "MB-PROC-18",
        )
        return
    # MB-PROC-18: `$(` "has no special meaning": the target, each field value and the content
    # reach the resource octet for octet as written.
    judge.expect(f"{label} target received", seen.target, {ctx.resolve(sub.target)}, "MB-PROC-18")
    for name, value in sub.headers:
        judge.expect(f"{label} {name} received", seen.get_all(name), [[value]], "MB-PROC-18")
    judge.expect(f"{label} content received", seen.body, {sub.body}, "MB-PROC-18")
    # Spec 3.2.4: the sub-request is "the same request sent alone" (MB-PROC-18: "run the part
    # as the same request sent alone").
    expect_same_request(ctx, judge, label, seen, single, "MB-PROC-18")


@checker(
    "reference-syntax-plain-without-mode",
    ("MB-PROC-18", "MB-PART-8"),
    "Without Batch-Mode, references to an earlier part, the part itself, a later part or none, with field names, escaped, nested or unbalanced, in a target's path and query, field values and content, reach the resource as written, as the same request alone, in every form.",
    state=State.READ_ONLY,
)
def reference_syntax_plain(ctx: Context, judge: Judge) -> None:
    subs = _parts(ctx, judge, path=True)
    _expect_as_written(ctx, judge, "no Batch-Mode:", subs, _alone(ctx, judge, subs), ())


@checker(
    "reference-syntax-plain-in-other-modes",
    ("MB-PROC-18", "MB-PROC-17"),
    "Under Batch-Mode: atomic reference syntax in targets, field values and content reaches the resource as written in every form, and a batch holding it that names an unknown mode is answered 501, not refused for it.",
    state=State.READ_ONLY,
)
def reference_syntax_plain_in_other_modes(ctx: Context, judge: Judge) -> None:
    # Every part of an atomic batch must succeed to commit, so no part whose target is unknown.
    subs = _parts(ctx, judge, path=False)
    if ctx.target.claims("atomic"):
        alone = _alone(ctx, judge, subs)
        if all(r.status < 300 for r in alone):
            atomic = (("Batch-Mode", "atomic"),)
            _expect_as_written(ctx, judge, "Batch-Mode: atomic:", subs, alone, atomic)
        else:
            # MB-TEST-1 and MB-TEST-2 give these 200; test-resource checks judge it.
            judge.note("a part fails alone, so the atomic batch would not commit: not sent")
    resp = ctx.batch(judge, subs, headers=(("Batch-Mode", UNKNOWN_MODE),))
    # MB-PROC-17: "MUST answer 501 (Not Implemented), before any part runs, a batch request that
    # lists a mode it does not implement"; the parts are valid whatever `$(` they hold
    # (MB-PROC-18: "`$(` has no special meaning"), so a 400 is the reference syntax read as a
    # fault.
    judge.expect(
        f"status with Batch-Mode: {UNKNOWN_MODE}",
        resp.status,
        {501},
        "MB-PROC-18" if resp.status == 400 else "MB-PROC-17",
    )
