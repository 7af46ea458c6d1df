"""Representation checks (spec 6): negotiation and the 207 Multi-Status forms.

Theory of operation: Accept decides the form of a batch response: multipart/mixed by default
and for */* (MB-MULTI-1), 406 when nothing offered is acceptable (MB-STATUS-9), 207 with the
XML or JSON multistatus document when the target claims that profile (MB-MULTI-2..4,
MB-MULTI-6, MB-MULTI-7); the three forms of one batch carry the same statuses, fields and
bodies (MB-MULTI-5), for a body with its validators, a 404 and a HEAD. The JSON form's body
member follows the octets alone, judged over random bodies of many sizes, each of which must
come back as exactly its octets; bodies written to a sandbox member (every C0 control and DEL
among them, which a JSON string carries only escaped) come back in the JSON form as the octets
read alone (MB-MULTI-7) and as the same part carries in the multipart form (MB-MULTI-5). The
readers for the XML and JSON forms live in core.representations.
"""

from __future__ import annotations

import json

from mixbatch_conformance.checks._shared.collections import created_path
from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.json_text import loads_json_text
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, expect_rejected
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import (
    ENTRY_COUNT_REQUIREMENT,
    JSON_FORM,
    MULTISTATUS_FORMS,
    broken_by,
    entries_from_json,
    entries_from_multipart,
    entries_from_xml,
    require_readable,
)


@checker(
    "accept-not-acceptable",
    ("MB-STATUS-9",),
    "A batch whose Accept admits none of the offered representations is answered 406.",
    state=State.READ_ONLY,
)
def accept_not_acceptable(ctx: Context, judge: Judge) -> None:
    ok, _ = ok_and_not_found(ctx, judge)
    resp = ctx.batch(judge, [ok], headers=(("Accept", "image/png"),))
    expect_rejected(judge, resp, {406}, "MB-STATUS-9", problem=False)


@checker(
    "accept-default-multipart",
    ("MB-MULTI-1",),
    "Without Accept, with an empty Accept, with an Accept of empty list elements only and with Accept */*, the batch response is multipart/mixed with status 200.",
    state=State.READ_ONLY,
)
def accept_default(ctx: Context, judge: Judge) -> None:
    ok, _ = ok_and_not_found(ctx, judge)
    # MB-MULTI-1: "choose `multipart/mixed` when `Accept` is absent or empty, or gives
    # `multipart/mixed` a quality value at least as high as any other representation"; spec
    # 6.1: "`Accept: ,` holds no element and is treated as absent, as an empty value is".
    empties = ((("Accept", ","),), (("Accept", " , ,"),), (("Accept", ","), ("Accept", "")))
    for headers in ((), (("Accept", "*/*"),), (("Accept", ""),), *empties):
        resp = ctx.batch(judge, [ok], headers=headers)
        judge.expect(f"status with {headers!r}", resp.status, {200}, "MB-STATUS-1")
        judge.expect(
            f"media type with {headers!r}", resp.media_type, {"multipart/mixed"}, "MB-MULTI-1"
        )


def _representation(ctx: Context, judge: Judge, accept: str) -> tuple[list[SubRequest], bytes, str]:
    ok, nf = ok_and_not_found(ctx, judge)
    subs = [ok, nf]
    resp = ctx.batch(judge, subs, headers=(("Accept", accept),))
    judge.require(
        "status", resp.status, {207}, "MB-STATUS-1" if accept != "multipart/mixed" else None
    )
    judge.expect_true(
        "207 does not carry multipart",
        not resp.media_type.startswith("multipart/"),
        resp.media_type,
        "a non-multipart media type",
        "MB-MULTI-2",
    )
    return subs, resp.body, resp.media_type


@checker(
    "multistatus-xml",
    ("MB-MULTI-3", "MB-MULTI-2", "MB-MULTI-6"),
    "Accept application/xml gives 207 with one multistatus response per part, in order, with indexes.",
    profile="xml",
    state=State.READ_ONLY,
)
def multistatus_xml(ctx: Context, judge: Judge) -> None:
    subs, body, media = _representation(ctx, judge, "application/xml")
    # MB-MULTI-3 names "an RFC 4918 `DAV:multistatus` document"; spec 6.1's table gives its
    # media type as `application/xml`.
    judge.expect("media type", media, {"application/xml"}, "MB-MULTI-3")
    entries, problem = entries_from_xml(body)
    judge.require(
        "XML document",
        problem,
        {None},
        broken_by(problem, "MB-MULTI-6"),
        allowed_text="a well-formed multistatus with base64 mb:body elements",
    )
    # MB-MULTI-3: "one `DAV:response` per request part, in request order, each carrying its
    # part index".
    judge.require("response count", len(entries), {len(subs)}, "MB-MULTI-3")
    multipart = expect_processed(ctx, judge, ctx.batch(judge, subs), [s.content_id for s in subs])
    base = entries_from_multipart(multipart)
    for i, entry in enumerate(entries):
        judge.expect(f"response {i} index", entry.index, {i}, "MB-MULTI-3")
        # MB-MULTI-6: "`mb:content-id` with the URI reference between the angle brackets".
        judge.expect(
            f"response {i} mb:content-id", entry.content_id, {subs[i].target}, "MB-MULTI-6"
        )
        # MB-MULTI-6: `DAV:status` "exactly when the part ran", the part's own status.
        judge.expect(f"response {i} DAV:status", entry.status, {base[i].status}, "MB-MULTI-6")
        # MB-MULTI-6: "one `mb:header` element per header field, in order" and "one `mb:body`
        # element ... holding the body in base64"; the same fields and octets as the multipart
        # form carries (MB-MULTI-5), which representations-equivalent judges in full.
        want = base[i].comparable(ctx.target.volatile_headers)
        got = entry.comparable(ctx.target.volatile_headers)
        judge.expect(f"response {i} mb:header fields", got[2], {want[2]}, "MB-MULTI-6")
        judge.expect(f"response {i} mb:body", got[3], {want[3]}, "MB-MULTI-6")


@checker(
    "multistatus-json",
    ("MB-MULTI-4", "MB-MULTI-2", "MB-MULTI-7"),
    "Accept application/vnd.mixbatch.multistatus+json gives 207 with a valid document, one entry per part in order.",
    profile="json",
    state=State.READ_ONLY,
)
def multistatus_json(ctx: Context, judge: Judge) -> None:
    subs, body, media = _representation(ctx, judge, "application/vnd.mixbatch.multistatus+json")
    judge.expect("media type", media, {"application/vnd.mixbatch.multistatus+json"}, "MB-MULTI-4")
    entries, problem = entries_from_json(body)
    judge.require(
        "JSON document",
        problem,
        {None},
        broken_by(problem, "MB-MULTI-4"),
        allowed_text="valid by schema",
    )
    judge.require("entry count", len(entries), {len(subs)}, "MB-MULTI-4")
    for i, entry in enumerate(entries):
        judge.expect(f"entry {i} index", entry.index, {i}, "MB-MULTI-4")
    doc = loads_json_text(body)
    for i, item in enumerate(doc["responses"]):
        try:
            entries[i].body.decode("utf-8")
            want = "body"
        except UnicodeDecodeError:
            want = "body_base64"
        have = [k for k in ("body", "body_base64") if k in item]
        judge.expect(f"entry {i} body member", have, [[want]], "MB-MULTI-7")


@checker(
    "representations-equivalent",
    ("MB-MULTI-5",),
    "The multipart, XML and JSON forms of one batch carry the same statuses, fields and bodies.",
    state=State.READ_ONLY,
)
def representations_equivalent(ctx: Context, judge: Judge) -> None:
    ok, nf = ok_and_not_found(ctx, judge)
    # A body and its validators (ETag, Last-Modified), a 404, and a HEAD (fields, no body).
    subs = [ok, nf, SubRequest("HEAD", ok.target)]
    if ctx.target.resource("etag_resource"):
        subs.append(SubRequest("GET", ctx.path(ctx.resource(judge, "etag_resource"))))
    resp = ctx.batch(judge, subs)
    env = expect_processed(ctx, judge, resp, [s.content_id for s in subs])
    base = entries_from_multipart(env, ctx.target.volatile_headers)
    forms = [(a, r) for p, a, r, _ in MULTISTATUS_FORMS if ctx.target.claims(p)]
    if not forms:
        judge.not_applicable("the target claims neither the xml nor the json profile")
    for accept, reader in forms:
        other = ctx.batch(judge, subs, headers=(("Accept", accept),))
        entries, problem = reader(other.body)
        judge.require(
            f"{accept} readable",
            problem,
            {None},
            broken_by(problem, "MB-MULTI-5"),
            allowed_text="readable",
        )
        got = [e.comparable(ctx.target.volatile_headers) for e in entries]
        want = [e.comparable(ctx.target.volatile_headers) for e in base]
        for i, (g, w) in enumerate(zip(got, want, strict=False)):
            judge.expect(f"{accept} part {i}", g, {w})
        judge.expect(
            f"{accept} entry count", len(got), {len(want)}, ENTRY_COUNT_REQUIREMENT[accept]
        )


#: Random parts of one octet: each is valid UTF-8 (below 0x80) with even odds, so among this
#: many at least one carries valid UTF-8 under a binary Content-Type but once in 2**8 runs.
ONE_OCTET_PARTS = 8
#: Random octets in one part: valid UTF-8 by chance far less often than once in 2**40 runs.
RANDOM_OCTETS = 64
#: Further sizes of random bodies, so that no size a server might treat apart (short bodies,
#: powers of two and their neighbours, either side of RANDOM_OCTETS) escapes the rule: most
#: are invalid UTF-8, and each must come back as exactly its octets, whichever member holds it.
RANDOM_SIZES = (2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 32, 33, 63, 65, 127, 128, 255, 256)


def _body_parts(ctx: Context, judge: Judge) -> list[SubRequest]:
    """Parts whose bodies test MB-MULTI-7's rule against the part's Content-Type."""
    ok, _ = ok_and_not_found(ctx, judge)
    # An empty body under a Content-Type that names text: "body": "".
    subs = [ok, SubRequest("HEAD", ok.target)]
    if ctx.target.resource("status"):
        # An empty body with no Content-Type at all.
        code = ctx.path(ctx.resource(judge, "status").replace("{code}", "204"))
        subs.append(SubRequest("GET", code))
    echo = ctx.target.resource("echo")
    if echo:
        # Content of valid UTF-8 holding U+FFFD (EF BF BD): the echo reports it in its
        # description (MB-TEST-2), so the part's body is valid UTF-8 holding U+FFFD unless the
        # echo escapes it; either way it goes in `body`.
        replaced = "caf\ufffd \ufffd".encode()
        subs.append(SubRequest("PUT", ctx.path(echo), (("Content-Type", "text/plain"),), replaced))
    if ctx.target.resource("random"):
        template = ctx.resource(judge, "random")
        # Octets under application/octet-stream or another binary type: empty (valid
        # UTF-8), one octet (often valid UTF-8) and many (invalid UTF-8).
        for n in (0, *[1] * ONE_OCTET_PARTS, RANDOM_OCTETS, *RANDOM_SIZES):
            subs.append(SubRequest("GET", ctx.path(template.replace("{n}", str(n)))))
    return subs


def _random_count(ctx: Context, sub: SubRequest) -> int | None:
    """The octet count a part asks the random resource for, or None for another part."""
    template = ctx.target.resource("random")
    if not template or "{n}" not in template:
        return None
    head, _, tail = ctx.path(template).partition("{n}")
    middle = sub.target[len(head) : len(sub.target) - len(tail) or None]
    if sub.target.startswith(head) and sub.target.endswith(tail) and middle.isdigit():
        return int(middle)
    return None


@checker(
    "multistatus-json-body-members",
    ("MB-MULTI-7", "MB-MULTI-4"),
    "The JSON form chooses body or body_base64 by the octets' UTF-8 validity, whatever the part's Content-Type: empty and valid UTF-8 bodies under binary types, and the echo's description of content holding U+FFFD, go in body.",
    profile="json",
    state=State.READ_ONLY,
)
def multistatus_json_body_members(ctx: Context, judge: Judge) -> None:
    subs = _body_parts(ctx, judge)
    resp = ctx.batch(judge, subs, headers=(("Accept", JSON_FORM),))
    judge.require("status", resp.status, {207}, "MB-STATUS-1")
    # MB-MULTI-7: "in `body`, as a JSON string, when the body octets are valid UTF-8 (an
    # empty body included, as `""`); otherwise in `body_base64`". The reader judges every
    # entry by that rule; spec 6.4: "The rule depends on the octets alone, not on the
    # declared `Content-Type`".
    entries, problem = entries_from_json(resp.body)
    require_readable(judge, "JSON document", problem, "MB-MULTI-7")
    judge.require("entry count", len(entries), {len(subs)}, "MB-MULTI-4")
    for i, (entry, sub) in enumerate(zip(entries, subs, strict=True)):
        if sub.method == "HEAD" or sub.target.endswith(("/0", "/204")):
            judge.expect(f"entry {i} ({sub.method} {sub.target}) body", entry.body, {b""})
        n = _random_count(ctx, sub)
        if n is not None and entry.status == 200:
            # MB-TEST-5: "exactly *n* octets of content"; MB-MULTI-7: the body goes in `body`
            # "when the body octets are valid UTF-8 ... otherwise in `body_base64`", so the
            # member holds those octets themselves: invalid octets written as text (replaced
            # by U+FFFD, or dropped) come back as a different count.
            judge.expect(f"entry {i} ({sub.target}) octets", len(entry.body), {n}, "MB-MULTI-7")


#: Contents that are valid UTF-8 however little they look like text: every C0 control and DEL
#: (a JSON string escapes them), NUL alone, a byte order mark, U+0085, U+2028 and U+2029, a
#: noncharacter, a four-octet character, U+FFFD (EF BF BD), the character a decoder puts
#: for octets it cannot decode, which is valid UTF-8 for all that, and the characters a JSON
#: string must escape (quote, backslash) or may (solidus), beside markup and a script end tag.
#: Each goes in `body`.
UTF8_CONTENTS = (
    b'"\\ \\" \\u0041 / </script> ]]> &amp; <&>\t\\',
    bytes(range(0x20)) + b"\x7f",
    b"\x00",
    b"\x1b[0m",
    "\ufeffa".encode(),
    "a\u0085b\u2028c\u2029".encode(),
    "\uffff\ufffe".encode(),
    "\U0001f600 caf\u00e9".encode(),
    "\ufffd".encode(),
    "caf\ufffd \ufffd\ufffd".encode(),
)
#: Contents that look close to UTF-8 and are not: an encoded surrogate, an overlong `/`, a lone
#: continuation octet, a sequence cut short, and a code point above U+10FFFF. Each goes in
#: `body_base64`.
NOT_UTF8_CONTENTS = (b"\xed\xa0\x80", b"\xc0\xaf", b"a\x80b", b"\xe2\x82", b"\xf4\x90\x80\x80")


@checker(
    "multistatus-json-body-members-chosen-octets",
    ("MB-MULTI-7", "MB-MULTI-4", "MB-MULTI-5"),
    "The JSON form carries in body every valid UTF-8 body, every control character, NUL, a byte order mark, noncharacters and U+FFFD included, and in body_base64 the octets that only look like UTF-8 (an encoded surrogate, an overlong form, a cut sequence): bodies written to a sandbox member as octets and read back by a part, each the octets the same part carries in the multipart form.",
    profile="json",
    state=State.WRITES_IN_SANDBOX,
)
def multistatus_json_body_members_chosen_octets(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    member = ctx.target.sandbox_member
    if member is None or not ctx.target.sandbox_reads_back:
        judge.not_applicable("the target declares no sandbox member that reads back")
    made = ctx.alone(
        judge,
        SubRequest(
            "POST", coll, (("Content-Type", "application/json"),), json.dumps(member).encode()
        ),
    )
    location = made.get("Location")
    if made.status != 201 or not location:
        judge.not_applicable(f"a POST of sandbox.member alone answered {made.status}")
    loc = created_path(ctx, coll, location)
    assert loc is not None
    judged = 0
    try:
        for octets in (*UTF8_CONTENTS, *NOT_UTF8_CONTENTS):
            put = SubRequest("PUT", loc, (("Content-Type", "application/octet-stream"),), octets)
            get = SubRequest("GET", loc)
            resp = ctx.batch(judge, [put, get], headers=(("Accept", JSON_FORM),))
            judge.require("status", resp.status, {207}, "MB-STATUS-1")
            # MB-MULTI-7: "in `body`, as a JSON string, when the body octets are valid UTF-8
            # ...; otherwise in `body_base64`"; spec 6.4: "The rule depends on the octets
            # alone". The reader refuses an entry whose member the octets do not choose.
            entries, problem = entries_from_json(resp.body)
            require_readable(judge, f"JSON document for {octets!r}", problem, "MB-MULTI-7")
            judge.require("entry count", len(entries), {2}, "MB-MULTI-4")
            if entries[0].status not in (200, 204) or entries[1].status != 200:
                # MB-TEST-3 lets a sandbox refuse content that is not a member document.
                continue
            # The member read alone: the octets the part's entry must carry (MB-TEST-4 makes
            # them the octets written; the check compares with what the server answers alone).
            alone = ctx.alone(judge, get)
            if alone.status != 200:
                continue
            judge.expect(f"entry body for {octets!r}", entries[1].body, {alone.body}, "MB-MULTI-7")
            # MB-MULTI-5: "carry the same information in every representation of one batch
            # result: for each part, in order, ... its body": the same batch in the multipart
            # form, whose GET part carries the octets the JSON entry must decode to (a control
            # character escaped as another code, 0x1B as `\u0027`, is another body).
            multipart = ctx.batch(judge, [put, get])
            if multipart.status == 200:
                env = expect_processed(ctx, judge, multipart, [put.content_id, get.content_id])
                judge.expect(
                    f"entry body for {octets!r} as the multipart part's",
                    entries[1].body,
                    {env.parts[1].body},
                    "MB-MULTI-5",
                )
            judged += 1
    finally:
        ctx.alone(judge, SubRequest("DELETE", loc))
    if not judged:
        judge.not_applicable(
            "the sandbox stored none of the contents as octets (MB-TEST-3 lets it refuse them)"
        )
