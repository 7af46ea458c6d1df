"""Discovery checks (spec 9.2): OPTIONS on the batch endpoint and the capabilities document.

Theory of operation: one OPTIONS request; the answer must be 200 with Accept-Post naming
multipart/mixed and a capabilities document that validates against
spec/schemas/capabilities.schema.json and publishes the limits as integers, `max_part_fields`
included (MB-LIMIT-1, MB-LIMIT-2, MB-LIMIT-5), and whose `endpoint`, when it states one, is the
path it was fetched at. The same OPTIONS with a query on its target gets the same document (a
query leaves a target naming the batch endpoint, spec 8.4). `options-capabilities-any-accept` sends the
OPTIONS again with each Accept that admits the document's media type: OPTIONS is no batch
request, so the batch representations MB-STATUS-9 negotiates do not decide its answer.
"""

from __future__ import annotations

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.json_text import is_json_integer, loads_json_text
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.schemas import validate_against
from mixbatch_conformance.core.validator import names_media_type

#: A query on the OPTIONS request target, which leaves it a request to the batch endpoint.
QUERY = "mb-suite-discovery=1"


@checker(
    "options-capabilities",
    ("MB-LIMIT-2", "MB-LIMIT-1", "MB-LIMIT-5"),
    "OPTIONS on the batch endpoint, with or without a query, answers 200 with the capabilities document, Accept-Post and Allow, the document's endpoint (when it has one) naming that path.",
    profile="limits",
    state=State.READ_ONLY,
)
def options_capabilities(ctx: Context, judge: Judge) -> None:
    resp = ctx.send(judge, ctx.raw_request("OPTIONS", ctx.batch_path))
    # MB-LIMIT-2: "answer `OPTIONS` on a batch endpoint with 200, an
    # `application/vnd.mixbatch.capabilities+json` document that validates against
    # spec/schemas/capabilities.schema.json, an `Accept-Post: multipart/mixed` field and an
    # `Allow` field".
    judge.require("status", resp.status, {200})
    judge.expect("media type", resp.media_type, {"application/vnd.mixbatch.capabilities+json"})
    accept_post = resp.get_all("Accept-Post")
    judge.expect_true(
        "Accept-Post",
        names_media_type(accept_post, "multipart/mixed"),
        repr(accept_post),
        "a member that is multipart/mixed",
    )
    judge.expect_true(
        "Allow", bool(resp.get_all("Allow")), repr(resp.get_all("Allow")), "an Allow field"
    )
    # MB-LIMIT-2: "an `application/vnd.mixbatch.capabilities+json` document", a JSON text
    # (spec 13.3: "Encoding considerations: binary (UTF-8 JSON)"; RFC 8259 §8.1: no byte order
    # mark).
    try:
        doc = loads_json_text(resp.body)
        why = repr(resp.body[:80])
    except ValueError as exc:
        doc, why = None, f"{exc}: {resp.body[:80]!r}"
    judge.require_true("JSON document", isinstance(doc, dict), why, "an object")
    assert isinstance(doc, dict)
    limits = doc.get("limits")
    # MB-LIMIT-1: "MUST publish them: in the capabilities document when it offers the `limits`
    # profile"; MB-LIMIT-5: "publish it as `max_part_fields` with the limits of MB-LIMIT-1".
    names = ("max_parts", "max_batch_bytes", "max_part_bytes", "max_part_header_bytes")
    judge.expect_true(
        "published limits",
        isinstance(limits, dict) and all(is_json_integer(limits.get(n)) for n in names),
        repr(limits),
        f"integers for {', '.join(names)}",
        "MB-LIMIT-1",
    )
    judge.expect_true(
        "published max_part_fields",
        isinstance(limits, dict) and is_json_integer(limits.get("max_part_fields")),
        repr(limits),
        "an integer max_part_fields",
        "MB-LIMIT-5",
    )
    # The schema leaves `endpoint`, `preferences` and `max_part_fields` optional (spec 9.2).
    problem = validate_against("capabilities.schema.json", doc)
    judge.expect("capabilities schema", problem, {None}, allowed_text="valid (no error)")
    endpoint = doc.get("endpoint")
    if isinstance(endpoint, str) and ctx.settings.via is None:
        # Spec 9.2: the document may state "the endpoint's own path (`endpoint`)", which is
        # "the batch endpoint's origin-form path" (the schema): the path this OPTIONS was sent
        # to, or its tail where a gateway in front of the server strips a prefix.
        judge.expect_true(
            "endpoint member",
            endpoint == ctx.batch_path or ctx.batch_path.endswith(endpoint),
            repr(endpoint),
            f"the path the document was fetched at, {ctx.batch_path!r}",
            "MB-LIMIT-2",
        )
    queried = f"{ctx.batch_path}?{QUERY}"
    again = ctx.send(judge, ctx.raw_request("OPTIONS", queried))
    # Spec 8.4: a target names the batch endpoint "whenever its path equals the endpoint's path
    # ..., whatever its query"; MB-LIMIT-2: "answer `OPTIONS` on a batch endpoint with 200, an
    # `application/vnd.mixbatch.capabilities+json` document".
    judge.expect(
        f"OPTIONS {queried}: status and media type",
        (again.status, again.media_type),
        {(200, "application/vnd.mixbatch.capabilities+json")},
        "MB-LIMIT-2",
    )


#: The capabilities document's media type (MB-LIMIT-2).
CAPABILITIES = "application/vnd.mixbatch.capabilities+json"
#: Accept values that admit the capabilities document: the type itself in other case and with a
#: weight, the wildcards that cover it, and lists where a batch representation comes first. A
#: server that negotiates OPTIONS as if it were a batch (against the batch representations of
#: MB-STATUS-9) refuses some of these with 406.
OPTIONS_ACCEPTS = (
    CAPABILITIES,
    "Application/Vnd.Mixbatch.Capabilities+JSON",
    f"{CAPABILITIES};q=0.5",
    "application/*",
    "*/*",
    f"multipart/mixed, {CAPABILITIES};q=0.8",
    f"application/vnd.mixbatch.multistatus+json, {CAPABILITIES}",
    f"text/html;q=0.9, {CAPABILITIES}",
)


@checker(
    "options-capabilities-any-accept",
    ("MB-LIMIT-2",),
    "OPTIONS on the batch endpoint with an Accept that admits the capabilities document (the type itself in any case or weight, a wildcard, a list after batch types) answers 200 with the document.",
    profile="limits",
    state=State.READ_ONLY,
)
def options_capabilities_any_accept(ctx: Context, judge: Judge) -> None:
    for accept in OPTIONS_ACCEPTS:
        resp = ctx.send(judge, ctx.raw_request("OPTIONS", ctx.batch_path, [("Accept", accept)]))
        # MB-LIMIT-2: "MUST answer `OPTIONS` on a batch endpoint with 200, an
        # `application/vnd.mixbatch.capabilities+json` document". MB-STATUS-9's 406 answers "a
        # batch request whose `Accept` field admits none of the batch representations": an
        # OPTIONS request is no batch request, and this Accept admits the document's type.
        judge.expect(
            f"Accept: {accept}: status and media type",
            (resp.status, resp.media_type),
            {(200, CAPABILITIES)},
            "MB-LIMIT-2",
        )
