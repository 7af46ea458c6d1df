"""A GET with content is refused whatever the content is (spec 4.2, MB-METHOD-3).

Theory of operation: MB-METHOD-3 refuses "a `GET` request for a collection retrieval, or to a
batch endpoint, that has content" with 400. The requirement names no kind of content, so a
server must not look at what the content is before refusing: a GET whose content is a
well-formed one-part batch (`multipart/mixed` with its boundary, as a client library that put
the batch on the wrong method sends it), framed by Content-Length or chunked, or typed
`Multipart/Mixed` in other letter case, is no batch to run, and a collection must not take it
for a retrieval either; nor is JSON content, one untyped octet, or content of line ends or
a space alone (content all the same, which the empty lines a server may skip before a request
line are not). Each is sent to the batch
endpoint (400, or 405 where the endpoint's Allow, read from its 405 to PUT, does not list GET:
"A server that does not allow `GET` on its batch endpoint may answer a `GET` with content there
405 under MB-METHOD-2 instead of 400") and to the declared collection with
`Accept: multipart/mixed` (400). A GET with `Content-Length: 0` and a batch's Content-Type
"has no content": the collection answers it as a retrieval (200 with the members), and the
batch endpoint as the same GET without those fields (learnt from the same server), never as
a batch or a refusal of content. Parts are not judged here: MB-METHOD-3 binds a GET request,
and a part's content on any method is the sub-request's (MB-PART-8, judged elsewhere).
"""

from __future__ import annotations

from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

#: The boundary of the batch a GET carries.
BOUNDARY = "mb-get-content-0123456789"
RETRIEVAL = ("Accept", "multipart/mixed")


def _chunked(data: bytes) -> bytes:
    """`data` in two chunks and the last chunk (RFC 9112 §7.1)."""
    half = len(data) // 2
    out = b""
    for piece in (data[:half], data[half:]):
        out += f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
    return out + b"0\r\n\r\n"


def _contents(batch: bytes) -> list[tuple[str, tuple[tuple[str, str], ...], bytes]]:
    """(what, framing and type fields, octets sent after the head) of each content a GET
    carries: `batch` is a well-formed one-part batch."""
    typed = ("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")
    return [
        ("a one-part batch by Content-Length", (typed,), batch),
        ("a one-part batch, chunked", (typed, ("Transfer-Encoding", "chunked")), _chunked(batch)),
        (
            "a one-part batch typed Multipart/Mixed",
            (("Content-Type", f"Multipart/Mixed; boundary={BOUNDARY}"),),
            batch,
        ),
        ("JSON", (("Content-Type", "application/json"),), b'{"parts": []}'),
        ("one untyped octet", (), b"x"),
        # Content of line ends or whitespace alone is still content (RFC 9112 §6.3: the
        # Content-Length octets are the message body): the empty lines a server may skip
        # before a request line (RFC 9112 §2.2) come before it, not inside a body.
        ("CRLF", (), b"\r\n"),
        ("a bare LF", (), b"\n"),
        ("two CRLFs, chunked", (("Transfer-Encoding", "chunked"),), _chunked(b"\r\n\r\n")),
        ("a space", (), b" "),
    ]


@checker(
    "get-with-any-content-refused",
    ("MB-METHOD-3", "MB-STATUS-7"),
    "A GET whose content is a well-formed one-part batch (by Content-Length, chunked, or typed in other case), JSON, one untyped octet, line ends or a space alone is answered 400 on the batch endpoint (or 405 where it does not allow GET) and on a collection retrieval; one with Content-Length: 0 and a batch's Content-Type has no content and is answered as the same GET without it.",
    profile="collection-get",
    state=State.READ_ONLY,
)
def get_with_any_content_refused(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "collection"))
    member = ctx.target.resource("ok") or ctx.target.resource("collection") or "/"
    batch = compose_batch([SubRequest("GET", ctx.path(member))], BOUNDARY)
    put = ctx.send(judge, ctx.raw_request("PUT", ctx.batch_path, body=b""))
    allowed = {a.strip().upper() for a in ",".join(put.get_all("Allow")).split(",")}
    # MB-METHOD-3: "answer 400 to a `GET` request ... to a batch endpoint, that has content";
    # "A server that does not allow `GET` on its batch endpoint may answer a `GET` with content
    # there 405 under MB-METHOD-2 instead of 400".
    endpoint_statuses = {400} if put.status == 405 and "GET" in allowed else {400, 405}
    for what, fields, body in _contents(batch):
        resp = ctx.send(judge, ctx.raw_request("GET", ctx.batch_path, fields, body))
        judge.expect(
            f"batch endpoint, GET with {what}", resp.status, endpoint_statuses, "MB-METHOD-3"
        )
        resp = ctx.send(judge, ctx.raw_request("GET", coll, (RETRIEVAL, *fields), body))
        # MB-METHOD-3: "answer 400 to a `GET` request for a collection retrieval ... that has
        # content", whatever the content is.
        judge.expect(f"collection, GET with {what}", resp.status, {400}, "MB-METHOD-3")
    empty = (
        ("Content-Type", f"multipart/mixed; boundary={BOUNDARY}"),
        ("Content-Length", "0"),
    )
    # MB-METHOD-3: "A `GET` with `Content-Length: 0` ... has no content: it is a collection
    # retrieval like one without the field", which MB-STATUS-7 answers "200 with the members
    # as parts".
    resp = ctx.send(judge, ctx.raw_request("GET", coll, (RETRIEVAL, *empty), b""))
    judge.expect("collection, GET with Content-Length: 0", resp.status, {200}, "MB-STATUS-7")
    if resp.status == 200:
        judge.expect(
            "collection, GET with Content-Length: 0: media type",
            resp.media_type,
            {"multipart/mixed"},
            "MB-STATUS-7",
        )
    # The batch endpoint's answer to a GET without content the spec leaves to MB-METHOD-2 and
    # the server's routes; with `Content-Length: 0` it "has no content" (MB-METHOD-3), so it is
    # answered as the same GET without the fields, learnt from the same server.
    bare = ctx.send(judge, ctx.raw_request("GET", ctx.batch_path))
    resp = ctx.send(judge, ctx.raw_request("GET", ctx.batch_path, empty, b""))
    judge.expect(
        "batch endpoint, GET with Content-Length: 0, as the GET without it",
        resp.status,
        {bare.status},
        "MB-METHOD-3",
    )
