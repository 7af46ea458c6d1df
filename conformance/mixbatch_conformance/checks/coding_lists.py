"""A batch's Content-Encoding read as a list, every member and every field line (spec 10.1).

Theory of operation: `Content-Encoding` is a list of the codings applied, in order, and may be
split over several field lines (RFC 9110 §8.4, §5.3). MB-INTER-6 makes a batch "with a content
coding it does not support" answered 415 "before any part runs". A server that reads only the
first member takes `identity, x-unknown` as no coding and parses the content as it stands.
`content-coding-list-members-refused` sends a batch of two GETs under each way of listing a
coding no server supports beside `identity` on one field line (after it, with and without a
space, before it, and after a repeated `identity`) and on a second field line (after an
`identity` line and before one); each must be refused 415 with
`Accept-Encoding`. `content-coding-names-any-case` sends `identity` in other case, alone and
listed twice, each answered as `identity` as written (a server need not take identity), and gzip in other case when the server's 415 names gzip among the codings it
decodes: content codings are case-insensitive (RFC 9110 §8.4.1), so each batch is processed;
so is one listing identity alone beside an empty element, with a tab around the comma, or on
two field lines, each a list of identity by RFC 9110 §5.6.1 and §5.3.
The batches only read, so a server that runs one changes nothing.
"""

from __future__ import annotations

import gzip

from mixbatch_conformance.checks._shared.content_codings import UNKNOWN_CODING, accepted_codings
from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

BOUNDARY = "mb-coding-list-3f8a1c60e2b94d57"

#: (what, the Content-Encoding field lines): each lists a coding no server decodes.
LISTINGS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("identity then the coding on one line", (f"identity, {UNKNOWN_CODING}",)),
    ("the coding then identity", (f"{UNKNOWN_CODING}, identity",)),
    ("identity twice then the coding", (f"identity, identity, {UNKNOWN_CODING}",)),
    ("identity with no space before the coding", (f"identity,{UNKNOWN_CODING}",)),
    ("identity, then the coding on a second line", ("identity", UNKNOWN_CODING)),
    ("the coding, then identity on a second line", (UNKNOWN_CODING, "identity")),
)


@checker(
    "content-coding-list-members-refused",
    ("MB-INTER-6",),
    "A batch whose Content-Encoding lists a coding no server supports beside identity (after it, before it, after identity twice, on a second field line) is answered 415 with Accept-Encoding.",
    state=State.READ_ONLY,
)
def content_coding_list_members_refused(ctx: Context, judge: Judge) -> None:
    body = compose_batch(list(ok_and_not_found(ctx, judge)), BOUNDARY)
    for what, lines in LISTINGS:
        head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
        head += [("Content-Encoding", line) for line in lines]
        resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body))
        judge.note(f"{what} ({' | '.join(lines)}): {resp.status}")
        # MB-INTER-6: "A server that receives a batch request with a content coding it does
        # not support MUST answer 415 with an `Accept-Encoding` field ... before any part
        # runs": every member of every Content-Encoding line is a coding applied (RFC 9110
        # §8.4), and this one no server decodes.
        judge.expect(f"{what}: status", resp.status, {415}, "MB-INTER-6")
        if resp.status == 415:
            judge.expect_true(
                f"{what}: Accept-Encoding on the 415",
                resp.get("Accept-Encoding") is not None,
                "no Accept-Encoding field",
                "an Accept-Encoding field",
                "MB-INTER-6",
            )


#: Spellings of `identity`, a coding every receiver decodes, in other case (RFC 9110 §8.4.1:
#: "All content codings are case-insensitive"), alone and in a list; and lists of identity alone
#: in the forms RFC 9110 §5.6.1 gives every list: an empty element before or after it ("a
#: recipient MUST parse and ignore a reasonable number of empty list elements"), a tab as well as
#: a space around the comma (OWS), and a second field line (§5.3: the lines combine into one list,
#: joined with a comma).
IDENTITY_SPELLINGS: tuple[tuple[str, ...], ...] = (
    ("Identity",),
    ("IDENTITY",),
    ("identity, Identity",),
    ("iDeNtItY",),
    ("identity,",),
    (",identity",),
    ("identity ,\tidentity",),
    ("identity", "identity"),
)
#: Spellings of gzip in other case, tried when the server names gzip as a coding it decodes.
GZIP_SPELLINGS = ("GZIP", "Gzip")


@checker(
    "content-coding-names-any-case",
    ("MB-INTER-6",),
    "A batch whose Content-Encoding names identity in another case, or lists identity alone with an empty element, with a tab around the comma or on two field lines, is answered as identity written plainly (processed, or refused 415 by a server that does not take identity); one naming a coding the server says it decodes, in another case, is processed.",
    state=State.READ_ONLY,
)
def content_coding_names_any_case(ctx: Context, judge: Judge) -> None:
    subs = list(ok_and_not_found(ctx, judge))
    body = compose_batch(subs, BOUNDARY)
    ctype = ("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")
    refusal = ctx.send(
        judge,
        ctx.raw_request(
            "POST", ctx.batch_path, [ctype, ("Content-Encoding", UNKNOWN_CODING)], body
        ),
    )
    decoded = set(accepted_codings(refusal))
    # The spec does not make a server take `identity` as a Content-Encoding (RFC 9110 §8.4.1
    # reserves it as a synonym for no coding; a server may decode only what its 415 names):
    # the server's answer to `identity` as written is learned first, and every other spelling
    # and list of identity alone must be answered as it is (200 if it took it, 415 if not).
    plain = ctx.send(
        judge,
        ctx.raw_request("POST", ctx.batch_path, [ctype, ("Content-Encoding", "identity")], body),
    )
    judge.require("Content-Encoding identity: status", plain.status, {200, 415}, "MB-INTER-6")
    judge.note(f"Content-Encoding identity as written: {plain.status}")
    tries: list[tuple[tuple[str, ...], bytes, int]] = [
        (lines, body, plain.status) for lines in IDENTITY_SPELLINGS
    ]
    if "gzip" in decoded:
        tries += [((name,), gzip.compress(body), 200) for name in GZIP_SPELLINGS]
    for lines, content, want in tries:
        head = [ctype, *(("Content-Encoding", line) for line in lines)]
        resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, content))
        # RFC 9110 §8.4.1: "All content codings are case-insensitive"; MB-INTER-6 answers 415
        # only "a batch request with a content coding it does not support", which a coding it
        # decodes, spelled in another case, is not, nor is an empty list element (RFC 9110
        # §5.6.1: a recipient MUST "parse and ignore" it) or the whitespace around a comma.
        judge.expect(
            f"Content-Encoding {' | '.join(lines)}: status", resp.status, {want}, "MB-INTER-6"
        )
        if resp.status == 200:
            expect_processed(
                ctx, judge, resp, [s.content_id for s in subs], requirement="MB-INTER-6"
            )
