"""An HTTP/1.0 batch request without framing fields has empty content (spec 3.1.5, MB-WIRE-18).

Theory of operation: RFC 9112 §6.3 ends its list of ways to find a message's length with two
rules, one per direction: a response with neither `Content-Length` nor `Transfer-Encoding` runs
to the close of the connection, a request with neither has content of length zero. The second
holds whatever the request's version; spec 3.1.5 draws from it that such a batch request has no
part and is answered 400. A server whose HTTP/1.0 path reads such a request by the response rule
waits for the client to close its side, which no client does while it waits for its answer. The
check sends the request and keeps its side of the connection open: an answer that never comes
within the timeout is that mistake, and any other answer but 400 breaks the same requirement.

Nothing in the spec makes a server take an HTTP/1.0 batch (RFC 9112 §2.3 lets it answer 505),
so whether it answers one as a batch is learnt first from a one-part batch framed with
`Content-Length`, and the check is N/A when it does not. An intermediary frames the request anew
for the next hop, so the check runs direct only, over HTTP/1.1 connections (HTTP/2 frames every
request).
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.checks._shared.versions import with_version
from mixbatch_conformance.core.context import Context, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

BOUNDARY = "mb-unframed-10-7a3c"


@checker(
    "unframed-batch-over-http10-answered-400",
    ("MB-WIRE-18",),
    "An HTTP/1.0 batch request with neither Content-Length nor Transfer-Encoding, sent by a client that keeps its side of the connection open, is answered 400 as empty content, not read until the client closes, by a server that answers HTTP/1.0 batches.",
    tier="standard",
    state=State.READ_ONLY,
    direct_only="an intermediary frames the request anew for the next hop",
)
def unframed_batch_over_http10_answered_400(ctx: Context, judge: Judge) -> None:
    if ctx.settings.http2:
        judge.not_applicable("HTTP/2 frames every request: no request line names HTTP/1.0")
    ok, _ = ok_and_not_found(ctx, judge)
    ctype = ("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")
    framed = ctx.raw_request("POST", ctx.batch_path, [ctype], compose_batch([ok], BOUNDARY))
    alone = ctx.send(judge, with_version(framed, "1.0"))
    if alone.status != 200 or alone.media_type != "multipart/mixed":
        judge.not_applicable(
            f"the server answers an HTTP/1.0 batch {alone.status} {alone.media_type!r}, not as "
            "a multipart batch"
        )
    unframed = with_version(ctx.raw_request("POST", ctx.batch_path, [ctype], None), "1.0")
    wait = ctx.timeout_for(judge)
    ex = ctx.send_within(judge, unframed, wait)
    # RFC 9112 §6.3: "If this is a request message and none of the above are true, then the
    # message body length is zero"; spec 3.1.5: such a batch "is answered 400 as empty
    # content is" (MB-WIRE-18).
    judge.require_true(
        "an answer while the client keeps its side open",
        ex.response is not None,
        f"none within {wait:g} s: the content was read as running to the close",
        "an answer: the request's content has length zero",
        "MB-WIRE-18",
    )
    assert ex.response is not None
    judge.expect("status of the unframed HTTP/1.0 batch", ex.response.status, {400}, "MB-WIRE-18")
