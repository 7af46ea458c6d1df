"""Requests to a resource that carry content its method does not use, then the next request on
the connection (spec 11, MB-PIPE-1).

Theory of operation: a GET, a HEAD or an OPTIONS may carry content (RFC 9110 §9.3.1 gives it
"no generally defined semantics", and a server may refuse it), and its framing fields say where
it ends whatever the method (RFC 9112 §6.3). A server whose resource handler reads no content
for these methods leaves it in the connection, where it is read as the start of the next
request: that request is answered as another one (a 501 for the method `helloGET`) or not at
all. The checks of `pipelining.py` send such requests to the batch endpoint, which reads them
on a path of its own; these go to the `ok` and `echo` resources, framed by Content-Length and
chunked, each followed by a plain GET of `ok` on the same connection, pipelined (both written
at once) and in turn (the GET written once the first answer was read). MB-PIPE-1: "answer
pipelined requests on a connection, batch requests and other requests alike, in the order it
received them"; the leading request gets the status it gets on a connection of its own, and
the GET the 200 MB-TEST-1 gives `ok`. A server may end a connection after any answer it marks
`Connection: close` (RFC 9112 §9.6), and RFC 9110 §9.3.1 warns that content on a GET "might
lead some implementations to reject the request and close the connection": a request whose
answer alone ends the connection is not judged, nor is the GET behind such an answer. An
intermediary may de-pipeline, so the check runs direct only.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.hops import PIPELINING_NEEDS_ONE_CONNECTION
from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

#: Content that is the start of a request when read as one: a server that leaves it unread
#: reads the GET behind it as `helloGET`.
CONTENT = b"hello"
#: The content chunked (RFC 9112 §7.1), with a chunk extension.
CHUNKED = b"5;mb=x\r\nhello\r\n0\r\n\r\n"
#: The methods sent with content they do not use.
METHODS = ("GET", "HEAD", "OPTIONS")


@checker(
    "pipelining-behind-resource-requests-with-content",
    ("MB-PIPE-1",),
    "A GET, HEAD or OPTIONS of the ok and echo resources carrying content, framed by Content-Length or chunked, followed on its connection by a plain GET, pipelined and in turn, gets its own status and the GET 200, unless its answer closes the connection.",
    profile="pipelining",
    tier="standard",
    state=State.READ_ONLY,
    direct_only=PIPELINING_NEEDS_ONE_CONNECTION,
)
def behind_resource_requests_with_content(ctx: Context, judge: Judge) -> None:
    ok, _ = ok_and_not_found(ctx, judge)
    targets = [("ok", ok.target)]
    echo = ctx.target.resource("echo")
    if echo:
        targets.append(("echo", ctx.path(echo)))
    follower = ctx.raw_request("GET", ok.target)
    typed = ("Content-Type", "text/plain")
    judged = 0
    for role, target in targets:
        for method in METHODS:
            framings = (
                ("Content-Length", ctx.raw_request(method, target, [typed], CONTENT)),
                (
                    "chunked",
                    ctx.raw_request(
                        method, target, [typed, ("Transfer-Encoding", "chunked")], CHUNKED
                    ),
                ),
            )
            for framing, leader in framings:
                what = f"{method} of {role} with content ({framing})"
                alone = ctx.send_within(judge, leader, ctx.timeout_for(judge))
                if alone.response is None or not alone.response.persistent:
                    # RFC 9110 §9.3.1: content on a GET "might lead some implementations to
                    # reject the request and close the connection": nothing rides behind it.
                    judge.note(f"{what}: the connection ends with it alone, so none is judged")
                    continue
                judged += 1
                for how, exchanges in (
                    ("pipelined", ctx.send_many(judge, [leader, follower])),
                    ("in turn", ctx.send_in_turn(judge, [leader, follower])),
                ):
                    first, second = exchanges
                    got = first.response.status if first.response else None
                    # MB-PIPE-1: "in the order it received them": the leading request first,
                    # answered as it is on a connection of its own.
                    judge.expect(f"{what}, {how}", got, {alone.response.status}, "MB-PIPE-1")
                    if first.response is None or not first.response.persistent:
                        judge.note(f"{what}, {how}: the connection ended after it")
                        continue
                    after = second.response.status if second.response else None
                    # MB-PIPE-1, and MB-TEST-1's 200 for ok: the GET behind it is answered as
                    # the GET it is, not as what the content left unread made of it.
                    judge.expect(f"the GET behind {what}, {how}", after, {200}, "MB-PIPE-1")
    if not judged:
        judge.not_applicable("the target ends the connection on every request with such content")
