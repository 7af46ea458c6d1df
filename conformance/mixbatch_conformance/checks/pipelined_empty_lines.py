"""A request pipelined behind an empty line is answered in its turn (spec 11, MB-PIPE-1).

Theory of operation: RFC 9112 §2.2 has a server that expects a request line "ignore at least
one empty line (CRLF) received prior to the request-line", because clients write one after a
`POST`'s content; spec 11 says it of a pipelining server: "An empty line before a request line
is no request ... A server that offers the `pipelining` profile ignores one such CRLF at least
after a request's content, a batch's included, and answers the request behind it in its turn".
A reader that takes the empty line for a malformed request line answers 400 and closes, and the
request the client sent goes unanswered. The check sends a one-part batch and a GET of `ok`
alone, each on a connection of its own, to learn their statuses; then, in one write on one
connection, the batch, a CRLF and the GET: both must be answered with the statuses alone, in
order. A CRLF after a request without content is not sent: spec 11 leaves that case to RFC 9112's
recommendation, as stacks in wide use refuse it. An intermediary may de-pipeline the requests, and drop
or keep the CRLF, so the check runs direct only.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.hops import PIPELINING_NEEDS_ONE_CONNECTION
from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

BOUNDARY = "mb-empty-lines-3b8e"
#: What a client writes after a request's content: the empty line RFC 9112 §2.2 names.
EMPTY_LINE = b"\r\n"


@checker(
    "pipelined-request-after-empty-line",
    ("MB-PIPE-1",),
    "A batch, a CRLF and a GET of ok written in one go on one connection are answered with the statuses the two requests get alone, in order: the empty line after the batch's content is no request.",
    profile="pipelining",
    state=State.READ_ONLY,
    direct_only=PIPELINING_NEEDS_ONE_CONNECTION,
)
def pipelined_request_after_empty_line(ctx: Context, judge: Judge) -> None:
    ok, _ = ok_and_not_found(ctx, judge)
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    batch = ctx.raw_request("POST", ctx.batch_path, head, compose_batch([ok], BOUNDARY))
    get = ctx.raw_request("GET", ok.target)
    alone = {batch: ctx.send(judge, batch).status, get: ctx.send(judge, get).status}
    judge.require("the batch alone: status", alone[batch], {200}, "MB-STATUS-1")
    answers = ctx.send_many(judge, [batch + EMPTY_LINE, get])
    statuses = [ex.response.status if ex.response is not None else None for ex in answers]
    # MB-PIPE-1: "answer pipelined requests on a connection ... in the order it received them";
    # spec 11: the empty line "is no request", and the request behind it is answered "in its
    # turn".
    judge.expect(
        "a batch, a CRLF and a GET on one connection: statuses",
        statuses,
        [[alone[batch], alone[get]]],
        "MB-PIPE-1",
    )
