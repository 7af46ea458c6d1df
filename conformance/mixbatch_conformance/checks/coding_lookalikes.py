"""Names that look like no content coding, or like codings of another registry, in a batch's
Content-Encoding (spec 10.1).

Theory of operation: MB-INTER-6 answers "a batch request with a content coding it does not
support" with 415 and `Accept-Encoding`, "before any part runs". RFC 9110 §8.4.1 makes
`identity` the one name for "no coding"; every other token names a content coding, and names
from other registries are codings the HTTP content coding registry does not hold: the MIME
Content-Transfer-Encoding values `7bit`, `8bit` and `binary`, which say the octets are as they
stand, and `quoted-printable` and `base64` (RFC 2045 §6.1), the transfer coding `chunked`
(RFC 9112 §7), and names that only resemble identity (`x-identity`, `none`, `*`). A server that
takes one of them for identity parses content that a sender says is coded. Each is sent on a
batch of two GETs (so a server that runs the batch changes nothing), alone and in another case,
and listed beside identity; and `identity` written with a parameter, quoted, or twice in one
member split by whitespace (`identity identity`, which a reader splitting at whitespace as well
as commas takes for identity twice), spellings the `content-coding = token` grammar does not
give, must not be read as identity either (refused 400 as malformed, or 415).

What the server decodes is learnt first: a batch in a coding no server supports is refused, and
its 415's `Accept-Encoding` names "the codings it does decode"; a name listed there is the
server's word and is not judged. The multipart form is asked for first, then a few of the names
again with the Accept of each 207 form the target claims and under each error policy and the
atomic mode it claims, since a refusal written on one code path can be missing on another.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.claimed_variants import claimed_variants
from mixbatch_conformance.checks._shared.content_codings import UNKNOWN_CODING, accepted_codings
from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

BOUNDARY = "mb-coding-alike-5c2e8f41a7d903b6"

#: Content-Encoding values, each one field line, naming a coding that is not identity: the
#: MIME transfer encodings (RFC 2045 §6.1), the transfer coding chunked (RFC 9112 §7.1), and
#: tokens that resemble identity or "no coding" without being it.
LOOKALIKES: tuple[str, ...] = (
    "binary",
    "8bit",
    "7bit",
    "quoted-printable",
    "base64",
    "chunked",
    "x-identity",
    "none",
    "*",
    "BINARY",
    "8BIT",
    "Base64",
    "Chunked",
)
#: The same names listed beside identity, on one line and on a second field line.
LISTED: tuple[tuple[str, ...], ...] = (
    ("identity, binary",),
    ("8bit, identity",),
    ("identity", "7bit"),
    ("chunked", "identity"),
)
#: Spellings of identity the field's grammar (`content-coding = token`, RFC 9110 §8.4) does not
#: give: a parameter, a weight, a quoted-string, and identity twice in one member, after a
#: space, a tab or two spaces, alone or beside a valid member. Whitespace inside a member
#: separates nothing (RFC 9110 §5.6.1 has commas separate members, OWS only around them), so
#: `identity identity` is one member that is no token, not identity twice: not "no coding".
MALFORMED_IDENTITY: tuple[str, ...] = (
    "identity; q=1",
    "identity;q=0.5",
    '"identity"',
    "identity identity",
    "identity\tidentity",
    "identity  identity",
    "identity, identity identity",
)
#: Names sent again in every 207 form and policy the target claims.
ACROSS_MODES: tuple[str, ...] = ("binary", "7bit", "base64", "chunked")


@checker(
    "content-coding-lookalikes-refused",
    ("MB-INTER-6",),
    "A batch whose Content-Encoding names a MIME transfer encoding (binary, 8bit, 7bit, quoted-printable, base64), the transfer coding chunked, or a name like identity (x-identity, none, *), in any case, alone or beside identity, and in every 207 form and mode claimed, is answered 415 with Accept-Encoding unless the server names it among the codings it decodes; identity with a parameter, quoted or twice in one member (split by a space or a tab) is refused 400 or 415.",
    state=State.READ_ONLY,
)
def content_coding_lookalikes_refused(ctx: Context, judge: Judge) -> None:
    body = compose_batch(list(ok_and_not_found(ctx, judge)), BOUNDARY)
    mixed = ("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")

    def send(lines: tuple[str, ...], extra: tuple[tuple[str, str], ...] = ()) -> int:
        head = [mixed, *extra, *(("Content-Encoding", line) for line in lines)]
        resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body))
        if resp.status == 415:
            judge.expect_true(
                f"Content-Encoding {' | '.join(lines)}: Accept-Encoding on the 415",
                resp.get("Accept-Encoding") is not None,
                "no Accept-Encoding field",
                "an Accept-Encoding field",
                "MB-INTER-6",
            )
        return resp.status

    refusal = ctx.send(
        judge,
        ctx.raw_request(
            "POST", ctx.batch_path, [mixed, ("Content-Encoding", UNKNOWN_CODING)], body
        ),
    )
    if refusal.status != 415:
        judge.not_applicable(
            f"a batch in {UNKNOWN_CODING!r} was answered {refusal.status}, not 415; "
            "content-coded-batch-runs-nothing judges that"
        )
    decoded = {n for n in accepted_codings(refusal) if n != "identity"}
    judge.note(f"the 415's Accept-Encoding names {sorted(decoded) or 'no coding but identity'}")

    def declared(lines: tuple[str, ...]) -> bool:
        names = {m.strip(" \t").lower() for line in lines for m in line.split(",")}
        hit = names & decoded
        if hit:
            judge.note(f"Content-Encoding {' | '.join(lines)}: the server decodes {sorted(hit)}")
        return bool(hit)

    tries = [(name,) for name in LOOKALIKES] + list(LISTED)
    for lines in tries:
        if declared(lines):
            continue
        status = send(lines)
        # MB-INTER-6: "A server that receives a batch request with a content coding it does
        # not support MUST answer 415 with an `Accept-Encoding` field naming the codings it does
        # decode ... before any part runs". RFC 9110 §8.4.1: identity is the one name of no
        # coding; a MIME transfer encoding or a transfer coding named in Content-Encoding is a
        # content coding the server does not decode, whatever the octets look like.
        judge.expect(f"Content-Encoding {' | '.join(lines)}: status", status, {415}, "MB-INTER-6")
    for value in MALFORMED_IDENTITY:
        status = send((value,))
        # RFC 9110 §8.4: `Content-Encoding = #content-coding`, `content-coding = token`: a
        # member with a parameter, in quotes or holding whitespace between two words is no
        # token, so not the coding identity. It is
        # refused as a malformed field (400) or as a coding not supported (MB-INTER-6, 415);
        # a server that reads it as identity runs a batch it cannot say is uncoded.
        judge.expect(f"Content-Encoding {value}: status", status, {400, 415}, "MB-INTER-6")
    for label, extra in claimed_variants(ctx):
        for name in ACROSS_MODES:
            if declared((name,)):
                continue
            status = send((name,), extra)
            # MB-INTER-6 names no representation or mode: the refusal comes "before any part
            # runs", whatever form the answer would have taken.
            judge.expect(f"{label}, Content-Encoding {name}: status", status, {415}, "MB-INTER-6")
