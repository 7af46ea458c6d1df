"""A batch in the gzip coding written as several gzip members (spec 10.1, RFC 1952 §2.2).

Theory of operation: RFC 9110 §8.4.1.3 defines the gzip coding as "the gzip file format" of
RFC 1952, and RFC 1952 §2.2 says "A gzip file consists of a series of 'members' (compressed data
sets)": content compressed in pieces and concatenated, as a streaming sender or a tool that
appends writes it, is one valid gzip coding of the whole. A decoder that stops after the first
member loses the rest of the batch. MB-INTER-6 has a server that decodes a coding answer the
batch "as it answers the same content unencoded", so the check learns first that the server
processes the batch in gzip as one member (else N/A: a server need not decode gzip) and what it
answers the batch unencoded, then sends it as two members split inside a part, as three
members, and as two members with an empty member between: each must be answered as the batch
unencoded, its status and its parts' statuses. The batch only reads.
"""

from __future__ import annotations

import gzip
from itertools import pairwise

from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import part_status
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

BOUNDARY = "mb-gzip-members-2f7a"


def _members(body: bytes, cuts: tuple[int, ...]) -> bytes:
    """`body` cut at `cuts` (offsets, in order), each piece compressed as a gzip member of its
    own, the members concatenated."""
    edges = (0, *cuts, len(body))
    return b"".join(gzip.compress(body[a:b]) for a, b in pairwise(edges))


@checker(
    "gzip-content-of-several-members-decoded",
    ("MB-INTER-6",),
    "A batch in gzip written as two members split inside a part, as three members, and with an empty member between two, is answered as the same batch unencoded, where the server decodes the batch in gzip as one member.",
    state=State.READ_ONLY,
)
def gzip_content_of_several_members_decoded(ctx: Context, judge: Judge) -> None:
    subs = list(ok_and_not_found(ctx, judge))
    body = compose_batch(subs, BOUNDARY)
    ctype = ("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")
    coded = [ctype, ("Content-Encoding", "gzip")]

    def answer(head: list[tuple[str, str]], content: bytes) -> tuple[int, list[int | None]]:
        resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, content))
        if resp.status != 200:
            return resp.status, []
        env = ctx.read_batch(judge, resp)
        return 200, [part_status(env, i) for i in range(len(env.parts))]

    plain = answer([ctype], body)
    judge.require("the batch unencoded: status", plain[0], {200}, "MB-STATUS-1")
    one = answer(coded, gzip.compress(body))
    if one != plain:
        judge.not_applicable(f"the batch in gzip as one member answered {one}, not {plain}")
    third = len(body) // 3
    cases = (
        ("two members, split inside a part", (len(body) // 2,)),
        ("three members", (third, 2 * third)),
        ("two members with an empty one between", (third, third)),
    )
    for what, cuts in cases:
        # MB-INTER-6: a server that decodes a coding "answers the batch as it answers the same
        # content unencoded"; RFC 1952 §2.2: "A gzip file consists of a series of 'members'".
        judge.expect(f"the batch in gzip as {what}", answer(coded, _members(body, cuts)), [plain])
