"""The codings a server decodes are the ones its 415 names (spec 10.1, MB-INTER-6).

Theory of operation: MB-INTER-6 answers a batch in a content coding the server does not
support with 415 and "an `Accept-Encoding` field naming the codings it does decode".
`content-coded-batch-runs-nothing` tries each coding the 415 names; this check goes the other
way. It sends one valid batch of two GETs in each coding the standard library makes (gzip,
x-gzip, deflate); a batch answered 200 was decoded and processed as the batch (read as it
stands, the coded octets are no multipart envelope). Then a batch in a coding no server
supports must be answered 415, and its Accept-Encoding must name every coding that was
decoded: by its name, by `x-gzip` or `gzip` for each other (RFC 9110 §8.4.1.3: "A recipient
SHOULD consider 'x-gzip' to be equivalent to 'gzip'"), or by `*`, never weighted q=0. A server that decodes none of them passes with any
Accept-Encoding; one that does not answer the unknown coding 415 is N/A here (judged by the
checks of that refusal). The batches only read.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.content_codings import (
    ENCODERS,
    UNKNOWN_CODING,
    accepted_codings,
)
from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

BOUNDARY = "mb-coding-advertised-5c09e7a1"
#: The names under which an Accept-Encoding names a decoded coding (RFC 9110 §8.4.1.3).
SPELLINGS: dict[str, frozenset[str]] = {
    "gzip": frozenset({"gzip", "x-gzip"}),
    "x-gzip": frozenset({"gzip", "x-gzip"}),
    "deflate": frozenset({"deflate"}),
}


@checker(
    "decoded-codings-advertised",
    ("MB-INTER-6",),
    "Every content coding the server decodes a batch in (gzip, x-gzip, deflate, tried one by one) is named by the Accept-Encoding of its 415 for a coding it does not support.",
    state=State.READ_ONLY,
)
def decoded_codings_advertised(ctx: Context, judge: Judge) -> None:
    subs = list(ok_and_not_found(ctx, judge))
    body = compose_batch(subs, BOUNDARY)
    ctype = ("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")
    head = [ctype, ("Content-Encoding", UNKNOWN_CODING)]
    refusal = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body))
    if refusal.status != 415:
        judge.not_applicable(f"a batch in {UNKNOWN_CODING} answered {refusal.status}, not 415")
    # MB-INTER-6: "MUST answer 415 with an `Accept-Encoding` field".
    judge.expect_true(
        "Accept-Encoding on the 415 for a content coding",
        bool(refusal.get_all("Accept-Encoding")),
        "no Accept-Encoding field",
        "an Accept-Encoding field",
        "MB-INTER-6",
    )
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
            bool(named & (SPELLINGS[name] | {"*"})),
            f"Accept-Encoding {refusal.get_all('Accept-Encoding')!r}",
            f"a member naming {name}",
            "MB-INTER-6",
        )
