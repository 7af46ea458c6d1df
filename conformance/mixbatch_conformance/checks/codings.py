"""A batch sent in the chunked transfer coding or in a content coding (spec 10.1).

Theory of operation: MB-INTER-5 makes chunked batch content answered "as it answers the same
content framed by `Content-Length`". `chunked-batch-answered-as-content-length` sends one valid
batch twice, framed each way, and compares the two answers part by part: status, header fields
and content, with `Date` and the target's volatile fields left out, and echo descriptions
compared by the rules of spec 3.2.4 (the framing fields a server's HTTP stack adds are not the
request). The batch has several parts, a body holding CRLF and dashes, and a body larger than
one chunk, so that a server reading only the first chunk, or splitting parts at chunk
boundaries, answers otherwise. The batch reads `ok` and `not_found` and writes only to `echo`,
which keeps nothing. `chunked-coding-name-any-case` sends the same batch chunked with the
transfer coding's name in other case (`Chunked`, `CHUNKED`, `cHuNkEd`), alone and with spaces
and tabs around it, and compares each answer with the one framed by Content-Length alike: RFC
9112 §7 has "All transfer-coding names are case-insensitive", so each is the chunked transfer
coding. It is not applicable over HTTP/2, which has no Transfer-Encoding, nor through an
intermediary, which may write the field anew.

MB-INTER-6 makes a batch in a content coding the server does not decode answered 415 "before
any part runs". `content-coded-batch-runs-nothing` sends a batch naming a coding no server
supports whose content, read as it stands, writes a marked member into the sandbox, and expects
the 415 and the marker absent from the sandbox listing afterwards; it sends that batch framed by
Content-Length and again chunked, since removing the chunked transfer coding leaves the content
coding in place and MB-INTER-5 answers chunked content as the same content framed by length.
Whether the codings the 415's `Accept-Encoding` names are decoded, and every other registered
coding refused, is judged by `registered-codings-decoded-or-refused`, which needs no sandbox.
"""

from __future__ import annotations

from dataclasses import replace

from mixbatch_conformance.checks._shared.alone import role_of
from mixbatch_conformance.checks._shared.chunking import CHUNK_OCTETS, chunked_content
from mixbatch_conformance.checks._shared.content_codings import UNKNOWN_CODING
from mixbatch_conformance.checks._shared.requests import ok_and_not_found, sandbox_listing
from mixbatch_conformance.checks._shared.sandbox_marks import marked_post
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.echo import differences, read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, expect_rejected, part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import comparable_fields
from mixbatch_conformance.core.validator import Envelope
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

BOUNDARY = "mb-coding-7d1e04b9a2c85f63"
#: A body that looks like framing: CRLFs, a line of dashes, a delimiter of another boundary
#: and a chunk-size line, so a reader confusing body octets with either framing misreads it.
FRAMING_LOOKALIKE = b"line one\r\n--\r\n--not-the-boundary\r\n0\r\n\r\n-- last line\r\n"
#: The large body: more than one chunk, so the batch spans several.
LARGE_OCTETS = CHUNK_OCTETS + 4099
#: The large body cut to this many octets for the batch sent in one-octet chunks: over 11,000
#: chunks in all, few enough for a slow reader to take within a batch budget of seconds.
ONE_OCTET_CONTENT = 11_000


def _parts(ctx: Context, judge: Judge) -> list[SubRequest]:
    ok, nf = ok_and_not_found(ctx, judge)
    echo = ctx.path(ctx.resource(judge, "echo"))
    large = bytes((i * 7 + 13) % 256 for i in range(LARGE_OCTETS))
    return [
        ok,
        SubRequest("PUT", echo, (("Content-Type", "text/plain"),), FRAMING_LOOKALIKE),
        SubRequest("POST", echo, (("Content-Type", "application/octet-stream"),), large),
        nf,
        SubRequest("GET", f"{echo}?after=large"),
    ]


def _post(
    ctx: Context, judge: Judge, body: bytes, chunked: bool, size: int = CHUNK_OCTETS
) -> Response:
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    if not chunked:
        return ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body))
    framed, count = chunked_content(body, size)
    judge.note(f"the same content sent chunked in {count} chunks of {size} octets")
    head.append(("Transfer-Encoding", "chunked"))
    return ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, framed))


def _expect_alike(
    ctx: Context,
    judge: Judge,
    subs: list[SubRequest],
    framed: Envelope,
    resp: Response,
    how: str,
) -> None:
    """`resp`, the batch of `subs` sent chunked as `how` says, answers part for part as
    `framed`, the same content framed by Content-Length, answers."""
    # MB-INTER-5: "A server MUST accept batch request content framed by the chunked transfer
    # coding (RFC 9112 §7.1) and answer it as it answers the same content framed by
    # `Content-Length`".
    judge.require(f"status of the batch {how}", resp.status, {200}, "MB-INTER-5")
    chunked = ctx.read_batch(judge, resp)
    judge.require(f"part count of the batch {how}", len(chunked.parts), {len(subs)}, "MB-INTER-5")
    volatile = ctx.target.volatile_headers
    for i, sub in enumerate(subs):
        label = f"part {i} ({sub.method} {sub.target}) sent {how}"
        mine, theirs = chunked.parts[i], framed.parts[i]
        judge.expect(
            f"{label}: status",
            part_status(chunked, i),
            {part_status(framed, i)},
            "MB-INTER-5",
        )
        judge.expect(
            f"{label}: fields",
            comparable_fields(mine.fields, volatile),
            {comparable_fields(theirs.fields, volatile)},
            "MB-INTER-5",
        )
        got, want = read_echo(mine.body), read_echo(theirs.body)
        if role_of(ctx, sub.target) == "echo" and got is not None and want is not None:
            # Spec 3.2.4: the framing fields a server's HTTP stack adds are not the request.
            found = differences(got, want, volatile)
            judge.expect_true(
                f"{label}: the request the echo received",
                not found,
                "; ".join(found) or "the same request",
                "the same method, target, content and fields as framed by Content-Length",
                "MB-INTER-5",
            )
        else:
            judge.expect(f"{label}: content", mine.body, {theirs.body}, "MB-INTER-5")


@checker(
    "chunked-batch-answered-as-content-length",
    ("MB-INTER-5",),
    "A valid batch of several parts, one body holding CRLF and dashes and one larger than a chunk, sent chunked in chunks of 64 KiB, and a smaller one of three parts in more than 11,000 one-octet chunks, is answered part for part as the same content framed by Content-Length.",
    state=State.READ_ONLY,
)
def chunked_batch_answered_as_content_length(ctx: Context, judge: Judge) -> None:
    subs = _parts(ctx, judge)
    body = compose_batch(subs, BOUNDARY)
    cids = [s.content_id for s in subs]
    framed = expect_processed(ctx, judge, _post(ctx, judge, body, False), cids)
    _expect_alike(ctx, judge, subs, framed, _post(ctx, judge, body, True), "chunked")
    # Spec 10.1: the limits on chunked content "count the content's octets whatever frames
    # them", so no count of chunks is one: a smaller batch in chunks of one octet each, more
    # of them than a reader that bounds its chunks at 4,096 or 10,000 takes, is answered as
    # the same content framed by Content-Length.
    few = [subs[0], subs[1], replace(subs[2], body=subs[2].body[:ONE_OCTET_CONTENT])]
    small = compose_batch(few, BOUNDARY)
    framed = expect_processed(ctx, judge, _post(ctx, judge, small, False), cids[:3])
    one_each = _post(ctx, judge, small, True, 1)
    _expect_alike(ctx, judge, few, framed, one_each, f"in {len(small)} chunks of one octet")


#: `Transfer-Encoding` values naming the chunked transfer coding otherwise than in lower case
#: (RFC 9112 §7: "All transfer-coding names are case-insensitive"), and with spaces and tabs
#: around the list's one member (OWS, RFC 9110 §5.6.1 and §5.6.3).
CHUNKED_SPELLINGS = (
    "Chunked",
    "CHUNKED",
    "cHuNkEd",
    "\tChunked",
    "CHUNKED \t",
    " \tcHuNkEd\t ",
)


@checker(
    "chunked-coding-name-any-case",
    ("MB-INTER-5",),
    "A valid batch of several parts sent with Transfer-Encoding naming chunked as Chunked, CHUNKED or cHuNkEd, alone and with spaces and tabs around it, is answered part for part as the same content framed by Content-Length.",
    state=State.READ_ONLY,
    direct_only="an intermediary may write the request's Transfer-Encoding anew",
)
def chunked_coding_name_any_case(ctx: Context, judge: Judge) -> None:
    if ctx.settings.http2:
        judge.not_applicable("HTTP/2 carries no Transfer-Encoding")
    subs = _parts(ctx, judge)
    body = compose_batch(subs, BOUNDARY)
    cids = [s.content_id for s in subs]
    framed = expect_processed(ctx, judge, _post(ctx, judge, body, False), cids)
    content, _ = chunked_content(body)
    for spelling in CHUNKED_SPELLINGS:
        head = [
            ("Content-Type", f"multipart/mixed; boundary={BOUNDARY}"),
            ("Transfer-Encoding", spelling),
        ]
        request = ctx.raw_request("POST", ctx.batch_path, head, content)
        resp = ctx.send(judge, request, as_written=True)
        judge.note(f"Transfer-Encoding: {spelling!r}: {resp.status}")
        # RFC 9112 §7: "All transfer-coding names are case-insensitive", and OWS around a list
        # member is no part of it: this is the chunked transfer coding, which MB-INTER-5 has
        # answered "as it answers the same content framed by `Content-Length`".
        _expect_alike(ctx, judge, subs, framed, resp, f"with Transfer-Encoding {spelling!r}")


@checker(
    "content-coded-batch-runs-nothing",
    ("MB-INTER-6",),
    "A batch in a content coding no server supports, whose content as it stands writes a marked member into the sandbox, is answered 415 with Accept-Encoding and the write has not run, framed by Content-Length and sent chunked alike.",
    state=State.WRITES_IN_SANDBOX,
)
def content_coded_batch_runs_nothing(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    # MB-INTER-5: chunked content is answered "as it answers the same content framed by
    # `Content-Length`": the chunked transfer coding is no content coding, and removing it
    # leaves the content coding in place.
    for chunked in (False, True):
        framing = "chunked" if chunked else "Content-Length"
        marker, post = marked_post(ctx, judge, coll)
        before = sandbox_listing(ctx, judge, coll)
        if marker.encode() in before:
            judge.setup_error("the marker is already in the sandbox listing")
        head = [
            ("Content-Type", f"multipart/mixed; boundary={BOUNDARY}"),
            ("Content-Encoding", UNKNOWN_CODING),
        ]
        body = compose_batch([post], BOUNDARY)
        if chunked:
            body, _ = chunked_content(body)
            head.append(("Transfer-Encoding", "chunked"))
        resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body))
        judge.note(f"a batch in {UNKNOWN_CODING!r} framed by {framing}: {resp.status}")
        # MB-INTER-6: "MUST answer 415 with an `Accept-Encoding` field naming the codings it
        # does decode" (its problem document is judged by refusals-are-problems-under-every-accept).
        expect_rejected(judge, resp, {415}, "MB-INTER-6", problem=False)
        if resp.status == 415:
            judge.expect_true(
                f"Accept-Encoding on the 415 for a content coding ({framing})",
                resp.get("Accept-Encoding") is not None,
                "no Accept-Encoding field",
                "an Accept-Encoding field",
                "MB-INTER-6",
            )
        ran = marker.encode() in sandbox_listing(ctx, judge, coll)
        # MB-INTER-6: "... before any part runs".
        judge.expect_true(
            f"the POST in a content-coded batch ({framing})",
            not ran,
            "the POST part ran" if ran else "not created",
            "the POST part did not run",
            "MB-INTER-6",
        )
