"""A part may not name another spelling of the batch endpoint that the server routes there
(spec 8.4).

Theory of operation: MB-SUB-4 refuses a part whose target "is a batch endpoint", and spec 8.4
defines that by routing: "A target is a batch endpoint when the server, given it as the target
of a standalone request, would route that request to one of its batch endpoints". Paths are
case-sensitive and `/batch/` is not `/batch`, so `</BATCH>` or `</batch/>` "names the batch
endpoint only on a server that routes it there, and such a server rejects it too". A server
whose router forgives a trailing slash, case, a path parameter or a doubled slash, but whose
nesting test compares the literal path, runs a nested batch. Which spellings a server routes
to its batch endpoint is learnt from the same server: each is sent a valid batch alone, and
only those answered as a batch are then named by a part, which must be refused.
"""

from __future__ import annotations

from mixbatch_conformance.core.context import Context, problem_of
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

BOUNDARY = "mb-nest-spelling-41f7"


def spellings(batch_path: str) -> list[str]:
    """Other paths a lenient router may take for `batch_path`: a trailing slash, upper case,
    a capital first letter, a path parameter and a doubled leading slash."""
    head, last = batch_path.rsplit("/", 1)
    out = [
        f"{batch_path}/",
        batch_path.upper(),
        f"{head}/{last[:1].upper()}{last[1:]}",
        f"{batch_path};mb=1",
        f"/{batch_path}",
    ]
    return [s for i, s in enumerate(out) if s != batch_path and s not in out[:i]]


def _batch(ref: str) -> bytes:
    d = f"--{BOUNDARY}"
    return f"{d}\r\nHttp-Method: GET\r\nContent-Id: <{ref}>\r\n\r\n\r\n{d}--".encode()


@checker(
    "nesting-routed-spellings-refused",
    ("MB-SUB-4",),
    "A part whose target is another spelling of the batch endpoint's path (a trailing slash, upper case, a path parameter, a doubled slash) is refused with 400 naming MB-SUB-4 whenever the server answers a batch sent alone to that spelling as a batch.",
    state=State.READ_ONLY,
)
def nesting_routed_spellings(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    # MB-STATUS-1: the probe is a well-formed batch, so the batch endpoint itself answers it
    # "with 200 (OK)"; a spelling answered the same way is routed to a batch endpoint.
    own = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, _batch(ok)))
    judge.require("the probe batch at the batch endpoint: status", own.status, {200}, "MB-STATUS-1")
    for spelling in spellings(ctx.batch_path):
        alone = ctx.send(judge, ctx.raw_request("POST", spelling, head, _batch(ok)))
        routed = alone.status == 200 and alone.media_type == "multipart/mixed"
        judge.note(f"a batch sent alone to {spelling}: {alone.status} {alone.media_type}")
        if not routed:
            continue
        # A path that starts with `//` is written as an absolute URI: as a reference it would
        # be a network-path reference, refused under MB-SUB-2 for another reason.
        ref = f"{ctx.target.base_url}{spelling}" if spelling.startswith("//") else spelling
        resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, _batch(ref)))
        # MB-SUB-4: "answer 400 to a batch request in which any part's target is a batch
        # endpoint"; spec 8.4: "`</BATCH>` or `</batch/>` names the batch endpoint only on a
        # server that routes it there, and such a server rejects it too".
        if not judge.expect(
            f"a part naming {spelling}, which the server routes to a batch endpoint: status",
            resp.status,
            {400},
            "MB-SUB-4",
        ):
            continue
        doc = problem_of(resp)
        judge.expect(
            f"a part naming {spelling}: problem requirement",
            None if doc is None else doc.get("requirement"),
            {"MB-SUB-4"},
            "MB-STATUS-4",
        )
