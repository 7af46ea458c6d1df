"""Parts whose sub-response has no content carry exactly the fields it has alone (spec 3.3).

Theory of operation: a server that fills in what a sub-response left out (a Content-Type
sniffed from an empty body, a Content-Length of 0 written as a field of the sub-response, a
default charset) does it where there is nothing to describe: 204 and 304 answers, a HEAD, an
empty 200. MB-RESP-4 makes the part carry "the sub-response's header fields", no more, so each
such part is compared with the same request sent alone (spec 3.2.4: equal fields after leaving
out the fields MB-RESP-4 drops, `Date` and the declared volatile fields), in every form the
target declares: a field the alone answer lacks is one the server made up. The status
resource's 204 and 304 parts carry no content either: alone, HTTP framing hides any content the
resource built for them, so a part is where it shows, and it is judged under MB-TEST-6 ("with no
content for 204 and 304") as well as MB-RESP-4 (`_shared.status_parts`).
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.alone import expect_same_as_alone
from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.checks._shared.status_parts import expect_status_resource_empty
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import answers_in_every_form

__all__: list[str] = []

#: Status-resource codes answered with no content (MB-TEST-6: "no content for 204 and 304").
NO_CONTENT_CODES = (204, 304)


def _parts(ctx: Context, judge: Judge) -> list[SubRequest]:
    """Requests whose answers alone carry no content, from the resources the target declares."""
    ok, nf = ok_and_not_found(ctx, judge)
    subs = [SubRequest("HEAD", ok.target), SubRequest("HEAD", nf.target)]
    status = ctx.target.resource("status")
    if status:
        subs += [
            SubRequest("GET", ctx.path(status.replace("{code}", str(c)))) for c in NO_CONTENT_CODES
        ]
    etag_path = ctx.target.resource("etag_resource")
    if etag_path:
        path = ctx.path(etag_path)
        subs.append(SubRequest("HEAD", path))
        etag = ctx.alone(judge, SubRequest("GET", path)).get("ETag")
        if etag:
            subs.append(SubRequest("GET", path, (("If-None-Match", etag),)))
    random = ctx.target.resource("random")
    if random and "{n}" in random:
        subs.append(SubRequest("GET", ctx.path(random.replace("{n}", "0"))))
    return subs


@checker(
    "no-content-parts-as-alone",
    ("MB-RESP-4", "MB-TEST-6"),
    "Parts answered with no content (HEAD, 204, 304 from the status resource and from If-None-Match, an empty 200) carry the header fields the same request gets alone, no Content-Type or other field added, in every declared form.",
    state=State.READ_ONLY,
)
def no_content_parts_as_alone(ctx: Context, judge: Judge) -> None:
    subs = _parts(ctx, judge)
    status = ctx.target.resource("status")
    # The status resource's parts, whose 204 and 304 MB-TEST-6 fixes "with no content".
    fixed = (
        {ctx.path(status.replace("{code}", str(c))) for c in NO_CONTENT_CODES} if status else set()
    )
    alone = []
    for sub in subs:
        resp = ctx.alone(judge, sub)
        alone.append((resp.status, resp.headers, b"" if sub.method == "HEAD" else resp.body))
    for media, _, entries in answers_in_every_form(ctx, judge, subs):
        for i, (sub, entry) in enumerate(zip(subs, entries, strict=True)):
            # MB-RESP-4: a response part "carries the sub-response's header fields, less
            # hop-by-hop and framing fields": a field the sub-response does not have alone
            # (a Content-Type sniffed from no content) is not one of them.
            label = f"{media} part {i} ({sub.method} {sub.target})"
            expect_same_as_alone(
                ctx, judge, label, sub, (entry.status, entry.fields, entry.body), alone[i]
            )
            if sub.method == "GET" and sub.target in fixed:
                expect_status_resource_empty(judge, label, entry.status, entry.body)
