"""The edges of references (spec 7.7): malformed ones, targets refused once substituted, the
fields `$(N:name)` can name, and the href of each part in the XML and JSON forms.

Theory of operation: a `$(` that begins no reference is sent alone in a field value or in a
Content-Id's query, and each such batch must be refused 400 under MB-PROC-19 (the mode exists so
that no resource receives a literal `$(`). So must `$(0:name)` whose name is no `token` (empty,
spaced, a delimiter, non-ASCII), while a name of every special `tchar` is a reference that names
nothing, its part skipped under MB-PROC-20. So must a `$(` whose index is written as a number
parser may read it but `part-index` does not (leading zeros, a sign, whitespace, `0x`, `1_0`,
`0.0`, a fullwidth digit), placed after eleven parts so that whatever number a lenient reader
takes it for names an earlier part and the batch would run, and an index of 2^16, 2^32 or 2^64
(or ten more), which an integer of that width wraps to part 0 or part 10; `$(0:ETag)` and `$(10:ETag)` there are
substituted, so the refusals are of the spelling alone. A target refused only once substituted is made from a
sandbox member's `Location`: `</$(0)>` becomes `//` followed by that path, a network-path
reference naming another authority, so the part is skipped under MB-PROC-20 (and, in an atomic
batch, the batch rolls back under MB-PROC-21). The fields a reference may name are those
MB-RESP-4 carries into the response part, so `$(0:Content-Length)`, `$(0:Http-Status-Code)` and
`$(0:Content-Id)` name nothing. In the 207 forms, a part that ran carries the target it ran with
and a skipped part its Content-Id resolved as written (spec 6.3, 6.4). The writes are sandbox
members, which the context deletes when the check ends.
"""

from __future__ import annotations

import json
import secrets
from typing import Any
from urllib.parse import urljoin, urlsplit

from mixbatch_conformance.checks._shared.alone import readable_echoes
from mixbatch_conformance.checks._shared.unresolved_parts import (
    ABSENT_FIELD,
    expect_unresolved_part,
)
from mixbatch_conformance.core.context import Context, SubRequest, problem_of
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import answers_in_every_form
from mixbatch_conformance.transport.http import Response

REFERENCES = (("Batch-Mode", "references"),)
JSON_FIELDS = (("Content-Type", "application/json"),)


def _member(ctx: Context, judge: Judge) -> bytes:
    member = ctx.target.sandbox_member
    if member is None:
        judge.not_applicable("the target declares no sandbox.member document to write")
    marker = f"mb-suite-ref-{secrets.token_hex(6)}"
    doc: dict[str, Any] = {k: marker if isinstance(v, str) else v for k, v in member.items()}
    return json.dumps(doc).encode()


def _delete_created(ctx: Context, judge: Judge, location: str | None, coll: str) -> None:
    """Delete the member a POST to `coll` created (MB-TEST-3: "A suite deletes every member it
    creates before it finishes"); a batch that created none leaves nothing to delete."""
    if location:
        ctx.alone(judge, SubRequest("DELETE", _origin_form(ctx, location.strip(), coll)))


def _origin_form(ctx: Context, location: str, request_path: str) -> str:
    """`location`, received for a request to `request_path`, resolved and in origin form
    (spec 7.7: "`$(N)` stands for the `Location` of part N's response, resolved against part N's
    target (RFC 9110 §10.2.2) and written in origin form (path and query)")."""
    origin = urlsplit(ctx.target.base_url)
    resolved = urlsplit(urljoin(f"{origin.scheme}://{origin.netloc}{request_path}", location))
    return (resolved.path or "/") + (f"?{resolved.query}" if resolved.query else "")


def _expect_refused_19(judge: Judge, what: str, resp: Response) -> None:
    """`resp` is the 400 of MB-PROC-19, its problem document naming that requirement."""
    judge.expect(f"status for a {what}", resp.status, {400}, "MB-PROC-19")
    judge.expect(
        f"problem requirement for a {what}",
        (problem_of(resp) or {}).get("requirement"),
        {"MB-PROC-19"},
        "MB-STATUS-4",
    )


@checker(
    "references-malformed-refused",
    ("MB-PROC-19",),
    "A references batch whose field value or Content-Id holds a $( that begins no reference ($(x), $(01), $(), $(0 without a parenthesis, a field name with a space) is answered 400 naming MB-PROC-19.",
    profile="references",
    state=State.READ_ONLY,
)
def malformed_refused(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    echo = ctx.path(ctx.resource(judge, "echo"))
    # Spec 7.7: "`$(x)`, `$(01)`, `$()`, `$(1` without `)` and `$(0:bad name)` are malformed
    # references, not text". In a query `$`, `(`, `)` and `:` are valid (RFC 3986 §3.4), so
    # each Content-Id below is a valid URI reference (MB-PART-4 does not apply).
    in_field = ["$(x)", "$(01)", "$()", "v=$(0", "$(0:bad name)"]
    in_target = ["$(x)", "$(01)", "$(0"]
    cases = [(f"field value {v!r}", SubRequest("GET", echo, (("X-Mb-Ref", v),))) for v in in_field]
    cases += [(f"Content-Id query {v!r}", SubRequest("GET", f"{echo}?q={v}")) for v in in_target]
    for what, sub in cases:
        resp = ctx.batch(judge, [SubRequest("GET", ok), sub], headers=REFERENCES)
        # MB-PROC-19: "MUST answer 400, before any part runs, a batch that lists `references`
        # and has a part ... whose `Content-Id` or field value holds a `$(` that neither begins
        # a `reference` nor belongs to a `$$(`".
        _expect_refused_19(judge, what, resp)


#: Spellings of an index that a number parser may read as one but `part-index` is not: leading
#: zeros, signs, whitespace, a hexadecimal prefix, a digit separator, a decimal point and a
#: fullwidth digit (U+FF11, as its UTF-8 octets).
MALFORMED_INDICES = (
    "00",
    "01",
    "007",
    "+0",
    "-0",
    "+1",
    " 0",
    "0 ",
    "0x0",
    "1_0",
    "0.0",
    "\xef\xbc\x91",
)
#: Well-formed indices naming no part, which an integer wrapping at 2^16, 2^32 or 2^64 reads as
#: part 0 and part 10.
OVERFLOWING_INDICES = tuple(str(2**bits + k) for bits in (16, 32, 64) for k in (0, 10))
#: Parts before the one holding the reference: every numeric reading of the spellings above
#: names one of them.
EARLIER_PARTS = 11


def _uri_safe(index: str) -> bool:
    """Whether `index` may stand in a query (RFC 3986 §3.4): no space, US-ASCII only."""
    return " " not in index and index.isascii()


#: Field names after `$(0:` that are no `token` (RFC 9110 §5.1, §5.6.2): empty, whitespace
#: before or after the name or inside it, a delimiter (`"(),/:;<=>?@[\\]{}`), a control and
#: octets outside US-ASCII. A reader that checks each octet of the name and not the name itself
#: takes the empty one; one that trims takes the spaced ones.
MALFORMED_FIELD_NAMES = (
    "",
    " ETag",
    "ETag ",
    "\tETag",
    '"ETag"',
    "ETag,Date",
    "ETag;q=1",
    "ETag/1",
    "ETag:x",
    "ETag=",
    "ETag@x",
    "[ETag]",
    "{ETag}",
    "ETag?",
    "ETa\xc3\xa9",
)
#: A `token` of every `tchar` that is no letter or digit (RFC 9110 §5.6.2), `$` and `(` apart
#: (`$(` would begin another reference): a field name part 0's answer does not carry.
EVERY_TCHAR_NAME = "X-Mb!#%&'*+-.^_`|~1"


@checker(
    "references-field-name-spellings",
    ("MB-PROC-19", "MB-PROC-20"),
    "A references batch whose field value writes $(0:name) with a name that is no token (empty, spaced, a delimiter, a control or non-ASCII octets) is answered 400 naming MB-PROC-19; one whose name is a token of every special tchar, naming no field of part 0's answer, is processed and that part skipped under MB-PROC-20.",
    profile="references",
    state=State.READ_ONLY,
)
def field_name_spellings(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    echo = ctx.path(ctx.resource(judge, "echo"))
    for name in MALFORMED_FIELD_NAMES:
        written = f"$(0:{name})"
        sub = SubRequest("GET", echo, (("X-Mb-Ref", written),))
        resp = ctx.batch(judge, [SubRequest("GET", ok), sub], headers=REFERENCES)
        # Spec 7.7: "reference = "$(" part-index [ ":" field-name ] ")" ... field-name = token";
        # MB-PROC-19: "MUST answer 400, before any part runs, a batch that lists `references`
        # and has a part ... whose `Content-Id` or field value holds a `$(` that neither begins
        # a `reference` nor belongs to a `$$(`".
        _expect_refused_19(judge, f"field value {written!r}", resp)
    written = f"$(0:{EVERY_TCHAR_NAME})"
    subs = [SubRequest("GET", ok), SubRequest("GET", echo, (("X-Mb-Ref", written),))]
    resp = ctx.batch(judge, subs, headers=REFERENCES)
    # `field-name = token`: every tchar is allowed, so this is a reference, and one that names
    # no field of part 0's answer. MB-PROC-20: "MUST answer a part whose reference cannot be
    # resolved without running it: ... its response has no such field", with
    # `Batch-Outcome: skipped`; the batch is processed.
    judge.require(f"top-level status with {written}", resp.status, {200}, "MB-PROC-20")
    env = expect_processed(ctx, judge, resp, [s.content_id for s in subs], (), "MB-PROC-20")
    judge.require("part 0 status", part_status(env, 0), {200}, "MB-TEST-1")
    expect_unresolved_part(judge, f"part 1 ({written})", env.parts[1], (written,))


@checker(
    "references-index-spellings",
    ("MB-PROC-19", "MB-PROC-18"),
    "A references batch whose later part writes an index with leading zeros, a sign, whitespace, 0x, a digit separator, a decimal point, a fullwidth digit or of 2^16, 2^32 or 2^64 (or ten more), in a field value with or without a field name or in a Content-Id, is answered 400 naming MB-PROC-19, while $(0:ETag) and $(10:ETag) after eleven parts are substituted.",
    profile="references",
    state=State.READ_ONLY,
)
def index_spellings(ctx: Context, judge: Judge) -> None:
    tagged = ctx.path(ctx.resource(judge, "etag_resource"))
    echo = ctx.path(ctx.resource(judge, "echo"))
    most = ctx.limit("max_parts")
    if most is not None and most <= EARLIER_PARTS:
        judge.not_applicable(f"max_parts {most} leaves no room for {EARLIER_PARTS + 1} parts")
    earlier = [SubRequest("GET", tagged) for _ in range(EARLIER_PARTS)]
    written = [*MALFORMED_INDICES, *OVERFLOWING_INDICES]
    cases = [
        (f"field value {v!r}", SubRequest("GET", echo, (("X-Mb-Ref", v),)))
        for index in written
        for v in (f"$({index})", f"$({index}:ETag)")
    ]
    cases += [
        (f"Content-Id query {v!r}", SubRequest("GET", f"{echo}?q={v}"))
        for v in (f"$({index})" for index in written if _uri_safe(index))
    ]
    for what, sub in cases:
        resp = ctx.batch(judge, [*earlier, sub], headers=REFERENCES)
        # Spec 7.7: "part-index  = "0" / ( %x31-39 *DIGIT )", and "A `part-index` is US-ASCII
        # digits alone, read as a decimal number: `$(00)`, `$(007)`, `$(+0)`, ... begin no
        # reference ... and `$(18446744073709551616)` is a reference to a part that does not
        # exist". MB-PROC-19: "MUST answer 400, before any part runs, a batch that lists
        # `references` and has a part whose reference names ... a part that does not exist, ...
        # or whose `Content-Id` or field value holds a `$(` that neither begins a `reference`
        # nor belongs to a `$$(`".
        _expect_refused_19(judge, what, resp)
    for index in (0, EARLIER_PARTS - 1):
        written_ref = f"$({index}:ETag)"
        subs = [*earlier, SubRequest("GET", echo, (("X-Mb-Ref", written_ref),))]
        # MB-PROC-18: "MUST replace each reference in a part's `Content-Id` and header field
        # values with the value it names before that part runs": `0` and `10` are `part-index`
        # spellings of earlier parts, so the batch is processed.
        resp = ctx.batch(judge, subs, headers=REFERENCES)
        judge.require(f"top-level status with {written_ref}", resp.status, {200}, "MB-PROC-18")
        env = expect_processed(ctx, judge, resp, [s.content_id for s in subs])
        judge.require(f"part {index} status", part_status(env, index), {200}, "MB-TEST-1")
        etags = env.parts[index].get_all("ETag")
        if len(etags) != 1:
            judge.setup_error(f"part {index} (the etag_resource) carries no single ETag to name")
        last = len(subs) - 1
        judge.require(
            f"part {last} status with {written_ref}", part_status(env, last), {200}, "MB-PROC-18"
        )
        (seen,) = readable_echoes(judge, env.parts[last].body)
        judge.expect(
            f"X-Mb-Ref received for {written_ref}",
            seen.get_all("X-Mb-Ref"),
            [[etags[0]]],
            "MB-PROC-18",
        )


@checker(
    "references-target-refused-after-substitution",
    ("MB-PROC-20", "MB-PROC-21"),
    "A part whose target becomes a network-path reference once $(0) is substituted (</$(0)>) is skipped with the MB-PROC-20 problem, a part naming it is skipped in turn and an independent part runs; in an atomic batch the parts that ran roll back.",
    profile="references",
    state=State.WRITES_IN_SANDBOX,
)
def target_refused_after_substitution(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    ok = ctx.path(ctx.resource(judge, "ok"))
    subs = [
        SubRequest("POST", coll, JSON_FIELDS, _member(ctx, judge)),
        SubRequest("GET", "/$(0)"),
        SubRequest("GET", "$(1)"),
        SubRequest("GET", ok),
    ]
    resp = ctx.batch(judge, subs, headers=REFERENCES)
    # MB-PROC-20: "A server MUST answer a part whose reference cannot be resolved without
    # running it": the part is answered, so the batch is processed, not refused.
    judge.require("top-level status", resp.status, {200}, "MB-PROC-20")
    env = expect_processed(ctx, judge, resp, [s.content_id for s in subs])
    judge.require("part 0 status", part_status(env, 0), {201}, "MB-TEST-3")
    # MB-PROC-20: a part is answered without running when "the target the substitution yields
    # fails a check of 8.3 or 8.4 (for example `</$(0)>` when part 0's `Location` is
    # `/books/4`: it becomes the network-path reference `//books/4`...)". Spec 7.7: the
    # `reference` member "may name the reference the target holds or the whole URI reference of
    # the `Content-Id` as written".
    expect_unresolved_part(judge, "part 1", env.parts[1], {"$(0)", "/$(0)"})
    # MB-PROC-20 prose: "a part that refers to the skipped part is skipped in turn ... and an
    # independent part after it runs".
    expect_unresolved_part(judge, "part 2", env.parts[2], {"$(1)"})
    judge.expect("part 3 status", part_status(env, 3), {200}, "MB-PROC-20")
    _delete_created(ctx, judge, env.parts[0].get("Location"), coll)
    if not ctx.target.claims("atomic"):
        return
    atomic = [SubRequest("POST", coll, JSON_FIELDS, _member(ctx, judge)), subs[1], subs[3]]
    resp = ctx.batch(judge, atomic, headers=(("Batch-Mode", "atomic, references"),))
    judge.require("atomic top-level status", resp.status, {200}, "MB-PROC-21")
    env = expect_processed(ctx, judge, resp, [s.content_id for s in atomic])
    # MB-PROC-21: "MUST undo the effects of every part that ran and mark each of them
    # `Batch-Outcome: rolled-back` with its real status, answer the unresolved part as
    # MB-PROC-20 requires, and answer every later part `Batch-Outcome: skipped`".
    outcomes = [p.get("Batch-Outcome") for p in env.parts]
    judge.expect("atomic outcomes", outcomes, [["rolled-back", "skipped", "skipped"]], "MB-PROC-21")
    expect_unresolved_part(judge, "atomic part 1", env.parts[1], {"$(0)", "/$(0)"})
    location = env.parts[0].get("Location")
    if part_status(env, 0) == 201 and location:
        created = _origin_form(ctx, location.strip(), coll)
        after = ctx.alone(judge, SubRequest("GET", created))
        judge.expect(
            f"GET {created} after the atomic batch", after.status, {404, 410}, "MB-PROC-21"
        )


#: Fields a reference cannot name (spec 7.7): one MB-RESP-4 drops and two of the part's own.
UNNAMEABLE = ("Content-Length", "Http-Status-Code", "Content-Id")


@checker(
    "references-part-fields-only",
    ("MB-PROC-20",),
    "A $(0:name) naming Content-Length, Http-Status-Code or Content-Id, fields no response part carries for its sub-response, leaves its part skipped with the MB-PROC-20 problem, and a later independent part runs.",
    profile="references",
    state=State.READ_ONLY,
)
def part_fields_only(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    echo = ctx.path(ctx.resource(judge, "echo"))
    written = [f"$(0:{name})" for name in UNNAMEABLE]
    subs = [
        SubRequest("GET", ok),
        *(SubRequest("GET", echo, (("X-Mb-Ref", w),)) for w in written),
        SubRequest("GET", ok),
    ]
    env = expect_processed(
        ctx, judge, ctx.batch(judge, subs, headers=REFERENCES), [s.content_id for s in subs]
    )
    judge.require("part 0 status", part_status(env, 0), {200}, "MB-TEST-1")
    # Spec 7.7: "`$(N:name)` names a field of part N's response part as MB-RESP-4 writes it ...
    # The fields MB-RESP-4 drops (`Content-Length`, ...) are not there ... The mixbatch fields
    # `Http-Status-Code`, `Content-Id` and `Batch-Outcome` are not fields of the sub-response
    # either. A reference to any of these cannot be resolved (MB-PROC-20)".
    for i, w in enumerate(written, start=1):
        expect_unresolved_part(judge, f"part {i} ({w})", env.parts[i], {w})
    last = len(subs) - 1
    judge.expect(f"part {last} status", part_status(env, last), {200}, "MB-PROC-20")


@checker(
    "references-href-by-form",
    ("MB-MULTI-6", "MB-MULTI-4"),
    "In the XML and JSON forms of a references batch, a part that ran carries as href the target it ran with, after substitution, a skipped part its Content-Id resolved as written (whether its own reference or one of its fields' failed to resolve), and both their Content-Id as written.",
    profile="references",
    state=State.WRITES_IN_SANDBOX,
)
def href_by_form(ctx: Context, judge: Judge) -> None:
    if not (ctx.target.claims("xml") or ctx.target.claims("json")):
        judge.not_applicable("the target claims neither the xml nor the json profile")
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    nf = ctx.path(ctx.resource(judge, "not_found"))
    subs = [
        SubRequest("POST", coll, JSON_FIELDS, _member(ctx, judge)),
        SubRequest("GET", "$(0)"),
        SubRequest("GET", nf),
        SubRequest("GET", "$(2)/lines"),
        # A Content-Id reference that resolves beside a field reference that does not: the
        # part is skipped, so nothing was substituted in its target either.
        SubRequest("GET", "$(0)", (("X-Mb-Ref", f"$(0:{ABSENT_FIELD})"),)),
    ]
    for media, _, entries in answers_in_every_form(ctx, judge, subs, REFERENCES):
        created = [v for n, v in entries[0].fields if n.lower() == "location"]
        # MB-TEST-3: "A suite deletes every member it creates before it finishes".
        _delete_created(ctx, judge, created[0] if len(created) == 1 else None, coll)
        if media == "multipart/mixed":
            continue
        requirement = "MB-MULTI-6" if "xml" in media else "MB-MULTI-4"
        judge.require(f"{media} entry 0 status", entries[0].status, {201}, "MB-TEST-3")
        locations = [v for n, v in entries[0].fields if n.lower() == "location"]
        if len(locations) != 1:
            judge.setup_error(f"{media}: the 201 of entry 0 names no single Location")
        # Spec 6.3: "In a batch whose `Batch-Mode` lists `references`, the resolved target of
        # a part that ran is the one it ran with, after substitution (MB-PROC-18). A part that
        # did not run had nothing substituted, so its `DAV:href` is its `Content-Id` resolved
        # as written, references included ... `mb:content-id` is the value as written in both
        # cases"; 6.4 says the same of `href` and `content_id`.
        ran_with = _origin_form(ctx, locations[0].strip(), coll)
        judge.expect(f"{media} entry 1 status", entries[1].status, {200}, "MB-PROC-18")
        judge.expect(f"{media} entry 1 href", entries[1].href, {ran_with}, requirement)
        judge.expect(f"{media} entry 1 content-id", entries[1].content_id, {"$(0)"}, requirement)
        judge.expect(f"{media} entry 3 outcome", entries[3].outcome, {"skipped"}, "MB-PROC-20")
        as_written = ctx.resolve("$(2)/lines")
        judge.expect(f"{media} entry 3 href", entries[3].href, {as_written}, requirement)
        judge.expect(
            f"{media} entry 3 content-id", entries[3].content_id, {"$(2)/lines"}, requirement
        )
        judge.expect(f"{media} entry 4 outcome", entries[4].outcome, {"skipped"}, "MB-PROC-20")
        judge.expect(f"{media} entry 4 href", entries[4].href, {ctx.resolve("$(0)")}, requirement)
        judge.expect(f"{media} entry 4 content-id", entries[4].content_id, {"$(0)"}, requirement)
