"""The batch response's header section does not follow its parts' fields (spec 12, MB-SEC-2).

Theory of operation: MB-SEC-2 forbids copying "a header field of a sub-response into the
header section of the batch response". A copy need not be verbatim: a server that merges the
parts' Cache-Control into its own (the most restrictive wins), adds a part's Vary, Expires or
Set-Cookie, or lowers its max-age to a part's, has let a sub-response's field into the header
section all the same. The spec does not fix the server's own top-level fields, so they are
learnt from the same server: a batch of one plain part (`not_found` or `ok`), sent twice (a
field whose value changes between the two is the server's own volatile field and is left
unjudged), then the same batch with one more part whose answer alone carries fields (the echo,
the ETag resource, the collection, the status resource's 204, 304 and 500, a HEAD of `ok`, and
a path no resource is routed at, whose miss a framework's router answers with fields of its
own). For every field name that part's answer carries, the batch's top-level values must be
those of the batch without it, in every form the target declares. The plain part compared
with is one whose answer alone does not carry that name (the one with fewer fields first): a
server that copies a miss's field would otherwise show it in the batch compared with too, and
a name both plain parts carry alone is left unjudged.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.requests import ok_and_not_found, unrouted
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import MULTISTATUS_FORMS
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

#: Fields every batch response writes for itself whatever its parts (framing, its own media
#: type and date), which a part's answer also carries under the same names.
OWN_FIELDS = frozenset(
    {
        "content-type",
        "content-length",
        "transfer-encoding",
        "connection",
        "keep-alive",
        "date",
        "trailer",
    }
)
#: Resources whose answer alone carries fields besides the framing ones.
ROLES = ("echo", "etag_resource", "collection", "not_found")
#: Status-resource codes whose answers carry fields of their own.
STATUS_CODES = (204, 304, 500)


def _top(resp: Response, name: str) -> tuple[str, ...]:
    return tuple(v for n, v in resp.headers if n.lower() == name)


def _carriers(ctx: Context, judge: Judge) -> list[SubRequest]:
    ok, _ = ok_and_not_found(ctx, judge)
    subs = [SubRequest("HEAD", ok.target)]
    for role in ROLES:
        path = ctx.target.resource(role)
        if path:
            subs.append(SubRequest("GET", ctx.path(path)))
    status = ctx.target.resource("status")
    if status:
        subs += [
            SubRequest("GET", ctx.path(status.replace("{code}", str(c)))) for c in STATUS_CODES
        ]
    # The router's own miss: a framework may answer it with fields no resource writes.
    subs.append(unrouted(ctx))
    return subs


@checker(
    "top-level-fields-independent-of-parts",
    ("MB-SEC-2",),
    "A batch's top-level header fields are those of the same batch without the part: no field a part's answer carries (Cache-Control, Vary, Expires, ETag, Set-Cookie, the X-Content-Type-Options of a router's miss, ...) changes the header section, merged or copied, in every declared form.",
    state=State.READ_ONLY,
)
def top_level_fields_independent_of_parts(ctx: Context, judge: Judge) -> None:
    ok, nf = ok_and_not_found(ctx, judge)
    volatile = {v.lower() for v in ctx.target.volatile_headers} | OWN_FIELDS
    carriers = [(sub, ctx.alone(judge, sub)) for sub in _carriers(ctx, judge)]

    def carried(resp: Response) -> set[str]:
        return {n.lower() for n, _ in resp.headers} - volatile

    # The batch without the part holds a plain part whose answer alone carries the fewest
    # fields, and for each field judged one that does not carry it: a server copying that
    # field would otherwise show it in the batch compared with as well.
    plains = sorted(
        ((sub, carried(ctx.alone(judge, sub))) for sub in (nf, ok)), key=lambda p: len(p[1])
    )
    accepts: list[str | None] = [None] + [
        accept for profile, accept, _, _ in MULTISTATUS_FORMS if ctx.target.claims(profile)
    ]
    judged = 0
    for accept in accepts:
        head = (("Accept", accept),) if accept else ()
        form = accept or "multipart/mixed"
        bases: dict[str, list[Response]] = {}
        withs: dict[tuple[str, str, str], Response] = {}
        for sub, alone in carriers:
            for name in sorted(carried(alone)):
                plain = next((p for p, names in plains if name not in names), None)
                if plain is None:
                    judge.note(f"{form}: {name} is carried alone by every plain part; unjudged")
                    continue
                if plain.target not in bases:
                    bases[plain.target] = [
                        ctx.batch(judge, [plain], headers=head) for _ in range(2)
                    ]
                before_resps = bases[plain.target]
                key = (plain.target, sub.method, sub.target)
                if key not in withs:
                    withs[key] = ctx.batch(judge, [plain, sub], headers=head)
                resp = withs[key]
                if resp.status != before_resps[0].status:
                    judge.note(f"{form}: with {sub.method} {sub.target} answered {resp.status}")
                    continue
                before = {_top(b, name) for b in before_resps}
                if len(before) != 1:
                    continue  # the server's own field, changing from one batch to the next
                # MB-SEC-2: "MUST NOT copy a header field of a sub-response into the header
                # section of the batch response": the field the part carries leaves the
                # batch's own value as it is without the part.
                judge.expect(
                    f"{form} top-level {name} with a {sub.method} {sub.target} part",
                    _top(resp, name),
                    before,
                    "MB-SEC-2",
                )
                judged += 1
    if not judged:
        judge.not_applicable(
            "no field a part's answer carries alone could be judged: each is carried by the "
            "plain parts' answers too, or the batch with the part was answered otherwise"
        )
