"""A batch that creates a resource does not point at it from its header section (spec 12, MB-SEC-2).

Theory of operation: MB-SEC-2 forbids copying "a header field of a sub-response into the
header section of the batch response". The fields a creation answers with (Location,
Content-Location, ETag, Last-Modified) are the ones a server is most tempted to lift to the
top level when the batch created one resource, so that the batch "points at it as a 201
would". `top-level-fields-independent-of-parts` judges read-only parts; this check writes.
It POSTs the target's `sandbox.member` document alone to learn which fields a creation
answers with, then sends, in every form the target declares, a batch of one `ok` GET twice
(the server's own top-level values, a value changing between the two left unjudged) and the
same batch with the POST as one more part, and as its only part: for every field the
creation answers with, the top-level values must be those of the batch without the POST. Each
form is sent plain, under batch-on-error=stop and as an atomic batch where the target declares
them: an atomic batch that commits is one transaction, and a server may take its one creation
for the batch's own. The members it creates are deleted when the check ends.
"""

from __future__ import annotations

import itertools
import json
from urllib.parse import urljoin

from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import MULTISTATUS_FORMS
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

#: Fields every response writes for itself whatever it answers (framing, media type, date).
OWN_FIELDS = frozenset(
    {"content-type", "content-length", "transfer-encoding", "connection", "keep-alive", "date"}
)
#: Fields a creation commonly answers with, judged even when the POST alone lacks them.
CREATION_FIELDS = ("location", "content-location", "etag", "last-modified")


def _modes(ctx: Context) -> list[tuple[str, tuple[tuple[str, str], ...]]]:
    """The processing modes the target declares: plain, the stop policy, atomic. A batch
    that commits as one transaction is no more a single write than a plain one."""
    out: list[tuple[str, tuple[tuple[str, str], ...]]] = [("plain", ())]
    if ctx.target.claims("error-policy"):
        out.append(("stop", (("Prefer", "batch-on-error=stop"),)))
    if ctx.target.claims("atomic"):
        out.append(("atomic", (("Batch-Mode", "atomic"),)))
    return out


def _top(resp: Response, name: str) -> tuple[str, ...]:
    return tuple(v for n, v in resp.headers if n.lower() == name)


@checker(
    "top-level-fields-without-created-resource",
    ("MB-SEC-2",),
    "A batch whose one part created a resource (201) carries none of that part's Location, Content-Location, ETag or Last-Modified in its header section, in every declared form, plain, under the stop policy and atomic: the top-level values are those of the same batch without the POST.",
    state=State.WRITES_IN_SANDBOX,
)
def top_level_fields_without_created_resource(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    member = ctx.target.sandbox_member
    if member is None:
        judge.not_applicable("the target declares no sandbox.member document to write")
    post = SubRequest(
        "POST", coll, (("Content-Type", "application/json"),), json.dumps(member).encode()
    )
    made = ctx.alone(judge, post)
    if made.status != 201:
        judge.not_applicable(f"POST {coll} of sandbox.member alone answered {made.status}")
    volatile = {v.lower() for v in ctx.target.volatile_headers} | OWN_FIELDS
    names = sorted(({n.lower() for n, _ in made.headers} | set(CREATION_FIELDS)) - volatile)
    ok, _ = ok_and_not_found(ctx, judge)
    readers = {accept: read for profile, accept, read, _ in MULTISTATUS_FORMS}
    accepts: list[str | None] = [None] + [
        accept for profile, accept, _, _ in MULTISTATUS_FORMS if ctx.target.claims(profile)
    ]
    for (mode, mode_head), accept in itertools.product(_modes(ctx), accepts):
        head = (*mode_head, *((("Accept", accept),) if accept else ()))
        form = f"{mode}, {accept or 'multipart/mixed'}"
        bases = [ctx.batch(judge, [ok], headers=head) for _ in range(2)]
        for parts, shape in (([ok, post], "beside a GET"), ([post], "as the only part")):
            resp = ctx.batch(judge, parts, headers=head)
            if accept is not None:
                # The run deletes what a multipart answer says it created; a 207 form names
                # its created member in an entry, which is read here to the same end.
                entries, _ = readers[accept](resp.body)
                for entry in entries:
                    if entry.status == 201:
                        location = next(
                            (v for n, v in entry.fields if n.lower() == "location"), None
                        )
                        if location:
                            ctx.alone(judge, SubRequest("DELETE", urljoin(coll, location)))
            if resp.status != bases[0].status:
                judge.note(f"{form}: the batch with the POST {shape} answered {resp.status}")
                continue
            for name in names:
                before = {_top(b, name) for b in bases}
                if len(before) != 1:
                    continue  # the server's own field, changing from one batch to the next
                # MB-SEC-2: "MUST NOT copy a header field of a sub-response into the header
                # section of the batch response": the Location (or ETag, ...) of the one
                # resource the batch created stays in its part or entry.
                judge.expect(
                    f"{form} top-level {name} with a POST {coll} part {shape}",
                    _top(resp, name),
                    before,
                    "MB-SEC-2",
                )
