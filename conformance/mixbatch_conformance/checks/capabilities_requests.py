"""The capabilities document is the same whatever the discovery request carries (spec 9.2).

Theory of operation: section 9.2 defines one way to fetch the capabilities document, `OPTIONS`
on the batch endpoint (MB-LIMIT-2); it defines no capabilities resource to `GET`. The other
discovery checks send that `OPTIONS` plainly, with Accept values alone, or with content, so a
server that writes its document from other fields of the request (the representations ranked
by the request's Accept, a document cut short of required members for `Prefer:
return=minimal`) passes them. This check fetches the plain document twice, takes the members
that differ between the two fetches (and the private `x-` members, to which the spec gives no
meaning) as free to vary, then sends the same `OPTIONS` with each request variant of
`VARIANTS`: Accept lists that put the 207 forms first or weight them, `*/*`, the capabilities
type alone, Accept-Language, Accept-Encoding: gzip (the answer decoded by its
Content-Encoding), Prefer, Batch-Mode, credentials, Cache-Control: no-cache, an HTTP/1.0
request line, a query on the target, the target in absolute-form (with and without a query)
and field names in lower case. Each answer must be the document of MB-LIMIT-2 (200,
its media type, Accept-Post naming multipart/mixed, Allow, valid against the schema with
multipart/mixed the first representation and the limits published as integers), and equal to
the plain one in every member that does not vary, with three allowances. Under `Prefer:
return=minimal` only the members both documents hold are compared: RFC 7240 §4.2 lets a
server answer minimally, and the schema still fixes what the document must hold. With
credentials, a `limits` member that differs is noted, not judged: no sentence of the spec
forbids limits that differ by principal; a refusal (401 or 403) of the suite's own
credentials is noted too, since a server may refuse credentials it does not know. An HTTP/1.0
request answered other than 200 is noted and skipped: RFC 9112 §2.3 lets a server or a front
end refuse the version (505, or 426). Method case is not varied: RFC 9110 §9.1 makes methods
case-sensitive, so `options` is another method (endpoint-methods-other-case-refused judges
it). N/A when the plain OPTIONS gives no document; the `limits` profile, which the target
declares, is what makes the check apply at all.
"""

from __future__ import annotations

from dataclasses import dataclass

from mixbatch_conformance.checks._shared.versions import with_version
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.json_text import loads_json_text
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import JSON_FORM, XML_FORM
from mixbatch_conformance.core.schemas import validate_against
from mixbatch_conformance.core.validator import names_media_type
from mixbatch_conformance.core.variants import rewrite
from mixbatch_conformance.transport.http import DECODED_CODINGS, Response

__all__: list[str] = []

#: The capabilities document's media type (MB-LIMIT-2).
CAPABILITIES = "application/vnd.mixbatch.capabilities+json"
#: The limits MB-LIMIT-1 publishes (MB-LIMIT-5 adds max_part_fields, which the schema leaves
#: optional for a draft-01 document).
LIMITS = ("max_parts", "max_batch_bytes", "max_part_bytes", "max_part_header_bytes")
#: Statuses a server that checks credentials may give a request carrying the suite's own ones.
REFUSED = {401, 403}


@dataclass(frozen=True, slots=True)
class Variant:
    label: str
    headers: tuple[tuple[str, str], ...] = ()
    #: The HTTP version of the request line.
    version: str = "1.1"
    #: A query on the request target (spec 8.4: a target names the batch endpoint "whatever
    #: its query").
    query: str = ""
    #: Carries the suite's own credentials, which a server may refuse (401, 403), and for
    #: which it may publish other limits (no sentence of the spec ties limits to no principal).
    credentials: bool = False
    #: Asks for a minimal response (RFC 7240 §4.2), which a server may honour by leaving out
    #: members: only the members both documents hold are compared.
    minimal: bool = False
    #: The request-target in absolute-form (RFC 9112 §3.2.2: "A server MUST accept the
    #: absolute-form in requests"; the target URI is the same).
    absolute: bool = False
    #: Every field name in lower case (RFC 9110 §5.1: field names are case-insensitive).
    lower_case: bool = False


VARIANTS = (
    Variant(
        "Accept listing the 207 forms first",
        (("Accept", f"{XML_FORM}, {JSON_FORM}, {CAPABILITIES}"),),
    ),
    Variant(
        "Accept with weights",
        (
            (
                "Accept",
                f"{JSON_FORM};q=0.9, {XML_FORM};q=0.8, {CAPABILITIES};q=0.5, multipart/mixed;q=0.1",
            ),
        ),
    ),
    Variant("Accept: */*", (("Accept", "*/*"),)),
    Variant("Accept: the capabilities type alone", (("Accept", CAPABILITIES),)),
    Variant("Accept-Language", (("Accept-Language", "fr-CH, fr;q=0.9, de;q=0.5"),)),
    Variant("Accept-Encoding: gzip", (("Accept-Encoding", "gzip"),)),
    Variant("Prefer: batch-on-error=stop", (("Prefer", "batch-on-error=stop"),)),
    Variant("Prefer: return=minimal", (("Prefer", "return=minimal"),), minimal=True),
    Variant("Batch-Mode: atomic", (("Batch-Mode", "atomic"),)),
    Variant(
        "Authorization and Cookie",
        (("Authorization", "Bearer mb-suite-discovery-token"), ("Cookie", "mb-suite=discovery")),
        credentials=True,
    ),
    Variant("Cache-Control: no-cache", (("Cache-Control", "no-cache"), ("Pragma", "no-cache"))),
    Variant("an HTTP/1.0 request line", version="1.0"),
    Variant("a query on the target", query="mb-suite-discovery=variant"),
    Variant("the request-target in absolute-form", absolute=True),
    Variant("the target in absolute-form with a query", query="mb-q=1", absolute=True),
    Variant("field names in lower case", (("Accept", CAPABILITIES),), lower_case=True),
)


def _decoded(resp: Response) -> tuple[bytes | None, str]:
    """The content with its content codings undone, as the client reads a response; None and
    the outermost coding left when one is unknown or its octets do not decode."""
    if resp.codings_left:
        return None, resp.codings_left[-1]
    return resp.body, ""


def _document(body: bytes) -> dict[str, object] | None:
    try:
        doc = loads_json_text(body)
    except ValueError:
        return None
    return doc if isinstance(doc, dict) else None


def _fetch(ctx: Context, judge: Judge, variant: Variant) -> Response:
    target = f"{ctx.batch_path}?{variant.query}" if variant.query else ctx.batch_path
    if variant.absolute:
        target = f"{ctx.scheme}://{ctx.authority}{target}"
    # Every request carries the target's configured credentials, as the plain one does, but
    # for the names a variant sets itself: the credentials variant's Authorization and Cookie
    # are the suite's (raw_request adds the target's only for names the request lacks).
    request = with_version(ctx.raw_request("OPTIONS", target, variant.headers), variant.version)
    if variant.lower_case:
        request = rewrite("field-name-case", request, ctx.scheme, ctx.authority) or request
    return ctx.send(judge, request, as_written=True)


def _members(doc: dict[str, object]) -> dict[str, object]:
    """The document's members, each limit as a member of its own (`limits.max_parts`)."""
    out: dict[str, object] = {}
    for name, value in doc.items():
        if name == "limits" and isinstance(value, dict):
            for limit, v in value.items():
                out[f"limits.{limit}"] = v
        else:
            out[name] = value
    return out


def _varying(first: dict[str, object], second: dict[str, object]) -> set[str]:
    """Members free to vary: those two plain fetches disagree on, and the private `x-` ones."""
    a, b = _members(first), _members(second)
    return {m for m in a.keys() | b.keys() if m.startswith("x-") or a.get(m) != b.get(m)}


@checker(
    "capabilities-whatever-request-fields",
    ("MB-LIMIT-2", "MB-LIMIT-1"),
    "OPTIONS on the batch endpoint with Accept lists, weights and wildcards, Accept-Language, Accept-Encoding, Prefer, Batch-Mode, credentials, Cache-Control, over HTTP/1.0 (when the server takes it), with a query, in absolute-form or with field names in lower case answers the capabilities document, valid with multipart/mixed first, equal to the plain request's in every member that does not vary (under return=minimal in the members both hold; limits may differ with credentials).",
    profile="limits",
    tier="standard",
    state=State.READ_ONLY,
)
def capabilities_whatever_request_fields(ctx: Context, judge: Judge) -> None:
    plain = [ctx.send(judge, ctx.raw_request("OPTIONS", ctx.batch_path)) for _ in range(2)]
    docs = [_document(r.body) if r.status == 200 else None for r in plain]
    first, second = docs
    if first is None or second is None:
        judge.not_applicable(
            "the plain OPTIONS gives no capabilities document "
            f"({plain[0].status}, {plain[1].status}; options-capabilities judges it)"
        )
    varying = _varying(first, second)
    if varying:
        judge.note(f"members that vary between two plain fetches or are private: {sorted(varying)}")
    reference = _members(first)
    for variant in VARIANTS:
        resp = _fetch(ctx, judge, variant)
        label = variant.label
        if variant.credentials and resp.status in REFUSED:
            judge.note(f"{label}: {resp.status}, the suite's own credentials refused")
            continue
        if variant.version == "1.0" and resp.status != 200:
            # Nothing in the spec makes a server take an HTTP/1.0 request (RFC 9112 §2.3 lets
            # it refuse the version, with 505 or 426 from a front end): not judged.
            judge.note(
                f"{label}: {resp.status}, the HTTP/1.0 request refused "
                "(RFC 9112 §2.3 lets it refuse); variant skipped"
            )
            continue
        # MB-LIMIT-2: "A server that offers the `limits` profile MUST answer `OPTIONS` on a
        # batch endpoint with 200, an `application/vnd.mixbatch.capabilities+json` document
        # that validates against spec/schemas/capabilities.schema.json, an `Accept-Post:
        # multipart/mixed` field and an `Allow` field"; nothing in it depends on the other
        # fields of the request, and "one that admits `application/vnd.mixbatch.capabilities+json`
        # gets the document".
        if not judge.expect(f"{label}: status", resp.status, {200}, "MB-LIMIT-2"):
            continue
        judge.expect(f"{label}: media type", resp.media_type, {CAPABILITIES}, "MB-LIMIT-2")
        accept_post = resp.get_all("Accept-Post")
        judge.expect_true(
            f"{label}: Accept-Post",
            names_media_type(accept_post, "multipart/mixed"),
            repr(accept_post),
            "a member that is multipart/mixed",
            "MB-LIMIT-2",
        )
        judge.expect_true(
            f"{label}: Allow",
            bool(resp.get_all("Allow")),
            repr(resp.get_all("Allow")),
            "an Allow field",
            "MB-LIMIT-2",
        )
        body, coding = _decoded(resp)
        if body is None and coding not in DECODED_CODINGS:
            # RFC 9110 §12.5.3: "If no Accept-Encoding header field is in the request, any
            # content coding is considered acceptable"; one the client cannot undo hides the
            # document, which is then not judged.
            judge.note(f"{label}: Content-Encoding {coding!r} the suite cannot undo: not read")
            continue
        # MB-LIMIT-2: "an `application/vnd.mixbatch.capabilities+json` document", whatever
        # content coding carries it (RFC 9110 §8.4: the coding is undone by the recipient).
        if not judge.expect_true(
            f"{label}: content decodes",
            body is not None,
            f"Content-Encoding {coding!r} that does not decode",
            "content in codings RFC 9110 §8.4.1 defines",
            "MB-LIMIT-2",
        ):
            continue
        assert body is not None
        doc = _document(body)
        if not judge.expect_true(
            f"{label}: JSON document", doc is not None, repr(body[:80]), "an object", "MB-LIMIT-2"
        ):
            continue
        assert doc is not None
        _judge_document(ctx, judge, label, doc)
        _judge_agreement(judge, variant, reference, _members(doc), varying)


def _judge_document(ctx: Context, judge: Judge, label: str, doc: dict[str, object]) -> None:
    # MB-LIMIT-2: "a document that validates against spec/schemas/capabilities.schema.json".
    problem = validate_against("capabilities.schema.json", doc)
    judge.expect(
        f"{label}: capabilities schema",
        problem,
        {None},
        "MB-LIMIT-2",
        allowed_text="valid (no error)",
    )
    reps = doc.get("representations")
    # MB-LIMIT-2 (the schema it names): representations are the "Media types the server can
    # answer a batch with, in preference order; multipart/mixed is always first".
    judge.expect_true(
        f"{label}: first representation",
        isinstance(reps, list) and bool(reps) and reps[0] == "multipart/mixed",
        repr(reps),
        "multipart/mixed first",
        "MB-LIMIT-2",
    )
    limits = doc.get("limits")
    # MB-LIMIT-1: "MUST enforce limits on the number of parts in a batch, the octets of a batch
    # request's content, the octets of a part body and the octets of a part header section,
    # and MUST publish them: in the capabilities document when it offers the `limits` profile".
    judge.expect_true(
        f"{label}: published limits",
        isinstance(limits, dict) and all(isinstance(limits.get(n), int) for n in LIMITS),
        repr(limits),
        f"integers for {', '.join(LIMITS)}",
        "MB-LIMIT-1",
    )
    endpoint = doc.get("endpoint")
    if isinstance(endpoint, str) and ctx.settings.via is None:
        # Spec 9.2 (MB-LIMIT-2): the document may state "the endpoint's own path (`endpoint`)",
        # the path the OPTIONS was sent to whatever its query or fields.
        judge.expect_true(
            f"{label}: endpoint member",
            endpoint == ctx.batch_path or ctx.batch_path.endswith(endpoint),
            repr(endpoint),
            f"the path the document was fetched at, {ctx.batch_path!r}",
            "MB-LIMIT-2",
        )


def _judge_agreement(
    judge: Judge,
    variant: Variant,
    reference: dict[str, object],
    members: dict[str, object],
    varying: set[str],
) -> None:
    label = variant.label
    if variant.minimal:
        # RFC 7240 §4.2: return=minimal asks for a minimal response, which the server may
        # give; MB-LIMIT-2 still holds the document to the schema (_judge_document), so only
        # the members both documents hold must agree.
        names = (reference.keys() & members.keys()) - varying
        left_out = sorted((reference.keys() - members.keys()) - varying)
        if left_out:
            judge.note(f"{label}: members left out of the minimal document: {left_out}")
    else:
        names = (reference.keys() | members.keys()) - varying
    for name in sorted(names):
        want, got = reference.get(name, "(absent)"), members.get(name, "(absent)")
        same = type(got) is type(want) and got == want
        if variant.credentials and name.startswith("limits."):
            # Limits may differ by principal: no sentence of the spec makes the limits a
            # request with credentials is held to those of one without (the document is
            # still judged against the schema and MB-LIMIT-1 by _judge_document).
            if not same:
                judge.note(f"{label}: {name} is {got!r}, {want!r} without credentials")
            continue
        # A limit, MB-LIMIT-1: a server "MUST enforce limits ... and MUST publish them: in the
        # capabilities document"; the document "reveals a server's limits, which are not
        # secret" (spec 13.3): the limits a batch is held to, which no field of the discovery
        # request changes. Another member, MB-LIMIT-2 (spec 9.2): the document states "the
        # specification version (`spec_version`), the limits ..., the profiles the server
        # offers (`profiles`) and the media types of the batch representations it offers
        # (`representations`)", in "preference order" (the schema): what the server offers,
        # not what the request asks for.
        requirement = "MB-LIMIT-1" if name.startswith("limits.") else "MB-LIMIT-2"
        judge.expect_true(
            f"{label}: {name} as in the plain request's document",
            same,
            repr(got),
            repr(want),
            requirement,
        )
