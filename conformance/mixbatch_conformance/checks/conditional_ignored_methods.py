"""Conditional fields on OPTIONS parts are ignored (spec 7.6, RFC 9110 §13.2.1).

Theory of operation: MB-PROC-9 has a server evaluate a part's conditional fields as RFC 9110
§13 does, and §13.2.1 says when that evaluation happens at all: "a server MUST ignore the
conditional request header fields defined by this specification when received with a request
method that does not involve the selection or modification of a selected representation, such
as CONNECT, OPTIONS, or TRACE". A server that runs one precondition routine before every method
answers an OPTIONS whose If-Match fails 412, or one whose If-None-Match matches 304. The check
learns what OPTIONS of the `etag_resource` and of `ok` get alone, without conditional fields,
and sends parts of OPTIONS with each field set to a value that would fail or match on a GET:
each part must get the status its OPTIONS gets without them. An OPTIONS the server answers
other than 2xx alone leaves nothing to judge for that resource (its preconditions would be
ignored anyway, §13.2.1's first rule).
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.precondition_values import EPOCH, NO_SUCH_ETAG
from mixbatch_conformance.checks._shared.requests import etag_of
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

#: Long after any Last-Modified a resource can carry: a GET with it would be 304.
LATE = "Fri, 31 Dec 9999 23:59:59 GMT"


def _fields(etag: str) -> list[tuple[tuple[str, str], ...]]:
    """Conditional fields each of which would fail a GET (412) or match it (304)."""
    return [
        (("If-Match", NO_SUCH_ETAG),),
        (("If-Unmodified-Since", EPOCH),),
        (("If-None-Match", "*"),),
        (("If-None-Match", etag),),
        (("If-Modified-Since", LATE),),
    ]


@checker(
    "conditional-fields-ignored-on-options",
    ("MB-PROC-9",),
    "OPTIONS parts carrying If-Match, If-Unmodified-Since, If-None-Match or If-Modified-Since values that would fail or match a GET get the status OPTIONS gets without them: RFC 9110 §13.2.1 has a server ignore conditional fields on OPTIONS.",
    profile="conditional",
    state=State.READ_ONLY,
)
def conditional_fields_ignored_on_options(ctx: Context, judge: Judge) -> None:
    path, etag = etag_of(ctx, judge)
    ok = ctx.path(ctx.resource(judge, "ok"))
    cases: list[tuple[SubRequest, int]] = []
    for target in (path, ok):
        plain = ctx.alone(judge, SubRequest("OPTIONS", target)).status
        if not 200 <= plain < 300:
            judge.note(f"OPTIONS {target} alone answered {plain}: not judged")
            continue
        cases += [(SubRequest("OPTIONS", target, fields), plain) for fields in _fields(etag)]
    if not cases:
        judge.not_applicable("the target answers OPTIONS of neither resource with a 2xx alone")
    subs = [sub for sub, _ in cases]
    env = expect_processed(ctx, judge, ctx.batch(judge, subs), [s.content_id for s in subs])
    for i, (sub, plain) in enumerate(cases):
        field = "; ".join(f"{n}: {v}" for n, v in sub.headers)
        # MB-PROC-9: a part's conditional fields are evaluated "exactly as for the standalone
        # request" by RFC 9110 §13, whose §13.2.1 has a server "ignore the conditional request
        # header fields ... with a request method that does not involve the selection or
        # modification of a selected representation, such as CONNECT, OPTIONS, or TRACE".
        judge.expect(
            f"part {i} (OPTIONS {sub.target} with {field})",
            part_status(env, i),
            {plain},
            "MB-PROC-9",
        )
