"""Bodies that look like the framing around them reach the resource whole (MB-PART-8, MB-TEST-2).

Theory of operation: a server that reads a connection's octets ahead of its HTTP parser (to
rewrite whitespace in framing fields, to find where a request ends on a kept-alive connection)
follows the framing itself, and one that counts content wrong where the content spans several
reads takes the end of the content for the head of a next request. Content that looks like no
framing passes such a reader unchanged, so `bodies-across-sizes` cannot see it; content that
looks like framing shows it. The check sends the echo a body of `BODY_OCTETS` of lines an HTTP
reader would act on: request lines, `Content-Length` and `Transfer-Encoding` lines with a tab
around their values, chunk-size lines, empty lines, and at its end 4 KiB of `Content-Length`
lines alone, so that wherever near the end such a reader loses count it meets field lines. It goes as the one part of a batch (one
write of some 256 KiB, the body ending the content but for the close delimiter), whose echo
must describe the octets sent (MB-PART-8: "the part body is its content"); when it does not,
the same request alone says whether the part or the description is wrong, as
`bodies-across-sizes` learns it. It goes alone too, on a connection of its own (a reader that
loses count may stop following a connection after its first request), and that echo must
describe them as well (MB-TEST-2: the echo's `body` is "the content as a string"); an echo
that refuses the body alone (4xx) is not judged there. Not applicable without an echo resource, or when
a published limit is below the body.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.echo_blame import blame_echo
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.echo import read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

#: One stretch of text an HTTP reader would act on: a request head whose framing fields have a
#: tab before and after their values, then chunked content and its last chunk.
LOOKALIKE = (
    b"POST /lookalike HTTP/1.1\r\n"
    b"Host: lookalike.example\r\n"
    b"Content-Length:\t1\t\r\n"
    b"Transfer-Encoding:\tchunked\t\r\n"
    b"\r\n"
    b"1\r\nx\r\n0\r\n\r\n"
)
#: The body's last lines: framing fields alone, so that wherever in them a reader takes the
#: content to end, the field lines it reads after that are framing fields with tabs.
LENGTH_LINE = b"Content-Length:\t1\t\r\n"
#: Statuses a server may answer such a batch with by its own policy or an unpublished limit.
POLICY_REFUSALS = frozenset({401, 403, 413, 429, 503})
#: The body's size: past 64 KiB several times, so that it spans many reads of any size.
BODY_OCTETS = 256 * 1024
#: How much of the body's end is LENGTH_LINE over and over.
TAIL_OCTETS = 4096
#: The body: LOOKALIKE over and over, then TAIL_OCTETS of LENGTH_LINE, BODY_OCTETS in all.
BODY = (LOOKALIKE * (BODY_OCTETS // len(LOOKALIKE) + 1))[: BODY_OCTETS - TAIL_OCTETS] + (
    LENGTH_LINE * (TAIL_OCTETS // len(LENGTH_LINE) + 1)
)[-TAIL_OCTETS:]


@checker(
    "framing-lookalike-bodies-arrive-whole",
    ("MB-PART-8", "MB-TEST-2"),
    "A 256 KiB body of request lines, Content-Length and Transfer-Encoding lines with tabs around their values, chunk-size lines and empty lines reaches the echo octet for octet, alone and as the last part of a batch sent in one write.",
    state=State.READ_ONLY,
    tier="standard",
)
def framing_lookalike_bodies_arrive_whole(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    for name in ("max_part_bytes", "max_batch_bytes"):
        limit = ctx.limit(name)
        if limit is not None and limit < BODY_OCTETS + 1024:
            judge.not_applicable(f"{name} {limit} is below the {BODY_OCTETS}-octet body")
    sub = SubRequest("PUT", echo, (("Content-Type", "text/plain"),), BODY)
    # The batch goes first on a connection of its own, as does the request alone after it: a
    # reader that loses count may stop following a connection once it has, so each is the
    # first request its connection carries.
    resp = ctx.batch(judge, [sub])
    alone = ctx.send_within(
        judge, ctx.raw_request("PUT", echo, list(sub.headers), BODY), ctx.timeout_for(judge)
    ).response
    if alone is not None and not 400 <= alone.status < 500:
        seen_alone = read_echo(alone.body)
        # MB-TEST-2: the echo describes the content it received, "the content as a string when
        # its octets are valid UTF-8".
        judge.expect_true(
            f"echo of the {BODY_OCTETS}-octet body alone",
            seen_alone is not None and seen_alone.body == BODY,
            "unreadable"
            if seen_alone is None
            else f"{len(seen_alone.body)} octets, "
            + ("equal" if seen_alone.body == BODY else "different"),
            "the octets sent",
            "MB-TEST-2",
        )
    else:
        judge.note(f"the echo alone answered {alone.status if alone else 'nothing'}: not judged")
    if resp.status in POLICY_REFUSALS:
        # Spec 5.3 lets a server answer 401, 403 or 429 "from the server's own policies", and a
        # limit it publishes in its documentation alone (MB-LIMIT-1) may be below the body.
        judge.not_applicable(f"the batch was answered {resp.status}")
    env = expect_processed(ctx, judge, resp, [sub.content_id])
    # MB-TEST-2: the echo answers 200 with its description.
    judge.require("part 0 status", part_status(env, 0), {200}, "MB-TEST-2")
    seen = read_echo(env.parts[0].body)
    if seen is None:
        judge.expect_true(
            "echo part 0 body",
            False,
            f"{len(env.parts[0].body)} octets that are not an echo description",
            "the whole echo description",
            "MB-RESP-4",
        )
        return
    if seen.body == BODY:
        # MB-PART-8: "the part body is its content".
        judge.expect_true(
            f"echo of the {BODY_OCTETS}-octet body", True, "equal", "the octets sent", "MB-PART-8"
        )
        return
    blame_echo(ctx, judge, sub, seen.body)
