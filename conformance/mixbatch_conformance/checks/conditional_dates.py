"""Date preconditions in the three HTTP-date forms, and values that are no HTTP-date, judged by
RFC 9110 on a resource in a part and on a collection retrieval alone and in a part.

Theory of operation: If-Modified-Since and If-Unmodified-Since carry an HTTP-date, which RFC
9110 §5.6.7 writes three ways (IMF-fixdate, rfc850-date with a two-digit year, asctime-date);
a recipient "MUST accept all three", reads a two-digit year more than 50 years ahead as the
past century's, and "MUST ignore" either field when its value "is not a valid HTTP-date"
(§13.1.3, §13.1.4), however a lenient date parser would read it. The checks learn the
representation's Last-Modified and the server's current time (its Date field) from a plain GET,
then send each field with a date of each form clearly before or after Last-Modified, rfc850
years on both sides of the 50-year line (placed by the server's own Date, so that the rule
decides the verdict), and spellings that are no HTTP-date (ISO 8601, a numeric zone, a
lower-case month, ...), whose right answer is the unconditional one: the status of the same
request without the field, from the same server (checks._shared.date_conditions).

`conditional-date-forms` sends them as GET and HEAD parts to `etag_resource` and holds each part
to RFC 9110's status (MB-PROC-9: "The evaluation is the one RFC 9110 §13 defines") and to the
status of the same request alone. `collection-date-forms` sends them on collection retrievals,
alone (MB-STATUS-7, spec 5.2: "A conditional retrieval is evaluated as RFC 9110 §13.2.2
evaluates any `GET`, against the aggregate validators") and as parts (MB-PROC-9 where the
server offers the `conditional` profile, MB-STATUS-7 otherwise).
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.date_conditions import (
    DateCase,
    date_cases,
    moment,
    wanted_status,
)
from mixbatch_conformance.checks._shared.part_limits import within_max_parts
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

RETRIEVAL = ("Accept", "multipart/mixed")
METHODS = ("GET", "HEAD")


def _cases(judge: Judge, label: str, plain: Response) -> list[DateCase]:
    """The date cases for a representation whose plain GET answered `plain` (SETUP-ERROR
    without a 200; N/A without a Last-Modified, which leaves a date nothing to compare with)."""
    if plain.status != 200:
        judge.setup_error(f"{label} answered {plain.status} without conditional fields")
    modified, now = moment(plain.get("Last-Modified")), moment(plain.get("Date"))
    if modified is None:
        judge.not_applicable(
            f"{label} carries no IMF-fixdate Last-Modified ({plain.get('Last-Modified')!r})"
        )
    if now is None:
        judge.setup_error(
            f"{label} carries no IMF-fixdate Date ({plain.get('Date')!r}); the server's "
            "current year decides how an rfc850-date's two-digit year reads"
        )
    return date_cases(modified, now)


def _requests(
    path: str, cases: list[DateCase], extra: tuple[tuple[str, str], ...] = ()
) -> list[tuple[SubRequest, DateCase]]:
    return [
        (SubRequest(method, path, (*extra, *case.lines)), case)
        for method in METHODS
        for case in cases
    ]


def _unconditional(
    ctx: Context, judge: Judge, path: str, extra: tuple[tuple[str, str], ...] = ()
) -> dict[str, int]:
    """The status GET and HEAD of `path` get alone without conditional fields (a 2xx, else
    SETUP-ERROR: RFC 9110 §13.2.1 evaluates preconditions only then)."""
    out = {}
    for method in METHODS:
        status = ctx.alone(judge, SubRequest(method, path, extra)).status
        if not 200 <= status < 300:
            judge.setup_error(f"{method} {path} alone answered {status}")
        out[method] = status
    return out


def _part_statuses(
    ctx: Context, judge: Judge, subs: list[SubRequest], requirement: str
) -> list[int | None]:
    """Each part's status, the parts sent in as few batches as the published max_parts allows
    (MB-LIMIT-3: a client "splits the work into several batches instead")."""
    statuses: list[int | None] = []
    for run in within_max_parts(ctx, judge, subs):
        env = expect_processed(
            ctx, judge, ctx.batch(judge, run), [s.content_id for s in run], requirement=requirement
        )
        statuses.extend(part_status(env, i) for i in range(len(run)))
    return statuses


def _label(sub: SubRequest, case: DateCase) -> str:
    return f"{sub.method} {sub.target} with {case.field}: {case.what}"


@checker(
    "conditional-date-forms",
    ("MB-PROC-9",),
    "GET and HEAD parts to the etag resource carrying If-Modified-Since or If-Unmodified-Since with a date before or after its Last-Modified in each HTTP-date form (IMF-fixdate, rfc850-date with its two-digit year read by the 50-year rule on both sides of the line, asctime-date) get 304, 412 or the plain status as RFC 9110 evaluates them, and a value that is no HTTP-date (ISO 8601, a numeric zone, a lower-case month, a list of dates, ...) is ignored, on one field line or split over two; each part as the same request alone.",
    profile="conditional",
    state=State.READ_ONLY,
)
def conditional_date_forms(ctx: Context, judge: Judge) -> None:
    path = ctx.path(ctx.resource(judge, "etag_resource"))
    cases = _cases(judge, f"GET {path} alone", ctx.alone(judge, SubRequest("GET", path)))
    plain = _unconditional(ctx, judge, path)
    pairs = _requests(path, cases)
    subs = [s for s, _ in pairs]
    statuses = _part_statuses(ctx, judge, subs, "MB-PROC-9")
    for (sub, case), status in zip(pairs, statuses, strict=True):
        want = wanted_status(case, plain[sub.method])
        # MB-PROC-9: "The evaluation is the one RFC 9110 §13 defines"; "Its dates are
        # HTTP-dates read as RFC 9110 §5.6.7 reads them: in any of the three forms ..., an
        # rfc850-date's two-digit year that appears to be more than 50 years in the future
        # taken as the past century's. An `If-Modified-Since` or `If-Unmodified-Since` whose
        # value is not a valid HTTP-date ... is ignored, as §13.1.3 and §13.1.4 require".
        if not judge.expect(f"part: {_label(sub, case)}", status, {want}, "MB-PROC-9"):
            continue
        alone = ctx.alone(judge, sub).status
        # MB-PROC-9: "evaluate the conditional header fields of a part (RFC 9110 §13) exactly
        # as for the standalone request".
        judge.expect(f"part as alone: {_label(sub, case)}", status, {alone}, "MB-PROC-9")


@checker(
    "collection-date-forms",
    ("MB-STATUS-7", "MB-PROC-9"),
    "GET and HEAD collection retrievals, alone and as parts, carrying If-Modified-Since or If-Unmodified-Since with a date before or after the aggregate Last-Modified in each HTTP-date form (IMF-fixdate, rfc850-date with its two-digit year read by the 50-year rule on both sides of the line, asctime-date) get 304, 412 or 200 as RFC 9110 evaluates them, and a value that is no HTTP-date (ISO 8601, a numeric zone, a lower-case month, a list of dates on one field line or on two, ...) is ignored.",
    profile="collection-get",
    state=State.READ_ONLY,
)
def collection_date_forms(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "collection"))
    first = ctx.send(judge, ctx.raw_request("GET", coll, [RETRIEVAL]))
    cases = _cases(judge, f"GET {coll} with Accept: multipart/mixed", first)
    plain = _unconditional(ctx, judge, coll, (RETRIEVAL,))
    pairs = _requests(coll, cases, (RETRIEVAL,))
    for sub, case in pairs:
        # MB-STATUS-7 (spec 5.2): "A conditional retrieval is evaluated as RFC 9110 §13.2.2
        # evaluates any `GET`, against the aggregate validators, before either status is
        # chosen: ... an `If-Modified-Since` the collection has not changed since gives 304
        # ... and a failing ... `If-Unmodified-Since` gives 412"; "The dates are read as RFC
        # 9110 reads them: any of the three `HTTP-date` forms (§5.6.7, an rfc850-date's
        # two-digit year by its 50-year rule), and an `If-Modified-Since` or
        # `If-Unmodified-Since` that is not a valid `HTTP-date` is ignored (§13.1.3, §13.1.4)".
        judge.expect(
            f"alone: {_label(sub, case)}",
            ctx.alone(judge, sub).status,
            {wanted_status(case, plain[sub.method])},
            "MB-STATUS-7",
        )
    # A retrieval in a part is evaluated as RFC 9110 §13 evaluates it: MB-PROC-9 where the
    # server offers conditional parts, MB-STATUS-7 (the retrieval's own status) otherwise.
    requirement = "MB-PROC-9" if ctx.target.claims("conditional") else "MB-STATUS-7"
    subs = [s for s, _ in pairs]
    statuses = _part_statuses(ctx, judge, subs, requirement)
    for (sub, case), part in zip(pairs, statuses, strict=True):
        judge.expect(
            f"part: {_label(sub, case)}",
            part,
            {wanted_status(case, plain[sub.method])},
            requirement,
        )
