"""A refusal of the batch request's method carries a problem document naming the method rule
(spec 5.3, 4.1, 4.2).

Theory of operation: spec 5.3 counts 405 among the refusals "that this specification calls for
(400, 405, 406, 413, 415, 431, 501 and the like)", whose "problem document names" the broken
requirement (MB-STATUS-4). A server whose HTTP framework answers a method its routes do not
take, or a GET with content, before the batch code sees it, sends the framework's text or HTML
body instead. `method.py` judges these statuses and their `Allow`; this module judges the
document of each such refusal: a 405 names MB-METHOD-2, a 400 to a GET with content names
MB-METHOD-3. A request that carries a batch's content with another method than POST breaks
the client's rule as well (MB-METHOD-1, "send a batch request that has content with the
`POST` method"), so that ID names its refusal too. A method no specification defines may be
answered 501 (spec 4.1), whose document "names MB-METHOD-2 ... or leaves `requirement` out";
it names no other requirement. A status other than 400, 405 or 501 is left to `method.py`.
"""

from __future__ import annotations

from mixbatch_conformance.core.context import Context, problem_of
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

BOUNDARY = "mb-method-refusal-5d1c"
#: A method no specification defines: spec 4.1 lets a server answer it 501 (RFC 9110 §15.6.2).
UNRECOGNISED_METHOD = "MBSUITEUNDEFINED"


def _batch_content(ok: str) -> tuple[list[tuple[str, str]], bytes]:
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    body = f"--{BOUNDARY}\r\nHttp-Method: GET\r\nContent-Id: <{ok}>\r\n\r\n\r\n--{BOUNDARY}--"
    return head, body.encode()


def _judge_document(
    judge: Judge, what: str, resp: Response, named: dict[int, set[str | None]]
) -> None:
    """A refusal with a status in `named` carries a problem document naming one of its IDs."""
    if resp.status not in named:
        judge.note(f"{what}: {resp.status}, judged by the method checks")
        return
    doc = problem_of(resp)
    # MB-STATUS-4: "an `application/problem+json` body (RFC 9457) with a `requirement` member
    # naming the ID of the requirement the request broke"; spec 5.3: "A 4xx that this
    # specification calls for (400, 405, 406, 413, 415, 431, 501 and the like) answers a
    # request that broke a requirement, and its problem document names it."
    if not judge.expect_true(
        f"{what}: problem+json body",
        doc is not None,
        f"{resp.status}, Content-Type {resp.get('Content-Type')!r}, {len(resp.body)} octets",
        "a JSON object as application/problem+json",
        "MB-STATUS-4",
    ):
        return
    assert doc is not None
    judge.expect(f"{what}: problem status", doc.get("status"), {resp.status}, "MB-STATUS-4")
    judge.expect(
        f"{what}: problem requirement", doc.get("requirement"), named[resp.status], "MB-STATUS-4"
    )


@checker(
    "method-refusal-names-requirement",
    ("MB-STATUS-4", "MB-METHOD-2", "MB-METHOD-3"),
    "A 405 from the batch endpoint (PUT, PATCH, DELETE and TRACE without content, and PUT, DELETE or GET with a batch's content) carries a problem document naming MB-METHOD-2, a 501 for a method no specification defines one naming MB-METHOD-2 or no requirement, and a 400 to a GET with content, on the batch endpoint or a collection, one naming MB-METHOD-3.",
    state=State.READ_ONLY,
)
def method_refusal_names_requirement(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    head, body = _batch_content(ok)
    # MB-METHOD-2: "answer a request to a batch endpoint with any method it does not support
    # there with 405"; MB-METHOD-1 is the client's side of the same rule for content.
    not_allowed: dict[int, set[str | None]] = {405: {"MB-METHOD-2"}}
    with_content: dict[int, set[str | None]] = {405: {"MB-METHOD-2", "MB-METHOD-1"}}
    probes: list[
        tuple[str, str, str, list[tuple[str, str]], bytes | None, dict[int, set[str | None]]]
    ] = [
        ("PUT without content", "PUT", ctx.batch_path, [], b"", not_allowed),
        # Methods a framework's router answers on its own when no route takes them: one with
        # content in ordinary use sent without, one without, and TRACE, which RFC 9110 §9.3.8
        # defines (so it is known, and MB-METHOD-2's 405 is the answer where it is not allowed).
        ("PATCH without content", "PATCH", ctx.batch_path, [], b"", not_allowed),
        ("DELETE without content", "DELETE", ctx.batch_path, [], None, not_allowed),
        ("TRACE", "TRACE", ctx.batch_path, [], None, not_allowed),
        # Spec 4.1: a method the server does not recognise may be answered 501, and "The 501's
        # problem document names MB-METHOD-2, whose text allows the 501, or leaves
        # `requirement` out".
        (
            f"{UNRECOGNISED_METHOD}, a method no specification defines",
            UNRECOGNISED_METHOD,
            ctx.batch_path,
            [],
            None,
            {405: {"MB-METHOD-2"}, 501: {"MB-METHOD-2", None}},
        ),
        ("PUT with a batch's content", "PUT", ctx.batch_path, head, body, with_content),
        ("DELETE with a batch's content", "DELETE", ctx.batch_path, head, body, with_content),
        # MB-METHOD-3: "answer 400 to a `GET` request for a collection retrieval, or to a
        # batch endpoint, that has content"; "A server that does not allow `GET` on its batch
        # endpoint may answer a `GET` with content there 405 under MB-METHOD-2 instead".
        (
            "GET with a batch's content",
            "GET",
            ctx.batch_path,
            head,
            body,
            {400: {"MB-METHOD-3", "MB-METHOD-1"}, 405: {"MB-METHOD-2", "MB-METHOD-1"}},
        ),
    ]
    if ctx.target.claims("collection-get"):
        coll = ctx.path(ctx.resource(judge, "collection"))
        probes.append(
            (
                "GET of the collection with content",
                "GET",
                coll,
                [("Accept", "multipart/mixed"), ("Content-Type", "text/plain")],
                b"content",
                {400: {"MB-METHOD-3"}},
            )
        )
    for what, method, path, fields, content, named in probes:
        resp = ctx.send(judge, ctx.raw_request(method, path, fields, content))
        _judge_document(judge, what, resp, named)
