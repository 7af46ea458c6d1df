"""A request pipelined behind an empty line after a batch is answered in its turn (spec 11,
MB-PIPE-4).

Theory of operation: RFC 9112 §2.2 has "a server that is expecting to receive and parse a
request-line ... ignore at least one empty line (CRLF) received prior to the request-line", and
MB-PIPE-4 has a pipelining server "ignore an empty line (CRLF) received after the content of a
`POST` request and before the next request line, and answer the request behind it in its turn".
A reader that takes the line for a malformed request line answers 400 and closes, and the request
the client sent goes unanswered. The check sends a one-part batch and a GET of `ok` alone, each on
a connection of its own, to learn their statuses; then, in one write on one connection, the batch,
a CRLF and the GET: both must be answered with the statuses alone, in order. MB-PIPE-4 is a
SHOULD, so a server that answers otherwise gets a WARN (a FAIL under --strict). HTTP/2 has no
such line, and an intermediary may de-pipeline the requests and drop or keep it, so the check
runs over HTTP/1.1 and direct only. Then, on another connection, twelve batches each followed by a
CRLF and then the GET, each sent once the answer before it was read (the CRLF and the next
request in separate writes): each must be answered as alone, since the rule holds for every
request of a connection, not only its first few. A server may end the connection after an
answer it marks `Connection: close` (RFC 9112 §9.6); the requests left unanswered then are not
judged. Last, a batch and, once it is answered, the CRLF and the GET in one write: the empty
line arrives in a later read than the content it follows. And after POSTs the server refuses
from their header section (text/plain content, an Accept no form meets, an unknown Batch-Mode)
and a POST to a resource that is no batch endpoint: the rule is the same after any `POST`.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.connection_options import closes
from mixbatch_conformance.checks._shared.hops import PIPELINING_NEEDS_ONE_CONNECTION
from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.http import Exchange

__all__: list[str] = []

BOUNDARY = "mb-empty-lines-3b8e"
#: What a client writes after a request's content: the empty line RFC 9112 §2.2 names.
EMPTY_LINE = b"\r\n"
#: Batches sent in turn on one connection, each followed by an empty line: more than a reader
#: that bounds the empty lines it skips (RFC 9112 §2.2 has it skip "at least one") would let
#: through if it counted them over the connection's life.
ROUNDS = 12


@checker(
    "pipelined-request-after-empty-line",
    ("MB-PIPE-4",),
    "A batch, a CRLF and a GET of ok written in one go on one connection are answered with the statuses the two requests get alone, in order, and so are twelve batches each followed by a CRLF and then the GET, sent in turn on one connection, and a batch then, once answered, a CRLF and the GET in one write, and refused POSTs and a POST to ok each followed by a CRLF and the GET: the empty line after a POST's content is ignored every time.",
    profile="pipelining",
    state=State.READ_ONLY,
    direct_only=PIPELINING_NEEDS_ONE_CONNECTION,
)
def pipelined_request_after_empty_line(ctx: Context, judge: Judge) -> None:
    if ctx.settings.http2:
        judge.not_applicable("HTTP/2 frames requests apart: no empty line comes between them")
    ok, _ = ok_and_not_found(ctx, judge)
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    batch = ctx.raw_request("POST", ctx.batch_path, head, compose_batch([ok], BOUNDARY))
    get = ctx.raw_request("GET", ok.target)
    alone = {batch: ctx.send(judge, batch).status, get: ctx.send(judge, get).status}
    judge.require("the batch alone: status", alone[batch], {200}, "MB-STATUS-1")
    answers = ctx.send_many(judge, [batch + EMPTY_LINE, get])
    statuses = [ex.response.status if ex.response is not None else None for ex in answers]
    # MB-PIPE-4: "ignore an empty line (CRLF) received after the content of a `POST` request
    # and before the next request line, and answer the request behind it in its turn".
    judge.expect(
        "a batch, a CRLF and a GET on one connection: statuses",
        statuses,
        [[alone[batch], alone[get]]],
        "MB-PIPE-4",
    )
    statuses = _until_close(judge, ctx.send_in_turn(judge, [batch + EMPTY_LINE] * ROUNDS + [get]))
    # MB-PIPE-4 holds for every request of the connection: a reader that bounds the empty
    # lines it skips counts those before one request line, not the connection's.
    judge.expect(
        f"{ROUNDS} batches each followed by a CRLF, then a GET, in turn on one connection: "
        "statuses",
        statuses,
        [([alone[batch]] * ROUNDS + [alone[get]])[: len(statuses)]],
        "MB-PIPE-4",
    )
    # After the content of a POST the server refuses from its header section alone, or of a
    # POST to a resource that is no batch endpoint: MB-PIPE-4 says "a `POST` request", and
    # spec 11 has such a refusal read and discard the content and answer the request behind.
    text = [("Content-Type", "text/plain")]
    refused = [
        (
            "a text/plain POST to the batch endpoint",
            ctx.raw_request("POST", ctx.batch_path, text, b"mb"),
        ),
        (
            "a batch under Accept: text/html",
            ctx.raw_request(
                "POST",
                ctx.batch_path,
                [*head, ("Accept", "text/html")],
                compose_batch([ok], BOUNDARY),
            ),
        ),
        (
            "a batch under an unknown Batch-Mode",
            ctx.raw_request(
                "POST",
                ctx.batch_path,
                [*head, ("Batch-Mode", "x-mb-unknown")],
                compose_batch([ok], BOUNDARY),
            ),
        ),
        ("a text/plain POST to ok", ctx.raw_request("POST", ok.target, text, b"mb")),
    ]
    for what, post in refused:
        status = ctx.send(judge, post).status
        answers = ctx.send_many_within(judge, [post + EMPTY_LINE, get], ctx.timeout_for(judge))
        got = [ex.response.status if ex.response is not None else None for ex in answers]
        judge.expect(
            f"{what} ({status} alone), a CRLF and a GET on one connection: statuses",
            got,
            [[status, alone[get]]],
            "MB-PIPE-4",
        )
    # The empty line may come in a later write than the content it follows, with the request
    # behind it: a reader that skips only the empty lines it already holds when it starts on
    # a request line takes this one for the request line.
    statuses = _until_close(judge, ctx.send_in_turn(judge, [batch, EMPTY_LINE + get]))
    judge.expect(
        "a batch, then once it is answered a CRLF and a GET in one write: statuses",
        statuses,
        [[alone[batch], alone[get]][: len(statuses)]],
        "MB-PIPE-4",
    )


def _until_close(judge: Judge, turns: list[Exchange]) -> list[int | None]:
    """The statuses of `turns` up to an answer marked `Connection: close`: RFC 9112 §9.6 lets
    a server end a persistent connection after any answer so marked, and the requests it then
    leaves unanswered are not judged."""
    statuses = [ex.response.status if ex.response is not None else None for ex in turns]
    for i, ex in enumerate(turns):
        if (
            ex.response is not None
            and ex.response.status < 400
            and closes(ex.response.get("Connection"))
        ):
            judge.note(f"the connection was closed after answer {i}, marked Connection: close")
            return statuses[: i + 1]
    return statuses
