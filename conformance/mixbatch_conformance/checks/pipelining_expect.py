"""Requests pipelined behind one that carries `Expect: 100-continue` (spec 11).

Theory of operation: a client that writes `Expect: 100-continue` may send the content right
behind the head without waiting (RFC 9110 §10.1.1: it "MAY proceed to send the content even if
it has not yet received a response"), and pipeline further requests behind it. MB-PIPE-1 binds
the order of the answers. Spec 11 lets a server end the connection after a refusal it gives such
a request before sending a 100 (Continue), marked `Connection: close`, since it cannot tell
whether content follows; a server that sent the 100, or that read the content whole (a batch
that ran, a refusal found in the content), "keeps answering the requests behind it".

`pipelining-behind-expect-continue` writes, in one send, each leader with `Expect:
100-continue` and its content, and a GET of `ok` behind it: a batch that runs, a batch refused
for a TRACE part (MB-SUB-3, found in the content), and a batch refused for its media type
(MB-WIRE-2's 415, decided from the header section). Each leader is first sent alone, with the
field; pipelined it must get the same status. The GET must then be answered 200, except behind
a refusal that came without a 100 before it, which may instead be marked `Connection: close`
and end the connection. An intermediary may de-pipeline, so the check runs direct only.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.connection_options import closes
from mixbatch_conformance.checks._shared.hops import PIPELINING_NEEDS_ONE_CONNECTION
from mixbatch_conformance.checks._shared.pipelined_pairs import leader_answered_first
from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

BOUNDARY = "mb-expect-3f6c0a9d27b1e854"
EXPECT = ("Expect", "100-continue")
#: Seconds to wait for each pipelined answer.
WAIT_S = 5.0


def _continued(resp: Response) -> bool:
    """Whether an interim 100 (Continue) came before the final answer `resp`."""
    return resp.raw.startswith((b"HTTP/1.1 100", b"HTTP/1.0 100"))


@checker(
    "pipelining-behind-expect-continue",
    ("MB-PIPE-1",),
    "A GET pipelined behind a request that carries Expect: 100-continue with its content right behind the head (a batch that runs, a batch refused for a TRACE part, a batch refused 415 for its media type) is answered 200 after it; only behind a refusal given without a 100 (Continue) may the connection end instead, the refusal marked Connection: close.",
    profile="pipelining",
    tier="standard",
    state=State.READ_ONLY,
    direct_only=PIPELINING_NEEDS_ONE_CONNECTION,
)
def pipelining_behind_expect_continue(ctx: Context, judge: Judge) -> None:
    if ctx.settings.http2:
        judge.not_applicable("HTTP/2 has no pipeline behind an interim answer to keep")
    ok, _ = ok_and_not_found(ctx, judge)
    mixed = ("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")
    ran = compose_batch([ok], BOUNDARY)
    traced = compose_batch([ok, SubRequest("TRACE", ok.target)], BOUNDARY)
    leaders = [
        ("a batch that runs", [mixed, EXPECT], ran, False),
        ("a batch refused for a TRACE part", [mixed, EXPECT], traced, False),
        ("a batch refused for its media type", [("Content-Type", "text/plain"), EXPECT], ran, True),
    ]
    follower = ctx.raw_request("GET", ok.target)
    for what, head, content, early in leaders:
        leader = ctx.raw_request("POST", ctx.batch_path, head, content)
        alone = ctx.send(judge, leader).status
        label = f"{what}, with Expect: 100-continue"
        got, second = leader_answered_first(ctx, judge, label, (leader, follower), alone, WAIT_S)
        if got is None:
            continue
        behind = second.response
        if behind is None and early and not _continued(got):
            # Spec 11: a refusal given before a 100 "may end the connection, marked
            # `Connection: close`, whatever the content's length".
            judge.expect_true(
                f"{what}: the refusal that ended the connection says so",
                closes(", ".join(got.get_all("Connection"))),
                f"{got.status} without Connection: close, then no answer ({second.error})",
                "Connection: close on the refusal",
                "MB-PIPE-1",
            )
            continue
        # MB-PIPE-1: a server that sent the 100 or read the content whole "keeps answering the
        # requests behind it, as it does for a request without the field"; MB-TEST-1 fixes 200.
        judge.expect(
            f"{what}, with Expect: 100-continue: the GET behind it",
            behind.status if behind is not None else f"none ({second.error})",
            {200},
            "MB-PIPE-1",
        )
