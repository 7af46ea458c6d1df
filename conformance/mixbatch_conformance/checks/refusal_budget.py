"""Refused batches give back their place in the budget of batches in flight (MB-LIMIT-6).

Theory of operation: MB-LIMIT-6 bounds "the batches it holds in flight" and answers "a batch
request beyond that budget with 503". A batch refused before it runs is held no longer than its
refusal takes, so once each refusal has been answered the server holds nothing for it. A server
that takes a slot when a batch arrives and gives it back only after a batch has run keeps one
slot per refusal, and after as many refusals as its budget answers every batch 503.

The check sends, one after another, `budget + 1` refusals of each kind (415; 400 for a missing
boundary, a missing close delimiter, a part without Http-Method, a target on another origin, and
chunked content whose chunk-size is not hex or whose chunk data is not followed by CRLF;
406 where the target refuses an Accept admitting no batch form; 501 for an unknown Batch-Mode; 413;
431), where `budget` is the published `max_batches_in_flight` or
`UNPUBLISHED_BUDGET`; after each kind it sends one valid batch, which must be processed. Each
refusal is answered before the next is sent, so no two are ever in flight together. Kinds whose
limit is unpublished or too large to exceed cheaply are left out.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.chunking import broken_chunked
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

BOUNDARY = "mb-refusals-83e0d5a7c19f4b26"
#: The budget assumed when the target publishes no `max_batches_in_flight`: twice the 16 a
#: small server commonly holds, so a leak of one slot per refusal shows.
UNPUBLISHED_BUDGET = 32
#: The largest budget the check exhausts with refusals of each kind.
MAX_BUDGET = 256
#: The most octets one refused batch may take (413 and 431 kinds).
MAX_REFUSAL_BYTES = 1024 * 1024

#: The broken chunked framings (`broken_chunked`) whose refusals are repeated.
NOT_HEX = "a chunk-size that is not hex"
NO_CRLF = "chunk data followed by XX, not CRLF"
#: A request the check sends: method, header fields and content.
Request = tuple[str, list[tuple[str, str]], bytes]


def _valid(ok: str) -> bytes:
    return (
        f"--{BOUNDARY}\r\nHttp-Method: GET\r\nContent-Id: <{ok}>\r\n\r\n\r\n--{BOUNDARY}--".encode()
    )


def _kinds(ctx: Context, ok: str) -> list[tuple[str, Request]]:
    mixed = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    valid = _valid(ok)
    other = "http://other-origin.invalid/x"
    no_method = f"--{BOUNDARY}\r\nContent-Id: <{ok}>\r\n\r\n\r\n--{BOUNDARY}--".encode()
    kinds: list[tuple[str, Request]] = [
        ("415 for text/plain", ("POST", [("Content-Type", "text/plain")], valid)),
        ("400 for a missing boundary", ("POST", [("Content-Type", "multipart/mixed")], valid)),
        (
            "400 for a missing close delimiter",
            ("POST", mixed, valid[: -len(f"\r\n--{BOUNDARY}--")]),
        ),
        ("400 for a part without Http-Method", ("POST", mixed, no_method)),
        (
            "400 for a target on another origin",
            ("POST", mixed, valid.replace(ok.encode(), other.encode())),
        ),
        ("406 for an Accept of text/html", ("POST", [*mixed, ("Accept", "text/html")], valid)),
        (
            "501 for a Batch-Mode nobody implements",
            ("POST", [*mixed, ("Batch-Mode", "x-mb-unknown-mode")], valid),
        ),
    ]
    # Chunked content whose framing is broken (RFC 9112 §7.1: chunk-size = 1*HEXDIG, and chunk
    # data is followed by CRLF): a refusal the HTTP reader gives, often apart from the batch's.
    chunked = [*mixed, ("Transfer-Encoding", "chunked")]
    broken = dict(broken_chunked(valid))
    kinds += [
        ("400 for a chunk-size that is not hex", ("POST", chunked, broken[NOT_HEX])),
        ("400 for chunk data not followed by CRLF", ("POST", chunked, broken[NO_CRLF])),
    ]
    part = f"--{BOUNDARY}\r\nHttp-Method: GET\r\nContent-Id: <{ok}>\r\n\r\n\r\n".encode()
    parts = ctx.limit("max_parts")
    if parts is not None and (parts + 1) * len(part) <= MAX_REFUSAL_BYTES:
        kinds.append(
            (
                "413 for too many parts",
                ("POST", mixed, part * (parts + 1) + f"--{BOUNDARY}--".encode()),
            )
        )
    header = ctx.limit("max_part_header_bytes")
    if header is not None and header < MAX_REFUSAL_BYTES:
        filler = f"X-Fill: {'f' * header}\r\n"
        over = f"--{BOUNDARY}\r\nHttp-Method: GET\r\nContent-Id: <{ok}>\r\n{filler}\r\n\r\n--{BOUNDARY}--"
        kinds.append(("431 for a part header section", ("POST", mixed, over.encode())))
    return kinds


@checker(
    "refusals-hold-no-batch-budget",
    ("MB-LIMIT-6",),
    "After more refusals of each kind (400, broken chunked framing among them, 406, 413, 415, 431, 501) than the budget of batches in flight, each answered before the next is sent, a valid batch is still processed.",
    state=State.READ_ONLY,
    tier="standard",
    direct_only="an intermediary may hold or pool the refused requests",
)
def refusals_hold_no_budget(ctx: Context, judge: Judge) -> None:
    budget = ctx.limit("max_batches_in_flight") or UNPUBLISHED_BUDGET
    if budget > MAX_BUDGET:
        judge.not_applicable(f"max_batches_in_flight {budget} is more than {MAX_BUDGET}")
    ok = ctx.path(ctx.resource(judge, "ok"))

    def send(request: Request) -> int | str:
        method, head, body = request
        written = ctx.raw_request(method, ctx.batch_path, head, body)
        if not any(n.lower() == "transfer-encoding" for n, _ in head):
            return ctx.send(judge, written).status
        # A server may close a connection whose framing it cannot follow without answering
        # (RFC 9112 §9.6 lets it close at any time): only the batch after is judged.
        ex = ctx.send_many_within(judge, [written], ctx.timeout_for(judge))[0]
        return ex.response.status if ex.response is not None else f"no answer ({ex.error})"

    for kind, refusal in _kinds(ctx, ok):
        statuses = {send(refusal) for _ in range(budget + 1)}
        judge.note(f"{budget + 1} x {kind}: answered {sorted(statuses, key=str)}")
        head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
        resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, _valid(ok)))
        if resp.status == 429:
            judge.not_applicable(f"the target rate-limits after {budget + 1} x {kind} (429)")
        # MB-LIMIT-6: "bound the batches it holds in flight": a refused batch, answered, is
        # held no more, so the budget is whole again and the valid batch is not "beyond" it.
        judge.require(f"valid batch after {budget + 1} x {kind}", resp.status, {200}, "MB-LIMIT-6")
        expect_processed(ctx, judge, resp, [f"<{ok}>"], (), "MB-LIMIT-6")
