"""OPTIONS on the batch endpoint with content, answered like OPTIONS without (spec 9.2).

Theory of operation: MB-LIMIT-2 asks a server offering the `limits` profile to "answer
`OPTIONS` on a batch endpoint with 200, an `application/vnd.mixbatch.capabilities+json`
document ..., an `Accept-Post: multipart/mixed` field and an `Allow` field", with no condition
on content. RFC 9110 §9.3.7 lets an OPTIONS request carry content ("this specification does not
define any use for such content"), so a server that refuses it, as MB-METHOD-3 refuses a `GET`
with content, carries a rule to a method it was not written for. `options-with-content-answered`
sends OPTIONS with content of one octet, a JSON document, a batch envelope under its own
multipart Content-Type, and chunked content, each with a Content-Type as RFC 9110 asks of the
client, and `Content-Length: 0` (no content), and expects each to be answered as the same
OPTIONS without content is.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.accept_post import expect_accept_post_exact
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

CAPABILITIES = "application/vnd.mixbatch.capabilities+json"
BOUNDARY = "mb-options-content-4c1e"


def _contents(ok: str) -> list[tuple[str, list[tuple[str, str]], bytes]]:
    """(label, header fields, content) of each OPTIONS request with content."""
    batch = f"--{BOUNDARY}\r\nHttp-Method: GET\r\nContent-Id: <{ok}>\r\n\r\n\r\n--{BOUNDARY}--"
    return [
        ("one octet", [("Content-Type", "text/plain")], b"x"),
        ("a JSON document", [("Content-Type", "application/json")], b'{"mb-suite": 1}'),
        (
            "a batch envelope",
            [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")],
            batch.encode(),
        ),
        (
            "chunked content",
            [("Content-Type", "text/plain"), ("Transfer-Encoding", "chunked")],
            b"3\r\nabc\r\n0\r\n\r\n",
        ),
        # RFC 9112 §6.3: a Content-Length of 0 frames no content at all.
        ("Content-Length: 0 and no content", [("Content-Length", "0")], b""),
    ]


@checker(
    "options-with-content-answered",
    ("MB-LIMIT-2",),
    "OPTIONS on the batch endpoint carrying content (one octet, a JSON document, a batch envelope, chunked) or Content-Length: 0 is answered 200 with the capabilities document and Accept-Post, as without content.",
    profile="limits",
    state=State.READ_ONLY,
)
def options_with_content(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    bare = ctx.send(judge, ctx.raw_request("OPTIONS", ctx.batch_path))
    if bare.status != 200:
        judge.not_applicable(f"OPTIONS without content was answered {bare.status}")
    for label, head, body in _contents(ok):
        resp = ctx.send(judge, ctx.raw_request("OPTIONS", ctx.batch_path, head, body))
        # MB-LIMIT-2: "answer `OPTIONS` on a batch endpoint with 200, an
        # `application/vnd.mixbatch.capabilities+json` document ..., an `Accept-Post:
        # multipart/mixed` field"; nothing in it depends on the request's content, which RFC
        # 9110 §9.3.7 lets an OPTIONS carry.
        if not judge.expect(f"OPTIONS with {label}: status", resp.status, {200}, "MB-LIMIT-2"):
            continue
        judge.expect(
            f"OPTIONS with {label}: media type", resp.media_type, {CAPABILITIES}, "MB-LIMIT-2"
        )
        expect_accept_post_exact(judge, resp, "MB-LIMIT-2")
