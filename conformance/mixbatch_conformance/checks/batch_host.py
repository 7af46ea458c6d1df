"""The batch request's Host: the base of every part target, so an invalid one is refused.

Theory of operation: spec 3.2.2 builds a batch's base URI from its `Host` ("The base URI is
the batch request's target URI, built from its `Host` as RFC 9110 §7.1 says") and adds "a
batch request without a valid `Host` is already a bad HTTP/1.1 request (RFC 9112 §3.2) and is
answered 400 before mixbatch has anything to resolve". The check sends one valid one-part
batch (GET ok) under the target's own authority (it must be processed, else N/A), then the
same batch with a Host that is not `uri-host [ ":" port ]`: a space inside, a port that is
not digits, and userinfo. Each is answered 400; only the status is judged, since an HTTP library may
refuse such a request before any mixbatch code runs, in its own words.

An empty Host gives an `http` target URI with an empty host, which RFC 9110 §4.2.1 calls
invalid; the spec leaves open whether the batch request is refused for it, but fixes what an
absolute part target with an empty host means (spec 8.3: "an empty host (`http:///x`)
matches no batch request"). So the batch under an empty Host whose part names
`http:///<ok path>` is 400 either way: for its Host, or under MB-SUB-2 for its target.
"""

from __future__ import annotations

from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

BOUNDARY = "mb-batch-host-3e8d51c0a7"
#: Host values that are not `uri-host [ ":" port ]` (RFC 9110 §7.2; RFC 3986 §3.2.2, §3.2.3):
#: a space in the host, a port that is not digits, and userinfo, which Host never carries.
INVALID_HOSTS = ("a b", "x:y:z", "u@h")
#: Stands in for the Host line while the request is built, so it can be written empty.
_PLACEHOLDER = "mb-host-placeholder.invalid"


def _post(ctx: Context, judge: Judge, target: str, host: str | None) -> int:
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    body = compose_batch([SubRequest("GET", target)], BOUNDARY)
    request = ctx.raw_request("POST", ctx.batch_path, head, body, authority=_PLACEHOLDER)
    if host is not None:
        request = request.replace(
            f"Host: {_PLACEHOLDER}\r\n".encode(), f"Host: {host}\r\n".encode("latin-1"), 1
        )
    return ctx.send(judge, request).status


@checker(
    "batch-host-invalid-refused",
    ("MB-PART-5", "MB-SUB-2"),
    "A batch request whose Host is not uri-host [':' port] is answered 400, and one with an empty Host whose part names http:///path is answered 400.",
    state=State.READ_ONLY,
)
def batch_host_invalid_refused(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    if _post(ctx, judge, ok, ctx.authority) != 200:
        judge.not_applicable("the valid one-part batch under the target's own Host is not 200")
    for host in INVALID_HOSTS:
        # Spec 3.2.2 (MB-PART-5 resolves "against the batch request's target URI"): "a batch
        # request without a valid `Host` is already a bad HTTP/1.1 request (RFC 9112 §3.2) and
        # is answered 400 before mixbatch has anything to resolve".
        judge.expect(f"Host: {host}", _post(ctx, judge, ok, host), {400}, "MB-PART-5")
    if ctx.scheme != "http":
        return
    # MB-SUB-2: "A server MUST answer 400 to a batch request in which any part's target, after
    # resolution, has a scheme or authority other than the batch request's own"; its prose:
    # "an empty host (`http:///x`) matches no batch request".
    status = _post(ctx, judge, f"http://{ok}", "")
    judge.expect("empty Host, part <http:///ok>", status, {400}, "MB-SUB-2")
