"""A sub-response's field values holding obs-text reach its response part (spec 3.3.3).

Theory of operation: RFC 9110 §5.5 makes `field-vchar = VCHAR / obs-text`, so a field value
may hold any octet from 0x80 to 0xFF, and MB-RESP-4 gives a response part "the sub-response's
header fields" with no exception for such values: only the connection-specific and framing
fields are left out. A server that screens the fields it copies into a part for "safe" octets
(MB-SEC-3 forbids CR, LF and NUL in a part field, nothing else) loses a field the sub-response
carried.

The only sub-response field a suite can put such octets in is a sandbox member's media type:
the check creates a member, and for each `Content-Type` below sends one batch that writes the
member document under it with a PUT part and reads the member back with a GET part and a HEAD
part. Each value is the media type MB-TEST-3 names (`application/json`, so a sandbox that takes
only its member document takes it), with a parameter of obs-text: unquoted (no token, but a
field value all the same), quoted, the two octets UTF-8 gives é, the lowest and highest
obs-text octets, and a no-break space (0xA0) ending the value, which a server that trims
"Unicode whitespace" would cut.

Whether the sandbox keeps a media type at all is the sandbox's business (MB-TEST-4 promises
only the content back), so the GET and HEAD of the member alone, sent after the batch, say what
the sub-responses carry: a value the member alone does not answer with a field holding an octet
above 0x7F is noted and not judged, and the check is not applicable when no value is. Where it
is, the GET and HEAD parts must carry the same status and fields as the requests alone,
compared as spec 3.2.4 says (MB-SUB-1, MB-RESP-4). The member is deleted at the end
(MB-TEST-3).
"""

from __future__ import annotations

from collections.abc import Sequence

from mixbatch_conformance.checks._shared.alone import expect_same_as_alone
from mixbatch_conformance.checks._shared.requests import new_member
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.validator import parse_media_type, read_multipart

__all__: list[str] = []

#: Media types with obs-text parameters, one character per octet sent (ISO-8859-1).
OBS_TEXT_TYPES = (
    "application/json; mb-note=caf\xe9",
    'application/json; mb-note="caf\xe9"',
    'application/json; mb-note="caf\xc3\xa9"',
    'application/json; mb-note="\x80 \xff"',
    "application/json; mb-note=a\xa0",
)


def _holds_obs_text(fields: Sequence[tuple[str, str]]) -> bool:
    return any(max(map(ord, v), default=0) > 0x7F for _, v in fields)


@checker(
    "sub-response-obs-text-fields-as-alone",
    ("MB-RESP-4", "MB-SUB-1"),
    "A sandbox member written by a PUT part under a media type whose parameter holds obs-text octets (unquoted, quoted, UTF-8, 0x80 and 0xFF, a closing no-break space) is read back by GET and HEAD parts of the same batch with the status and fields the member's GET and HEAD alone answer, that Content-Type included.",
    state=State.WRITES_IN_SANDBOX,
)
def sub_response_obs_text_fields(ctx: Context, judge: Judge) -> None:
    path, doc = new_member(ctx, judge)
    judged = 0
    try:
        for media in OBS_TEXT_TYPES:
            put = SubRequest("PUT", path, (("Content-Type", media),), doc)
            reads = [SubRequest("GET", path), SubRequest("HEAD", path)]
            subs = [put, *reads]
            env = expect_processed(ctx, judge, ctx.batch(judge, subs), [s.content_id for s in subs])
            if part_status(env, 0) not in (200, 204):
                # MB-TEST-3 promises nothing of content under a type it need not take.
                judge.note(f"PUT {path} part under {media!r} answered {part_status(env, 0)}")
                continue
            alone = [ctx.alone(judge, s) for s in reads]
            if alone[0].status != 200 or not _holds_obs_text(alone[0].headers):
                judge.note(
                    f"GET {path} alone after a write under {media!r} answered {alone[0].status}"
                    " with no field holding an octet above 0x7F; not judged"
                )
                continue
            judged += 1
            for i, (sub, single) in enumerate(zip(reads, alone, strict=True), start=1):
                part = env.parts[i]
                # MB-RESP-4: "A server MUST put the sub-response's header fields in the
                # response part, except the connection-specific and framing fields"; RFC 9110
                # §5.5: `field-vchar = VCHAR / obs-text`, so a value holding 0x80-0xFF is a
                # field value like any other. MB-SUB-1 makes the sub-response the request
                # alone's, compared as spec 3.2.4 says.
                expect_same_as_alone(
                    ctx,
                    judge,
                    f"{sub.method} part after a write under {media!r}",
                    sub,
                    (part_status(env, i), part.fields, part.body),
                    (single.status, single.headers, single.body),
                )
    finally:
        # MB-TEST-3: "A suite deletes every member it creates before it finishes".
        ctx.alone(judge, SubRequest("DELETE", path))
    if not judged:
        judge.not_applicable(
            "the sandbox answers none of the media types written with a field holding obs-text"
        )


#: Media types holding NUL, the one octet MB-SEC-3 forbids in a part field that a request line's
#: field value can carry at all (CR and LF would end the line): in a parameter and in the type.
NUL_TYPES = ("application/json; mb-note=a\x00b", "application/json\x00")


@checker(
    "stored-nul-kept-out-of-part-fields",
    ("MB-SEC-3",),
    "A sandbox member written alone under a media type holding NUL, where the server takes it, is read back by GET and HEAD parts whose header fields hold no NUL: the server fails the part (a 5xx) or writes other fields, never the value as stored.",
    state=State.WRITES_IN_SANDBOX,
    tier="standard",
)
def stored_nul_kept_out_of_part_fields(ctx: Context, judge: Judge) -> None:
    path, doc = new_member(ctx, judge)
    judged = 0
    try:
        for media in NUL_TYPES:
            # Written alone: a part header holding NUL is refused as a malformed part
            # (MB-PART-11); in a request head RFC 9110 §5.5 has a recipient "either reject the
            # message or replace each of those characters with SP", and a server that takes the
            # value as it is still may not write it into a part.
            put = ctx.alone(judge, SubRequest("PUT", path, (("Content-Type", media),), doc))
            if not 200 <= put.status < 300:
                judge.note(f"PUT {path} alone under {media!r} answered {put.status}; not judged")
                continue
            judged += 1
            reads = [SubRequest("GET", path), SubRequest("HEAD", path)]
            resp = ctx.batch(judge, reads)
            _, params = parse_media_type(resp.get("Content-Type") or "")
            boundary = params.get("boundary", "")
            # MB-SEC-3: "A sender MUST NOT write a part header field whose name is not a token
            # or whose value contains CR, LF or NUL; it fails locally instead." How it fails
            # (a 5xx part, an abort part, the answer cut short, a 5xx batch) is the server's.
            found = [
                f"{f.message} at octet {f.offset}"
                for f in (read_multipart(resp.body, boundary).findings if boundary else [])
                if f.sender == "MB-SEC-3" and "\\x00" in f.message
            ]
            judge.expect_true(
                f"part fields after a write under {media!r}",
                not found,
                "; ".join(found) or f"{resp.status}, no part field holding NUL",
                "no part header field holding NUL",
                "MB-SEC-3",
            )
    finally:
        # MB-TEST-3: "A suite deletes every member it creates before it finishes".
        ctx.alone(judge, SubRequest("DELETE", path))
    if not judged:
        judge.not_applicable("the server takes no media type holding NUL in a PUT alone")
