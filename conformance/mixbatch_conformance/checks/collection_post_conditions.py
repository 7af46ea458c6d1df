"""Conditional POST parts to the sandbox collection (spec 7.6, RFC 9110 §13.1.1, §13.1.2).

Theory of operation: the target of a POST is the collection itself, not the member it creates
(RFC 9110 §9.3.3), and a collection that answers GET with 200 or 204 has a current
representation. RFC 9110 §13.1.2: If-None-Match `*` "is false if the origin server has a
current representation for the target resource", and §13.1.1: If-Match is false when none of
its tags matches, `*` being true where a representation exists; a false condition on a method
other than GET or HEAD is answered 412 and "the origin server MUST NOT perform the requested
method". MB-PROC-9 holds a part to that evaluation ("exactly as for the standalone request",
RFC 9110 §13's own, even where the server makes the same mistake alone), so a POST part with
If-None-Match: * or with an If-Match naming a tag no representation carries is 412 and creates
no member, and one with If-Match: * creates one (201, MB-TEST-3). Where the representation a
POST without Accept selects (the one a GET of the collection without Accept answers) carries a
`Last-Modified`, an If-Unmodified-Since of a date long before it is false too (§13.1.4: the
method is not performed "if the selected representation's last modification date is more
recent than the date provided"), and one of a date long after it is true.

The check builds its own state: it creates a member of its own first, so the collection holds
at least one member and a GET of it answers 200 (or 204), which it confirms. Each POST writes
the target's `sandbox.member` with a fresh marker in its string members; after the batches a
collection retrieval of the sandbox must hold the marker of every POST that was to run and none
of those that were to be refused (when the listing shows no marker of the POSTs that ran, it
cannot show creation, and only the statuses are judged). The batches are sent in every
declared form, plain, under batch-on-error=stop and atomic: a 412 is a failing part there
(spec 7.4), so each refused POST is sent in a batch of its own in those modes.

Which of the collection's representations an If-Match naming a current tag is compared with
is the one the POST's Accept selects (spec 7.6, RFC 9110 §3.2), which
`conditional-post-compares-selected-representation` judges; no case here names a tag the
collection carries. A conditional POST sent alone is outside the spec
(MB-PROC-9 binds parts); its status is noted, not judged.
"""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit

from mixbatch_conformance.checks._shared.requests import new_member
from mixbatch_conformance.checks._shared.sandbox_marks import marked_post
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import answers_in_every_form

__all__: list[str] = []

#: An entity tag no representation of any collection carries.
FOREIGN_TAG = '"mb-suite-no-such-collection-tag"'
#: A conditional POST: what it carries, its fields, and its status.
Case = tuple[str, tuple[tuple[str, str], ...], int]
#: (what, the fields, the status RFC 9110 §13 gives a POST to an existing collection). Every
#: representation the collection has is a current one, whichever an Accept would select.
CASES: tuple[Case, ...] = (
    ("If-None-Match: *", (("If-None-Match", "*"),), 412),
    (
        "If-None-Match: * and Accept: multipart/mixed",
        (("Accept", "multipart/mixed"), ("If-None-Match", "*")),
        412,
    ),
    ("If-Match: a foreign tag", (("If-Match", FOREIGN_TAG),), 412),
    ("If-Match: *", (("If-Match", "*"),), 201),
)
#: (what, the fields, the status) for a collection whose selected representation has a date.
DATED_CASES: tuple[Case, ...] = (
    ("If-Unmodified-Since: 2000", (("If-Unmodified-Since", "Sat, 01 Jan 2000 00:00:00 GMT"),), 412),
    ("If-Unmodified-Since: 2100", (("If-Unmodified-Since", "Fri, 01 Jan 2100 00:00:00 GMT"),), 201),
)


def _field(fields: tuple[tuple[str, str], ...], name: str) -> str | None:
    return next((v for n, v in fields if n.lower() == name.lower()), None)


def _modes(ctx: Context) -> list[tuple[str, tuple[tuple[str, str], ...]]]:
    modes: list[tuple[str, tuple[tuple[str, str], ...]]] = [("plain", ())]
    if ctx.target.claims("error-policy"):
        modes.append(("stop", (("Prefer", "batch-on-error=stop"),)))
    if ctx.target.claims("atomic"):
        modes.append(("atomic", (("Batch-Mode", "atomic"),)))
    return modes


def _post(
    ctx: Context, judge: Judge, coll: str, fields: tuple[tuple[str, str], ...]
) -> tuple[str, SubRequest]:
    """A marked POST of sandbox.member to `coll` carrying the conditional `fields`."""
    marker, post = marked_post(ctx, judge, coll)
    return marker, SubRequest("POST", coll, (*post.headers, *fields), post.body)


@checker(
    "conditional-post-to-collection",
    ("MB-PROC-9",),
    "POST parts to the sandbox collection, holding a member of its own, are 412 and create nothing with If-None-Match: * (whatever the Accept), an If-Match naming a foreign tag, or (where its listing has a Last-Modified) an If-Unmodified-Since long before it, and create a member (201) with If-Match: * or an If-Unmodified-Since long after it, in every declared form, plain, under batch-on-error=stop and atomic.",
    profile="conditional",
    state=State.WRITES_IN_SANDBOX,
)
def conditional_post_to_collection(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    new_member(ctx, judge)
    answers = [
        ctx.send(judge, ctx.raw_request("GET", coll, list(accept)))
        for accept in ((("Accept", "multipart/mixed"),), ())
    ]
    shown = [a.status for a in answers]
    if not any(s in (200, 204) for s in shown):
        judge.not_applicable(
            f"GET {coll} answered {shown}: the collection shows no current representation"
        )
    cases = CASES
    if answers[1].status in (200, 204) and answers[1].get("Last-Modified"):
        cases += DATED_CASES
    made: list[str] = []
    try:
        _judge_posts(ctx, judge, coll, made, cases)
    finally:
        # MB-TEST-3: "A suite deletes every member it creates before it finishes"; the runner
        # deletes what multipart answers created, this what the 207 forms' entries name.
        for location in made:
            path = urlsplit(urljoin(coll, location)).path
            if path:
                ctx.alone(judge, SubRequest("DELETE", path))


def _judge_posts(
    ctx: Context,
    judge: Judge,
    coll: str,
    made: list[str],
    cases: tuple[Case, ...],
) -> None:
    """Send the conditional POSTs in every mode and form, judge them and the members they
    left; `made` gathers the Location of every entry answered 201."""
    ran: list[str] = []
    refused: list[str] = []
    for mode, head in _modes(ctx):
        batches: list[list[tuple[str, str, int, SubRequest]]] = []
        if mode == "plain":
            batch = []
            for what, fields, want in cases:
                marker, sub = _post(ctx, judge, coll, fields)
                batch.append((what, marker, want, sub))
            batches.append(batch)
        else:
            # A 412 fails the batch under stop and atomic (spec 7.4): one refused POST a batch.
            for what, fields, want in cases:
                if want == 412:
                    marker, sub = _post(ctx, judge, coll, fields)
                    batches.append([(what, marker, want, sub)])
        for batch in batches:
            subs = [sub for *_, sub in batch]
            for media, _, entries in answers_in_every_form(ctx, judge, subs, head):
                for (what, _, want, _), entry in zip(batch, entries, strict=True):
                    location = _field(entry.fields, "Location")
                    if entry.status == 201 and location and media != "multipart/mixed":
                        made.append(location)
                    # MB-PROC-9 (RFC 9110 §13.1.1, §13.1.2, §13.1.4): the collection, the POST's
                    # target, has a current representation, so If-None-Match: * and an If-Match
                    # naming no current tag are false (412), and If-Match: * is true; a date long
                    # before its Last-Modified is false, one long after it true.
                    judge.expect(
                        f"{mode}, {media}: POST part with {what}",
                        entry.status,
                        {want},
                        "MB-PROC-9",
                    )
            for _, marker, want, _ in batch:
                (ran if want == 201 else refused).append(marker)
    alone_marker, alone = _post(ctx, judge, coll, (("If-None-Match", "*"),))
    status = ctx.alone(judge, alone).status
    if status != 412:
        judge.note(f"POST {coll} with If-None-Match: * alone answered {status} (not judged)")
    retrieval = ctx.send(judge, ctx.raw_request("GET", coll, [("Accept", "multipart/mixed")]))
    if retrieval.status not in (200, 204):
        judge.note(f"GET {coll} answered {retrieval.status}: creation not judged")
        return
    listing = retrieval.body
    if ran and not any(m.encode() in listing for m in ran):
        judge.note(f"the retrieval of {coll} shows no member a POST wrote: creation not judged")
        return
    for marker in refused:
        # RFC 9110 §13.1.1, §13.1.2: when the condition is false the server "MUST NOT perform
        # the requested method"; a 412 that created the member breaks MB-PROC-9 all the same.
        judge.expect_true(
            f"member written by the refused POST {marker}",
            marker.encode() not in listing,
            "created" if marker.encode() in listing else "not created",
            "not created",
            "MB-PROC-9",
        )
    if alone_marker.encode() in listing:
        judge.note(f"POST {coll} with If-None-Match: * alone created a member (not judged)")
