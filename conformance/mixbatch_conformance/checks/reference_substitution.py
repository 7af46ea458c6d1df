"""Where references are substituted and where not (spec 7.7), read from what a part received.

Theory of operation: every check here sends a `Batch-Mode: references` batch whose later part
goes to the `echo` resource, so the request that part's resource received shows what the server
substituted. A `$(N:name)` in a header field value becomes the value part N's response carried,
as it came in the same batch response, so the suite learns that value from the same answer
instead of fixing it. `$$(` becomes a literal `$(`, and any other `$` stays itself, in the
target (the Content-Id) and in field values alike. Part content is never substituted. A
`$(N:name)` naming a field part N's response did not carry leaves its part skipped with a
problem naming the reference as written, and a later independent part still runs. All of
these but one are read-only (GETs, and POSTs to the echo resource); the one that needs a
`Location` creates a sandbox member, which the run deletes at its end.
"""

from __future__ import annotations

import json
import secrets
from urllib.parse import urljoin, urlsplit

from mixbatch_conformance.checks._shared.alone import readable_echoes
from mixbatch_conformance.checks._shared.unresolved_parts import ABSENT_FIELD
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.json_text import loads_json_text
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker

REFERENCES = (("Batch-Mode", "references"),)
#: The text around a reference written in a target's query.
QUERY_BEFORE, QUERY_AFTER = "mb-of=", "&mb-at=1"


#: A part's fields holding references, with fields that hold none before, between and after.
FIELDS_IN_ORDER = (
    ("X-Mb-Before", "plain"),
    ("X-Mb-Tag", "$(0:ETag)"),
    ("X-Mb-Between", "plain"),
    ("X-Mb-Around", "tag=$(0:ETag); end"),
    ("X-Mb-Lower", "$(0:etag)"),
    ("X-Mb-After", "plain"),
)


def _single(fields: list[str]) -> str | None:
    return fields[0] if len(fields) == 1 else None


@checker(
    "references-field-value-substituted",
    ("MB-PROC-18", "MB-PART-8"),
    "Under Batch-Mode: references, $(0:ETag) in a header field value reaches the part's resource as part 0's ETag, octet for octet, with the text around it kept, and $(0:etag) names the same field; the fields holding references and those between them that hold none reach it in the order the part wrote them.",
    profile="references",
    state=State.READ_ONLY,
)
def field_value_substituted(ctx: Context, judge: Judge) -> None:
    tagged = ctx.path(ctx.resource(judge, "etag_resource"))
    echo = ctx.path(ctx.resource(judge, "echo"))
    subs = [
        SubRequest("GET", tagged),
        SubRequest(
            "GET",
            echo,
            FIELDS_IN_ORDER,
        ),
    ]
    env = expect_processed(
        ctx, judge, ctx.batch(judge, subs, headers=REFERENCES), [s.content_id for s in subs]
    )
    judge.require("part 0 status", part_status(env, 0), {200}, "MB-TEST-1")
    etag = _single(env.parts[0].get_all("ETag"))
    if etag is None:
        judge.setup_error("part 0 (the etag_resource) carries no single ETag to name")
    # MB-PROC-18: "MUST replace each reference in a part's `Content-Id` and header field values
    # with the value it names before that part runs"; spec 7.7: "`$(N:name)` stands for the
    # value of the response field `name` of part N, as received".
    judge.require("part 1 status", part_status(env, 1), {200}, "MB-PROC-18")
    (seen,) = readable_echoes(judge, env.parts[1].body)
    judge.expect("X-Mb-Tag received", seen.get_all("X-Mb-Tag"), [[etag]], "MB-PROC-18")
    judge.expect(
        "X-Mb-Around received", seen.get_all("X-Mb-Around"), [[f"tag={etag}; end"]], "MB-PROC-18"
    )
    # Spec 7.7: "field-name = token ; RFC 9110 section 5.1", and field names are
    # case-insensitive (RFC 9110 §5.1), so `$(0:etag)` names the field `$(0:ETag)` names.
    judge.expect("X-Mb-Lower received", seen.get_all("X-Mb-Lower"), [[etag]], "MB-PROC-18")
    # MB-PART-8: the part's other header fields are the sub-request's, "in order", whether or
    # not a reference in one was replaced; MB-TEST-2 lists them "in the order received".
    sent = [name.lower() for name, _ in FIELDS_IN_ORDER]
    got = [name.lower() for name, _ in seen.headers if name.lower() in sent]
    judge.expect("the part's fields in the order received", got, [sent], "MB-PART-8")


@checker(
    "references-location-in-field-value",
    ("MB-PROC-18",),
    "Under Batch-Mode: references, $(0) in a header field value and in the query of a Content-Id reaches the part's resource as part 0's Location in origin form, octet for octet (not percent-encoded as a query value), and $(0:Location) as that Location was received.",
    profile="references",
    state=State.WRITES_IN_SANDBOX,
)
def location_in_field_value(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    echo = ctx.path(ctx.resource(judge, "echo"))
    member = ctx.target.sandbox_member
    if member is None:
        judge.not_applicable("the target declares no sandbox.member document to write")
    marker = f"mb-suite-ref-{secrets.token_hex(6)}"
    doc = {k: marker if isinstance(v, str) else v for k, v in member.items()}
    fields = (("X-Mb-Where", "at $(0)"), ("X-Mb-Location", "$(0:Location)"))
    subs = [
        SubRequest("POST", coll, (("Content-Type", "application/json"),), json.dumps(doc).encode()),
        SubRequest("GET", echo, fields),
        SubRequest("GET", f"{echo}?{QUERY_BEFORE}$(0){QUERY_AFTER}"),
    ]
    env = expect_processed(
        ctx, judge, ctx.batch(judge, subs, headers=REFERENCES), [s.content_id for s in subs]
    )
    judge.require("part 0 status", part_status(env, 0), {201}, "MB-TEST-3")
    location = _single(env.parts[0].get_all("Location"))
    if location is None:
        judge.setup_error("the 201 of part 0 names no single Location")
    # Spec 7.7: "`$(N)` stands for the `Location` of part N's response, resolved against part
    # N's target (RFC 9110 §10.2.2) and written in origin form (path and query); `$(N:name)`
    # stands for the value of the response field `name` of part N, as received". MB-PROC-18:
    # "MUST replace each reference in a part's `Content-Id` and header field values".
    origin = urlsplit(ctx.target.base_url)
    base = f"{origin.scheme}://{origin.netloc}{coll}"
    resolved = urlsplit(urljoin(base, location.strip()))
    origin_form = (resolved.path or "/") + (f"?{resolved.query}" if resolved.query else "")
    judge.require("part 1 status", part_status(env, 1), {200}, "MB-PROC-18")
    (seen,) = readable_echoes(judge, env.parts[1].body)
    where = seen.get_all("X-Mb-Where")
    judge.expect("X-Mb-Where received", where, [[f"at {origin_form}"]], "MB-PROC-18")
    judge.expect(
        "X-Mb-Location received", seen.get_all("X-Mb-Location"), [[location]], "MB-PROC-18"
    )
    # The same replacement in a target's query: the reference stands for the origin form as
    # text, wherever in the Content-Id it is written (spec 7.7), never re-encoded as a query
    # component would be.
    judge.require("part 2 status", part_status(env, 2), {200}, "MB-PROC-18")
    (queried,) = readable_echoes(judge, env.parts[2].body)
    judge.expect(
        "the target received for $(0) in a query",
        queried.target,
        {f"{echo}?{QUERY_BEFORE}{origin_form}{QUERY_AFTER}"},
        "MB-PROC-18",
    )


@checker(
    "references-escape-literal",
    ("MB-PROC-18",),
    "Under Batch-Mode: references, $$( reaches the part's resource as a literal $( and any other $ as itself, in the target and in a field value.",
    profile="references",
    state=State.READ_ONLY,
)
def escape_literal(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    echo = ctx.path(ctx.resource(judge, "echo"))
    # `$`, `(` and `)` are sub-delims, valid in a query (RFC 3986 §3.4).
    subs = [
        SubRequest("GET", ok),
        SubRequest("GET", f"{echo}?q=$$(0)&p=$5&r=$$", (("X-Mb-Literal", "$$(0) cost $5 $$ $"),)),
    ]
    env = expect_processed(
        ctx, judge, ctx.batch(judge, subs, headers=REFERENCES), [s.content_id for s in subs]
    )
    # Spec 7.7: "`$$(` stands for a literal `$(`; any other `$` is itself." MB-PROC-18: the
    # part runs "as the same request sent alone with those values".
    judge.require("part 1 status", part_status(env, 1), {200}, "MB-PROC-18")
    (seen,) = readable_echoes(judge, env.parts[1].body)
    judge.expect("target received", seen.target, {f"{echo}?q=$(0)&p=$5&r=$$"}, "MB-PROC-18")
    judge.expect(
        "X-Mb-Literal received", seen.get_all("X-Mb-Literal"), [["$(0) cost $5 $$ $"]], "MB-PROC-18"
    )


@checker(
    "references-not-in-content",
    ("MB-PROC-18",),
    "Under Batch-Mode: references, $(0) and $(0:ETag) in a part's content reach its resource unchanged.",
    profile="references",
    state=State.READ_ONLY,
)
def not_in_content(ctx: Context, judge: Judge) -> None:
    tagged = ctx.path(ctx.resource(judge, "etag_resource"))
    echo = ctx.path(ctx.resource(judge, "echo"))
    text = (("Content-Type", "text/plain"),)
    bodies = [b"x $(0) y", b"x $(0:ETag) y $$(0)"]
    subs = [SubRequest("GET", tagged), *(SubRequest("POST", echo, text, b) for b in bodies)]
    env = expect_processed(
        ctx, judge, ctx.batch(judge, subs, headers=REFERENCES), [s.content_id for s in subs]
    )
    # Spec 7.7: "References are not substituted in part content: a server cannot know where in
    # arbitrary octets a URI sits, and the substitution would change the part's length";
    # MB-PROC-18 names only "a part's `Content-Id` and header field values".
    for i, body in enumerate(bodies, start=1):
        judge.expect(f"part {i} status", part_status(env, i), {200}, "MB-PROC-18")
        if part_status(env, i) != 200:
            continue
        (seen,) = readable_echoes(judge, env.parts[i].body)
        judge.expect(f"part {i} content received", seen.body, {body}, "MB-PROC-18")


@checker(
    "references-missing-field-skipped",
    ("MB-PROC-20",),
    "A part whose $(0:name) names a field part 0's response lacks is skipped with a problem naming the reference as written, and a later independent part runs.",
    profile="references",
    state=State.READ_ONLY,
)
def missing_field_skipped(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    echo = ctx.path(ctx.resource(judge, "echo"))
    written = f"$(0:{ABSENT_FIELD})"
    subs = [
        SubRequest("GET", ok),
        SubRequest("GET", echo, (("X-Mb-Tag", written),)),
        SubRequest("GET", ok),
    ]
    env = expect_processed(
        ctx, judge, ctx.batch(judge, subs, headers=REFERENCES), [s.content_id for s in subs]
    )
    judge.require("part 0 status", part_status(env, 0), {200}, "MB-TEST-1")
    if env.parts[0].get_all(ABSENT_FIELD):
        judge.setup_error(f"the ok resource sends {ABSENT_FIELD}, so the reference resolves")
    # MB-PROC-20: a part whose reference cannot be resolved because "its response has no such
    # field" is answered "`Batch-Outcome: skipped` with an `application/problem+json` body whose
    # `requirement` is `MB-PROC-20` and whose `reference` member is the reference as written,
    # and the error policy treats that part as one that did not fail".
    part = env.parts[1]
    judge.expect("part 1 Batch-Outcome", part.get("Batch-Outcome"), {"skipped"}, "MB-PROC-20")
    judge.expect("part 1 status", part_status(env, 1), {None}, "MB-RESP-5")
    media, _ = judge.media_type("part 1 Content-Type", part.get("Content-Type"), "MB-PROC-20")
    try:
        doc = loads_json_text(part.body) if media == "application/problem+json" else None
    except ValueError:
        doc = None
    doc = doc if isinstance(doc, dict) else {}
    judge.expect("part 1 problem requirement", doc.get("requirement"), {"MB-PROC-20"})
    judge.expect("part 1 problem reference", doc.get("reference"), {written}, "MB-PROC-20")
    judge.expect("part 2 status", part_status(env, 2), {200}, "MB-PROC-20")


@checker(
    "references-own-credentials-substituted",
    ("MB-SUB-5", "MB-PROC-18"),
    "Under Batch-Mode: references, a part whose own Authorization or Cookie holds $(0:ETag) receives that field alone, substituted, and not the batch's: a part's own credentials replace the batch's whether or not they hold a reference.",
    profile="references",
    state=State.READ_ONLY,
)
def own_credentials_substituted(ctx: Context, judge: Judge) -> None:
    if ctx.target.credentials:
        judge.not_applicable(
            "the target needs credentials of its own, which a part's would replace"
        )
    tagged = ctx.path(ctx.resource(judge, "etag_resource"))
    echo = ctx.path(ctx.resource(judge, "echo"))
    nonce = secrets.token_hex(6)
    outer = (
        ("Authorization", f"Bearer mb-suite-outer-{nonce}"),
        ("Cookie", f"mb-suite-outer={nonce}"),
    )
    own = (("Authorization", "Bearer $(0:ETag)"), ("Cookie", "mb-suite-tag=$(0:ETag)"))
    subs = [SubRequest("GET", tagged)]
    subs += [
        SubRequest("GET", f"{echo}?mb-own={name.lower()}", ((name, value),)) for name, value in own
    ]
    env = expect_processed(
        ctx,
        judge,
        ctx.batch(judge, subs, headers=(*REFERENCES, *outer)),
        [s.content_id for s in subs],
    )
    judge.require("part 0 status", part_status(env, 0), {200}, "MB-TEST-1")
    etag = _single(env.parts[0].get_all("ETag"))
    if etag is None:
        judge.setup_error("part 0 (the etag_resource) carries no single ETag to name")
    for i, (name, value) in enumerate(own, start=1):
        judge.require(f"part {i} status", part_status(env, i), {200}, "MB-PROC-18")
        (seen,) = readable_echoes(judge, env.parts[i].body)
        # MB-SUB-5: "MUST use a part's own `Authorization` or `Cookie` instead of the batch
        # request's when the part has one"; MB-PROC-18: its reference is replaced "before that
        # part runs", so the part's field is its own, substituted.
        judge.expect(
            f"part {i} {name} received",
            seen.get_all(name),
            [[value.replace("$(0:ETag)", etag)]],
            "MB-SUB-5",
        )
