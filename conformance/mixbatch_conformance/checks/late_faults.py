"""A fault a server may find only when it comes to run a part: the batch is still refused
before any part runs (MB-STATUS-2).

Theory of operation: a server that parses the whole envelope first but checks each target,
method or field as it dispatches the part has run the parts before a bad one by the time it
refuses the batch. Each case here is a batch whose first part POSTs a marked member to the
sandbox and whose second part has one fault of the kinds MB-STATUS-2 lists ("a forbidden
field, a rejected target, a nested batch") or a Content-Length that does not match its body:
each batch must be answered 400, and afterwards no marked member may be in the sandbox.

`late-fault-runs-nothing-on-every-path` sends the same batches framed by the chunked
transfer coding, with `Prefer: batch-on-error=stop` where the target offers the error-policy
profile, and with `Batch-Mode: atomic` where it offers the atomic profile: a server that
validates a Content-Length batch whole but reads a chunked one part by part as it arrives, or
whose stopping or atomic path checks each part as it dispatches it, runs the POST there alone
(and an atomic path that then rolls it back answers a 200 with a failing part, not the 400).
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.chunking import chunked_content
from mixbatch_conformance.checks._shared.requests import sandbox_listing
from mixbatch_conformance.checks._shared.sandbox_marks import marked_post
from mixbatch_conformance.core.context import Context, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_rejected
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

BOUNDARY = "mb-late-8c2e5a91f04d7b36"


def _bad_parts(ctx: Context, judge: Judge) -> list[tuple[str, str]]:
    """(requirement, the faulty part's header section and body as written) for each case."""
    ok = ctx.path(ctx.resource(judge, "ok"))
    other = f"http://elsewhere.invalid{ok}"
    return [
        # MB-SUB-2: another authority.
        ("MB-SUB-2", f"Http-Method: GET\r\nContent-Id: <{other}>\r\n\r\n"),
        # MB-SUB-4: the batch endpoint itself.
        ("MB-SUB-4", f"Http-Method: GET\r\nContent-Id: <{ctx.batch_path}>\r\n\r\n"),
        # MB-SUB-3: TRACE.
        ("MB-SUB-3", f"Http-Method: TRACE\r\nContent-Id: <{ok}>\r\n\r\n"),
        # MB-SUB-8: the asterisk.
        ("MB-SUB-8", "Http-Method: GET\r\nContent-Id: <*>\r\n\r\n"),
        # MB-PART-10: a forbidden field.
        ("MB-PART-10", f"Http-Method: GET\r\nContent-Id: <{ok}>\r\nUpgrade: h2c\r\n\r\n"),
        # MB-WIRE-17: a Content-Length one over the body.
        (
            "MB-WIRE-17",
            f"Http-Method: PUT\r\nContent-Id: <{ok}>\r\nContent-Length: 4\r\n\r\nabc",
        ),
    ]


@checker(
    "late-fault-batch-runs-nothing",
    ("MB-STATUS-2", "MB-PROC-1"),
    "A batch whose first part writes in the sandbox and whose second part has another authority, the batch endpoint, TRACE, <*>, a forbidden field or a wrong Content-Length is answered 400, and its first part has not run.",
    state=State.WRITES_IN_SANDBOX,
)
def late_fault_batch_runs_nothing(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    before = sandbox_listing(ctx, judge, coll)
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    markers: list[tuple[str, str]] = []
    for requirement, bad in _bad_parts(ctx, judge):
        marker, post = marked_post(ctx, judge, coll)
        if marker.encode() in before:
            judge.setup_error("the marker is already in the sandbox listing")
        first = compose_batch([post], BOUNDARY)
        close = f"\r\n--{BOUNDARY}--".encode()
        body = first[: -len(close)] + f"\r\n--{BOUNDARY}\r\n{bad}\r\n--{BOUNDARY}--".encode()
        resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body))
        judge.note(f"a POST, then a part breaking {requirement}")
        # MB-STATUS-2: "answer a batch request whose envelope is malformed (... a forbidden
        # field, a rejected target, a nested batch) with 400, before any part runs".
        expect_rejected(judge, resp, {400}, "MB-STATUS-2")
        markers.append((requirement, marker))
    after = sandbox_listing(ctx, judge, coll)
    for requirement, marker in markers:
        ran = marker.encode() in after
        # MB-STATUS-2: "... before any part runs"; MB-PROC-1: nothing runs before the whole
        # envelope is validated.
        judge.expect_true(
            f"the POST before a part breaking {requirement}",
            not ran,
            "the POST part ran" if ran else "not created",
            "the POST part did not run",
            "MB-STATUS-2",
        )


def _late_fault_batch(post_batch: bytes, bad: str) -> bytes:
    """The batch [POST, the faulty part] from the composed one-part batch `post_batch`."""
    close = f"\r\n--{BOUNDARY}--".encode()
    return post_batch[: -len(close)] + f"\r\n--{BOUNDARY}\r\n{bad}\r\n--{BOUNDARY}--".encode()


@checker(
    "late-fault-runs-nothing-on-every-path",
    ("MB-STATUS-2", "MB-PROC-1", "MB-INTER-5"),
    "A batch whose first part writes in the sandbox and whose second part has another authority, the batch endpoint, TRACE, <*>, a forbidden field or a wrong Content-Length is answered 400 with its first part not run when it is sent chunked, when it asks for batch-on-error=stop and when it is atomic.",
    state=State.WRITES_IN_SANDBOX,
)
def late_fault_runs_nothing_on_every_path(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    before = sandbox_listing(ctx, judge, coll)
    ctype = ("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")
    ways: list[tuple[str, list[tuple[str, str]], bool, str]] = [
        ("sent chunked", [ctype, ("Transfer-Encoding", "chunked")], True, "MB-INTER-5"),
    ]
    if ctx.target.claims("error-policy"):
        prefer = ("Prefer", "batch-on-error=stop")
        ways.append(("under batch-on-error=stop", [ctype, prefer], False, "MB-STATUS-2"))
    if ctx.target.claims("atomic"):
        ways.append(("atomic", [ctype, ("Batch-Mode", "atomic")], False, "MB-STATUS-2"))
    markers: list[tuple[str, str]] = []
    for way, head, chunked, requirement in ways:
        for broken, bad in _bad_parts(ctx, judge):
            marker, post = marked_post(ctx, judge, coll)
            if marker.encode() in before:
                judge.setup_error("the marker is already in the sandbox listing")
            body = _late_fault_batch(compose_batch([post], BOUNDARY), bad)
            if chunked:
                body = chunked_content(body, 64)[0]
            resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body))
            label = f"a POST, then a part breaking {broken}, {way}"
            judge.note(label)
            # MB-STATUS-2: "answer a batch request whose envelope is malformed (... a forbidden
            # field, a rejected target, a nested batch) with 400, before any part runs";
            # MB-INTER-5: a chunked batch is answered "as it answers the same content framed by
            # `Content-Length`".
            expect_rejected(judge, resp, {400}, requirement)
            markers.append((label, marker))
    after = sandbox_listing(ctx, judge, coll)
    for label, marker in markers:
        ran = marker.encode() in after
        # MB-PROC-1: "MUST NOT run any part before it has received the whole batch request and
        # validated its whole envelope", whatever frames the content and whatever policy the
        # batch asks for.
        judge.expect_true(
            label,
            not ran,
            "the POST part ran" if ran else "not created",
            "the POST part did not run",
            "MB-PROC-1",
        )
