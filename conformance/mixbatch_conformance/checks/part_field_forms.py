"""Part fields in every form a field line may take reach the resource as the same fields alone.

Theory of operation: MB-PART-8 makes "a request part's header fields other than `Http-Method`
and `Content-Id`" the sub-request's header fields, "in order". A field line may spell its name
in any case (RFC 9110 §5.1: "Field names are case-insensitive"), put optional whitespace
around its value, which is not part of it (RFC 9110 §5.5: "a field value does not include
leading or trailing whitespace"), carry a list of several members, or be one of several lines
of the same name (RFC 9110 §5.3). An HTTP stack reads each of these forms for the same request
sent alone, so the part and the same request alone are compared as spec 3.2.4 says
(`_shared.alone`): a receiver that drops a field it does not recognise in that form, keeps the
first member or the first line only, or keeps the whitespace, answers otherwise. The request
alone is sent with the whitespace already taken off, so an HTTP stack in front of the resource
that keeps it does not decide the comparison.

- `part-field-forms-reach-resource` sends each field the spec gives a part a meaning for
  (Accept, Content-Type, Prefer, Range and If-Range, Authorization and Cookie when the target
  needs no credentials of its own, an extension field, and Batch-Mode and
  `Prefer: batch-on-error=stop`, which only the batch request's own fields give a meaning) to the `echo`, which shows what the
  resource received (an echo that serves the range cuts its description, which is then not
  compared).
- `conditional-field-forms` judges by the effect: preconditions on the `etag_resource` in
  those forms, lists of entity-tags with the current one second or third, If-Match and
  If-None-Match on several lines, If-Modified-Since and If-Unmodified-Since named in other
  cases, in the obsolete date formats and with a value that is no date, a weak entity-tag in
  If-Match (compared strongly) and in If-None-Match (compared weakly), and If-Range with and
  without Range, each status as alone (MB-PROC-9; RFC 9110 §13.1
  lists If-Range among the preconditions).
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.alone import expect_parts_as_alone
from mixbatch_conformance.checks._shared.requests import etag_of
from mixbatch_conformance.checks._shared.spellings import spellings
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

#: Optional whitespace around a value: SP and HTAB, before and after (RFC 9110 §5.6.3).
OWS = " \t "
#: Entity-tags no representation has (RFC 9110 §8.8.3).
OTHER_TAGS = ('"mb-suite-other-a"', '"mb-suite-other-b"')
#: A date before any representation was modified.
EPOCH = "Thu, 01 Jan 1970 00:00:00 GMT"
#: EPOCH in the two obsolete formats (RFC 850 and asctime, RFC 9110 §5.6.7), and a value
#: that is no HTTP-date.
OTHER_DATES = (
    "Thursday, 01-Jan-70 00:00:00 GMT",
    "Thu Jan  1 00:00:00 1970",
    "not a date",
)
#: A range of the first octets (RFC 9110 §14.1.2).
FIRST_OCTETS = "bytes=0-3"
#: An extension field no resource gives a meaning, so only MB-PART-8 governs it.
PROBE = "X-Mb-Suite-Probe"


def _forms(name: str, value: str, also: str) -> list[tuple[tuple[str, str], ...]]:
    """`name: value` in each name case, with OWS around the value, and on two lines (the second
    with `also`)."""
    out: list[tuple[tuple[str, str], ...]] = [((n, value),) for n in spellings(name)]
    out.append(((name, f"{OWS}{value}{OWS}"),))
    out.append(((name, value), (name, also)))
    return out


def _echo_parts(ctx: Context, judge: Judge) -> list[SubRequest]:
    where = ctx.path(ctx.resource(judge, "echo"))
    fields: list[tuple[tuple[str, str], ...]] = [
        *_forms("Accept", "text/plain", "application/json;q=0.5"),
        *_forms("Prefer", "return=minimal", "respond-async"),
        *_forms(PROBE, "mb-suite probe", "second line"),
        # Range and If-Range reach the resource, which alone decides whether it serves ranges
        # (RFC 9110 §14.2), so the echo shows them whatever the target does with ranges.
        (("Range", FIRST_OCTETS), ("If-Range", OTHER_TAGS[0])),
        # A list on one line, and fields the batch request gives a meaning, which in a part
        # are the sub-request's like any other (MB-PART-8).
        (("Accept", "text/plain, application/json;q=0.5, */*;q=0.1"),),
        (("Batch-Mode", "mb-suite-no-such-mode"),),
        (("Prefer", "batch-on-error=stop"),),
    ]
    if not ctx.target.credentials:
        # MB-SUB-5: a part's own credential is its own in any form (none outer is sent here).
        fields.append((("Authorization", f"{OWS}Bearer mb-suite-part{OWS}"),))
        fields.append((("cOoKiE", f"{OWS}mb-part=1{OWS}"),))
    subs = [SubRequest("GET", f"{where}?mb-form={i}", f) for i, f in enumerate(fields, start=1)]
    for i, typed in enumerate((f"{OWS}text/plain{OWS}", f"text/plain;{OWS}charset=utf-8{OWS}")):
        subs.append(
            SubRequest("PUT", f"{where}?mb-typed-form={i}", (("Content-Type", typed),), b"x")
        )
    return subs


def _without_ows(sub: SubRequest) -> SubRequest:
    """The same request with no whitespace around its field values: RFC 9110 §5.5 makes it no
    part of the value, so this is the request alone, whatever the HTTP stack in front of the
    resource does with whitespace it is sent."""
    fields = tuple((n, v.strip(" \t")) for n, v in sub.headers)
    return SubRequest(sub.method, sub.target, fields, sub.body, sub.content_length)


@checker(
    "part-field-forms-reach-resource",
    ("MB-PART-8", "MB-PART-11", "MB-SUB-1", "MB-RESP-4"),
    "Accept (one list included), Prefer (batch-on-error too), Batch-Mode, Content-Type, an extension field, Range with If-Range and the part's own credentials, each named in lower, upper or mixed case, with whitespace around the value, or on two lines, reach the echo as the same request alone receives them.",
    state=State.READ_ONLY,
)
def part_field_forms_reach_resource(ctx: Context, judge: Judge) -> None:
    # MB-PART-8: "take a request part's header fields other than `Http-Method` and
    # `Content-Id` as the sub-request's header fields, in order": the echo shows them.
    # MB-PART-11 makes a receiver "reject a part header line that is not a valid `field-line`"
    # (RFC 9112 §5), and these all are: refusing one is refusing a valid part.
    # Every form is a valid field line (RFC 9112 §5), so the batch is processed (MB-PART-11).
    expect_parts_as_alone(
        ctx,
        judge,
        _echo_parts(ctx, judge),
        requirement="MB-PART-8",
        refused="MB-PART-11",
        alone_as=_without_ows,
    )


def _conditional_parts(ctx: Context, judge: Judge) -> list[SubRequest]:
    path, etag = etag_of(ctx, judge)
    modified = ctx.alone(judge, SubRequest("GET", path)).get("Last-Modified") or EPOCH
    a, b = OTHER_TAGS
    weak = etag if etag.startswith("W/") else f"W/{etag}"
    fields: list[tuple[tuple[str, str], ...]] = [
        # Lists: the current entity-tag second or third, or absent (RFC 9110 §13.1.1-2).
        (("If-Match", f"{a}, {etag}"),),
        (("If-Match", f"{a},{b} ,{etag}"),),
        (("If-Match", f"{a}, {b}"),),
        (("If-None-Match", f"{a}, {etag}"),),
        (("If-None-Match", f"{a}, {b}, {weak}"),),
        (("If-None-Match", f"{a}, {b}"),),
        # The list on several lines (RFC 9110 §5.3), the current tag on the second.
        (("If-Match", a), ("If-Match", etag)),
        (("If-None-Match", a), ("If-None-Match", etag)),
        # Whitespace around the value (RFC 9110 §5.5).
        (("If-None-Match", f"{OWS}{etag}{OWS}"),),
        (("If-Match", f"{OWS}{a}{OWS}"),),
        # Dates, named in any case.
        *(((n, EPOCH),) for n in spellings("If-Unmodified-Since")),
        *(((n, modified),) for n in spellings("If-Modified-Since")),
        (("If-Unmodified-Since", f"{OWS}{EPOCH}{OWS}"),),
        # The obsolete date formats a recipient must accept (RFC 9110 §5.6.7), and a value that
        # is no date, which a recipient ignores (RFC 9110 §13.1.3-4).
        *(((n, d),) for n in ("If-Unmodified-Since", "If-Modified-Since") for d in OTHER_DATES),
        # If-Match compares strongly, If-None-Match weakly (RFC 9110 §8.8.3.2, §13.1.1-2).
        (("If-Match", weak),),
        (("If-None-Match", weak),),
        # If-Range, with a Range and without one (RFC 9110 §13.1.5: ignored without Range).
        (("Range", FIRST_OCTETS), ("If-Range", etag)),
        (("Range", FIRST_OCTETS), ("If-Range", a)),
        (("If-Range", a),),
        (("if-range", a), ("range", FIRST_OCTETS)),
    ]
    subs = [SubRequest("GET", path, f) for f in fields]
    subs += [SubRequest("HEAD", path, f) for f in fields[:6]]
    return subs


@checker(
    "conditional-field-forms",
    ("MB-PROC-9", "MB-SUB-1", "MB-RESP-4", "MB-PROC-10"),
    "Preconditions on the etag_resource as lists with the current entity-tag second or third, on several lines, with whitespace around the value, named in other cases, with dates in the obsolete formats or no date, with a weak entity-tag, and If-Range with and without Range give each GET and HEAD part the status and fields of the same request alone.",
    profile="conditional",
    state=State.READ_ONLY,
)
def conditional_field_forms(ctx: Context, judge: Judge) -> None:
    # MB-PROC-9: "evaluate the conditional header fields of a part (RFC 9110 §13) exactly as
    # for the standalone request, answering 304 (Not Modified) or 412 (Precondition Failed) in
    # the part when the standalone request would get them".
    expect_parts_as_alone(
        ctx,
        judge,
        _conditional_parts(ctx, judge),
        requirement="MB-PROC-9",
        refused="MB-PROC-9",
        alone_as=_without_ows,
    )
