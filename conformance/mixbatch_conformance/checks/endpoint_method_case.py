"""The batch endpoint's methods in another letter case are other methods (spec 4.1).

Theory of operation: method names are case-sensitive (RFC 9110 §9.1: "The method token is
case-sensitive"), so `post`, `Post` and `pOST` are not `POST`, and `options` is not `OPTIONS`.
MB-METHOD-2 makes a server "answer a request to a batch endpoint with any method it does not
support there with 405 (Method Not Allowed) and an `Allow` field", and spec 4.1 lets it answer a
method it does not recognise 501 (RFC 9110 §15.6.2), with or without `Allow`. A server that
folds the method's case before it dispatches runs a batch sent as `post`, or gives the
capabilities document to `options`.

The check sends a valid batch of two GETs as `post`, `Post` and `pOST`, then `post` again with
the Accept of each 207 form the target claims and under each error policy and the atomic mode
it claims (a dispatch written on one of those paths can fold the case there alone); then
`options`, `Options` and `oPTIONS` asking for the capabilities document, and `get`, `put`,
`patch` and `delete`, the RFC 9110 methods the endpoint is asked with by method-not-allowed, in
lower case. Each must be answered 405 with an `Allow` naming POST, or 501; the batches only
read, so a server that runs one changes nothing.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.claimed_variants import claimed_variants
from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

BOUNDARY = "mb-method-case-6e0b3d92c7a1f458"
#: POST in other letter cases: each another method, carrying a valid batch.
POST_SPELLINGS = ("post", "Post", "pOST")
#: OPTIONS in other letter cases, asking for the capabilities document.
OPTIONS_SPELLINGS = ("options", "Options", "oPTIONS")
#: Other methods of RFC 9110 in lower case, without content (PUT and PATCH with an empty one).
OTHER_LOWER = ("get", "put", "patch", "delete")
CAPABILITIES = "application/vnd.mixbatch.capabilities+json"


def _allow(resp: Response) -> list[str]:
    return [a.strip(" \t") for a in ",".join(resp.get_all("Allow")).split(",") if a.strip(" \t")]


def _judge_refused(judge: Judge, label: str, resp: Response) -> None:
    # MB-METHOD-2: "answer a request to a batch endpoint with any method it does not support
    # there with 405 (Method Not Allowed) and an `Allow` field listing the methods it does
    # support (at least `POST` ...)"; spec 4.1: a method the server does not recognise may be
    # answered 501. RFC 9110 §9.1: "The method token is case-sensitive", so this is neither
    # POST nor OPTIONS. An HTTP parser that knows only the registered methods refuses the
    # request line itself with 400 before any handler sees it (llhttp, used by uvicorn and
    # Node.js, does): the request is refused, not run, which is what MB-METHOD-2 is about.
    judge.expect(f"{label}: status", resp.status, {400, 405, 501}, "MB-METHOD-2")
    if resp.status == 405:
        listed = _allow(resp)
        judge.expect_true(
            f"{label}: Allow on the 405",
            "POST" in listed,
            repr(listed),
            "an Allow naming POST",
            "MB-METHOD-2",
        )


@checker(
    "endpoint-methods-other-case-refused",
    ("MB-METHOD-2",),
    "A valid batch sent to the batch endpoint as post, Post or pOST (also in every 207 form and mode claimed), OPTIONS as options, Options or oPTIONS, and get, put, patch and delete are answered 405 with an Allow naming POST, or 501: methods are case-sensitive.",
    state=State.READ_ONLY,
    direct_only="an intermediary may refuse a method outside its own table, or forward it in "
    "upper case",
)
def endpoint_methods_other_case_refused(ctx: Context, judge: Judge) -> None:
    body = compose_batch(list(ok_and_not_found(ctx, judge)), BOUNDARY)
    mixed = ("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")
    sent: list[tuple[str, str, tuple[tuple[str, str], ...], bytes | None]] = [
        (f"a batch sent as {m}", m, (mixed,), body) for m in POST_SPELLINGS
    ]
    sent += [
        (f"a batch sent as post, {label}", "post", (mixed, *extra), body)
        for label, extra in claimed_variants(ctx)
    ]
    sent += [
        (f"{m} asking for the capabilities document", m, (("Accept", CAPABILITIES),), None)
        for m in OPTIONS_SPELLINGS
    ]
    sent += [(m, m, (), b"" if m in ("put", "patch") else None) for m in OTHER_LOWER]
    for label, method, head, content in sent:
        resp = ctx.send(judge, ctx.raw_request(method, ctx.batch_path, head, content))
        judge.note(f"{label}: {resp.status}")
        _judge_refused(judge, label, resp)
