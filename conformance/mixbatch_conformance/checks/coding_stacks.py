"""A batch in two or three content codings stacked, each one the server decodes (spec 10.1).

Theory of operation: RFC 9110 §8.4 has a sender list the codings of `Content-Encoding` "in the
order in which they were applied", on one field line or several (§5.3), so a recipient undoes
them from the last listed to the first. MB-INTER-6 answers 415 only "a batch request with a
content coding it does not support", and says of a server that decodes each coding listed that
it "removes them in the reverse of that order, the last listed first, and answers the batch as it
answers the same content unencoded". A server that removes them in the order listed runs gzip's
decoder on deflate's output, and answers `Content-Encoding: gzip, deflate` 400 as content that
does not decode; one that decodes one coding only, or refuses any stack 415, answers otherwise
too.

`content-coding-stacks-decoded-in-reverse` learns what it stacks from the server: a batch in a
coding no server supports must be answered 415 (else N/A), and its `Accept-Encoding` names the
codings it decodes (`*` naming every one). Of those the suite writes (one name per coding:
x-gzip is gzip, x-compress compress), each is sent alone, and the ones a batch in which is
processed are stacked; N/A where fewer than two are. The batch of two GETs, sent unencoded,
gives the answer to expect. Then it is sent in every order of two and of three distinct
codings, and in each coding applied twice (`gzip, gzip`: a list names every coding applied, the
same one twice included), each coding applied in turn and the list written in that order: once on one field line
as usual, and once in another spelling, taken in turn from `SPELLINGS` (no space after the
comma, split over two field lines, names in upper or mixed case, spaces and tabs around the
commas). Each must be answered as the unencoded batch: its status, and when that is 200 its
parts in order with the same statuses. The batches only read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import permutations

from mixbatch_conformance.checks._shared.content_codings import (
    ENCODERS,
    UNKNOWN_CODING,
    accepted_codings,
    spellings,
)
from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

BOUNDARY = "mb-coding-stack-9e2c7a41b05d63f8"
#: The most codings stacked at once.
MOST_STACKED = 3


def _mixed_case(name: str) -> str:
    return "".join(c.upper() if i % 2 else c.lower() for i, c in enumerate(name))


#: Ways to write the list of codings `order` (in the order applied) as Content-Encoding field
#: lines, besides one line joined by ", ": (what, the field lines). RFC 9110 §5.6.1 lists take
#: OWS around the comma, §5.3 field lines combine into one list, §8.4.1 "All content codings are
#: case-insensitive".
SPELLINGS: tuple[tuple[str, Callable[[tuple[str, ...]], tuple[str, ...]]], ...] = (
    ("no space after the comma", lambda o: (",".join(o),)),
    ("the last coding on a second field line", lambda o: (", ".join(o[:-1]), o[-1])),
    ("upper case, a tab around the comma", lambda o: ("\t,\t".join(c.upper() for c in o),)),
    ("the first coding on a line of its own", lambda o: (o[0], ", ".join(o[1:]))),
    ("mixed case, spaces and tabs", lambda o: (" \t, ".join(_mixed_case(c) for c in o),)),
    ("each coding on a line of its own", lambda o: o),
)


def _stacks(codings: list[str]) -> Iterator[tuple[str, ...]]:
    """Every order of two, then of three, distinct codings of `codings`; then each coding
    applied twice (RFC 9110 §8.4 lists every coding applied, the same one twice included)."""
    for count in range(2, min(MOST_STACKED, len(codings)) + 1):
        yield from permutations(codings, count)
    for coding in codings:
        yield (coding, coding)


def _encoded(body: bytes, order: tuple[str, ...]) -> bytes:
    """`body` with each coding of `order` applied in turn."""
    for coding in order:
        body = ENCODERS[coding](body)
    return body


@checker(
    "content-coding-stacks-decoded-in-reverse",
    ("MB-INTER-6",),
    "A batch in two or three stacked content codings the server decodes alone (from the Accept-Encoding of its 415 for an unknown coding), in every order and each applied twice, listed on one line, over two lines, in upper or mixed case and with spaces and tabs around the commas, is answered as the same batch unencoded.",
    state=State.READ_ONLY,
)
def content_coding_stacks_decoded_in_reverse(ctx: Context, judge: Judge) -> None:
    subs = list(ok_and_not_found(ctx, judge))
    cids = [s.content_id for s in subs]
    body = compose_batch(subs, BOUNDARY)
    ctype = ("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")

    def post(lines: tuple[str, ...], content: bytes) -> tuple[int, tuple[int | None, ...]]:
        head = [ctype, *(("Content-Encoding", line) for line in lines)]
        resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, content))
        if resp.status != 200:
            return resp.status, ()
        env = expect_processed(ctx, judge, resp, cids, requirement="MB-INTER-6")
        return 200, tuple(part_status(env, i) for i in range(len(env.parts)))

    refusal = ctx.send(
        judge,
        ctx.raw_request(
            "POST", ctx.batch_path, [ctype, ("Content-Encoding", UNKNOWN_CODING)], body
        ),
    )
    if refusal.status != 415:
        judge.not_applicable(f"a batch in {UNKNOWN_CODING} answered {refusal.status}, not 415")
    named = accepted_codings(refusal)
    candidates = list(ENCODERS) if "*" in named else [n for n in named if n in ENCODERS]
    distinct: list[str] = []
    for name in candidates:
        if not any(spellings(name) & spellings(kept) for kept in distinct):
            distinct.append(name)
    decoded = []
    for name in distinct:
        status, _ = post((name,), ENCODERS[name](body))
        judge.note(f"a batch in {name} alone: {status}")
        if status == 200:
            decoded.append(name)
    if len(decoded) < 2:
        judge.not_applicable(
            f"fewer than two codings the suite writes are decoded alone ({decoded or 'none'})"
        )
    plain = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, [ctype], body))
    judge.require("the batch unencoded: status", plain.status, {200}, "MB-STATUS-1")
    want = [part_status(ctx.read_batch(judge, plain), i) for i in range(len(subs))]
    judge.note(f"stacking {decoded}; the batch unencoded: 200, parts {want}")
    for n, order in enumerate(_stacks(decoded)):
        content = _encoded(body, order)
        how, spell = SPELLINGS[n % len(SPELLINGS)]
        for what, lines in (("on one line", (", ".join(order),)), (how, spell(order))):
            status, parts = post(lines, content)
            label = f"{' then '.join(order)} applied, listed {what} ({' | '.join(lines)!r})"
            # MB-INTER-6: "The codings of a `Content-Encoding` are listed "in the order in
            # which they were applied" (RFC 9110 §8.4), on one field line or several: a server
            # that decodes each coding listed removes them in the reverse of that order, the
            # last listed first, and answers the batch as it answers the same content
            # unencoded, whatever the case of the names and the whitespace around the list's
            # commas; it answers 415 only where a coding listed is one it does not decode."
            if judge.expect(f"{label}: status", status, {200}, "MB-INTER-6"):
                judge.expect(f"{label}: part statuses", parts, {tuple(want)}, "MB-INTER-6")
