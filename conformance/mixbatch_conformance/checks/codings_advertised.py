"""The codings a server decodes are the ones its 415 names (spec 10.1, MB-INTER-6).

Theory of operation: MB-INTER-6 answers a batch in a content coding the server does not
support with 415 and "an `Accept-Encoding` field naming the codings it does decode".
`content-coded-batch-runs-nothing` tries each coding the 415 names; the checks here go the
other way, from the HTTP Content Coding Registry to the 415.

`decoded-codings-advertised` sends one valid batch of two GETs in each coding the suite makes
(gzip, x-gzip, deflate, compress and x-compress; br and zstd where the environment writes
them); a batch answered 200 was decoded and processed as the batch (read as it stands, the
coded octets are no multipart envelope). Then a batch in a coding no server supports must be
answered 415, and its Accept-Encoding must name every coding that was decoded: by its name, by
its equivalent (RFC 9110 §8.4.1.1 and §8.4.1.3: "A recipient SHOULD consider" x-compress
equivalent to compress, x-gzip to gzip), or by `*`, never weighted q=0. A server that decodes
none of them passes with any Accept-Encoding; one that does not answer the unknown coding 415
is N/A here (judged by the checks of that refusal). The batches only read.

`registered-codings-decoded-or-refused` learns the codings from the same 415 and sends the batch
of two GETs in each coding it names and in every registered coding (`identity` aside: it is no
coding, RFC 9110 §8.4.1, and `content-coding-names-any-case` judges it), valid in the coding
where the suite makes it and as it stands otherwise. A coding the 415 names is one the server
decodes: its batch is not refused 415, and valid content in it is processed (a 400 "does not
decode" is a decoder that does not read the coding its name stands for). A coding it names only
by its equivalent may be refused 415 or processed. A coding it does not name is one it does not
decode, answered 415 with Accept-Encoding: a server that takes it for another (compress run
through a zlib inflate and answered 400 as content that does not decode, say), or reads it as
identity, answers otherwise. That nothing runs before such a 415 is judged by
`content-coded-batch-runs-nothing`, with a write into the sandbox.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.content_codings import (
    ENCODERS,
    REGISTERED_CODINGS,
    UNKNOWN_CODING,
    accepted_codings,
    names_coding,
)
from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

BOUNDARY = "mb-coding-advertised-5c09e7a1"


def _unknown_coding_refusal(ctx: Context, judge: Judge, body: bytes) -> Response:
    """The answer to `body` in a coding no server supports: a 415 with Accept-Encoding, or N/A."""
    head = [
        ("Content-Type", f"multipart/mixed; boundary={BOUNDARY}"),
        ("Content-Encoding", UNKNOWN_CODING),
    ]
    refusal = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body))
    if refusal.status != 415:
        judge.not_applicable(f"a batch in {UNKNOWN_CODING} answered {refusal.status}, not 415")
    # MB-INTER-6: "MUST answer 415 with an `Accept-Encoding` field".
    field = refusal.get_all("Accept-Encoding")
    judge.expect_true(
        "Accept-Encoding on the 415 for a content coding",
        bool(field),
        f"Accept-Encoding {field!r}" if field else "no Accept-Encoding field",
        "an Accept-Encoding field",
        "MB-INTER-6",
    )
    return refusal


@checker(
    "decoded-codings-advertised",
    ("MB-INTER-6",),
    "Every content coding the server decodes a batch in (gzip, x-gzip, deflate, compress, x-compress, and br and zstd where the suite writes them, tried one by one) is named by the Accept-Encoding of its 415 for a coding it does not support.",
    state=State.READ_ONLY,
)
def decoded_codings_advertised(ctx: Context, judge: Judge) -> None:
    subs = list(ok_and_not_found(ctx, judge))
    body = compose_batch(subs, BOUNDARY)
    ctype = ("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")
    refusal = _unknown_coding_refusal(ctx, judge, body)
    named = set(accepted_codings(refusal))
    for name, encode in ENCODERS.items():
        head = [ctype, ("Content-Encoding", name)]
        resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, encode(body)))
        judge.note(f"a batch in {name}: {resp.status}")
        if resp.status != 200:
            continue  # not decoded: a 415 (or a batch read as it stands) needs no naming
        # MB-INTER-6: "MUST answer 415 with an `Accept-Encoding` field naming the codings it
        # does decode": a coding the server decoded a batch in is one of them.
        judge.expect_true(
            f"the 415's Accept-Encoding names {name}, which the server decoded",
            names_coding(named, name),
            f"Accept-Encoding {refusal.get_all('Accept-Encoding')!r}",
            f"a member naming {name}",
            "MB-INTER-6",
        )


#: Members of Accept-Encoding that name no coding to try: no coding at all, and any coding.
NOT_A_CODING = frozenset({"identity", "*"})


@checker(
    "registered-codings-decoded-or-refused",
    ("MB-INTER-6",),
    "A batch in each registered content coding (aes128gcm, br, compress, dcb, dcz, deflate, exi, gzip, pack200-gzip, x-compress, x-gzip, zstd) and in each coding the server's 415 for an unknown coding names, valid in the coding where the suite writes it, is processed if that 415 names the coding (never refused 415, nor 400 for valid content) and answered 415 with Accept-Encoding if it does not.",
    state=State.READ_ONLY,
)
def registered_codings_decoded_or_refused(ctx: Context, judge: Judge) -> None:
    subs = list(ok_and_not_found(ctx, judge))
    body = compose_batch(subs, BOUNDARY)
    cids = [s.content_id for s in subs]
    ctype = ("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")
    listed = accepted_codings(_unknown_coding_refusal(ctx, judge, body))
    named = set(listed)
    judge.note(f"the 415 for an unknown coding names {listed or 'nothing'}")
    tried = [n for n in listed if n not in NOT_A_CODING]
    tried += [c for c in REGISTERED_CODINGS if c not in NOT_A_CODING]
    for name in dict.fromkeys(tried):
        encode = ENCODERS.get(name)
        made = "valid in it" if encode is not None else "as it stands"
        content = body if encode is None else encode(body)
        head = [ctype, ("Content-Encoding", name)]
        resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, content))
        what = f"a batch in {name} ({made})"
        if not names_coding(named, name):
            judge.note(f"{what}, a coding the 415 does not name: {resp.status}")
            # MB-INTER-6: "A server that receives a batch request with a content coding it does
            # not support MUST answer 415 with an `Accept-Encoding` field naming the codings it
            # does decode": a coding the field leaves out is one it does not decode, so its
            # batch is refused 415. A 400 "does not decode" runs the decoder of another coding
            # on it; a 200 reads it as identity, or decodes a coding the field denies.
            judge.expect(f"{what}, not named: status", resp.status, {415}, "MB-INTER-6")
            if resp.status == 415:
                field = resp.get_all("Accept-Encoding")
                judge.expect_true(
                    f"{what}: Accept-Encoding on the 415",
                    bool(field),
                    f"Accept-Encoding {field!r}" if field else "no Accept-Encoding field",
                    "an Accept-Encoding field",
                    "MB-INTER-6",
                )
            continue
        judge.note(f"{what}, a coding the 415 names: {resp.status}")
        if not named & {name, "*"}:
            # Named by its equivalent alone: RFC 9110 §8.4.1.1, §8.4.1.3 "A recipient SHOULD
            # consider" the two names one coding. Refused 415 as a name it does not list, or
            # processed as the coding it lists; never taken for content that does not decode.
            if encode is not None and resp.status != 415:
                _expect_decoded(ctx, judge, what, resp, cids)
            continue
        if encode is not None:
            _expect_decoded(ctx, judge, what, resp, cids)
            continue
        # MB-INTER-6: the 415's Accept-Encoding names "the codings it does decode": a batch in
        # one of them, even one whose content the suite cannot make valid, is not refused as in
        # a coding the server does not support.
        judge.expect_true(
            f"{what}, a coding the 415 named as decoded",
            resp.status != 415,
            f"answered {resp.status}",
            "not refused 415",
            "MB-INTER-6",
        )


def _expect_decoded(ctx: Context, judge: Judge, what: str, resp: Response, cids: list[str]) -> None:
    """The batch valid content in a coding the server names decodes to is processed."""
    # MB-INTER-6: the 415's Accept-Encoding names "the codings it does decode": valid content in
    # one of them decodes to the batch, which is processed. A 400 "does not decode" is a decoder
    # that does not read the coding its name stands for.
    if judge.expect(f"{what}, named as decoded: status", resp.status, {200}, "MB-INTER-6"):
        expect_processed(ctx, judge, resp, cids, requirement="MB-INTER-6")
