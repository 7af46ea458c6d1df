"""Top-level method checks (spec 4): POST only for batches, GET for collection retrieval.

Theory of operation: the batch endpoint's 405 to PUT tells which methods it supports (its
Allow); every method it does not list (GET without content or with Content-Length: 0, HEAD,
PATCH, PUT, DELETE, TRACE, and HEAD, PUT, PATCH and DELETE with content) is answered 405 with an
Allow naming POST, and OPTIONS too when OPTIONS gives the capabilities document (MB-METHOD-2):
MB-METHOD-3's 400 is for a GET with content alone. Content on such a method may instead get the
refusal the server gives the same request on its `not_found` resource (an HTTP stack that
rejects content on HEAD or DELETE everywhere, as RFC 9110 §9.3.2 and §9.3.5 foresee). A method
no specification defines is 405 or 501 (spec 4.1), with or without content. GET on a declared collection with Accept multipart/mixed gives one part
per member with an aggregate ETag and Vary: Accept, 304 on that ETag, 404 for a missing
collection (MB-METHOD-4, MB-STATUS-7), and the same for Accept values that admit
multipart/mixed in another spelling (case, a weight, `multipart/*`); the retrieval is held to
every framing rule a multipart sender meets; each member's Content-Id, resolved against the
collection's URI, names a resource that answers alone what the part says (MB-METHOD-6). A
conditional retrieval, on GET and HEAD, is 304 exactly when If-None-Match matches by RFC 9110's
weak comparison (either strength of the tag, a list in one or two field lines, `*`), and
If-Modified-Since is ignored beside If-None-Match, and alone is 304 exactly when the aggregate
Last-Modified is no later than its date, in IMF-fixdate or RFC 850 form; it is 412 when
If-Match fails RFC 9110's strong comparison or, without If-Match, If-Unmodified-Since is a
second before the aggregate Last-Modified (MB-STATUS-7). A GET with content, framed by
Content-Length or chunked, with or without a Content-Type, is 400 on a collection (under each
Accept that makes it a retrieval) and 400 or 405 on the batch endpoint, a 405 whose Allow names
POST and not GET (MB-METHOD-3, MB-METHOD-2); a GET with Content-Length: 0, or 00, has no
content, on a collection and on the batch endpoint alike. A declared empty collection is 204 with the aggregate ETag and Vary: Accept, and 304 on that
ETag (MB-STATUS-11, MB-METHOD-4, MB-STATUS-7).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime, parsedate_to_datetime
from urllib.parse import urljoin, urlsplit

from mixbatch_conformance.checks._shared.framing import judge_sender_findings
from mixbatch_conformance.checks._shared.validators import is_entity_tag
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.validator import Part, read_multipart
from mixbatch_conformance.transport.http import Response

#: Methods the batch endpoint is asked with (GET without content); each one its Allow does not
#: list must be answered 405. Only methods RFC 9110 defines (and PATCH), so that none is unknown
#: to the server's HTTP stack (which may answer an unknown method 501): TRACE (RFC 9110 §9.3.8)
#: is as known as the others, though few servers route it anywhere.
PROBED_METHODS = ("GET", "HEAD", "PATCH", "PUT", "DELETE", "TRACE")
#: Methods asked again with content framed each way `CONTENT_FRAMINGS` lists: a server that
#: makes its GET content check (MB-METHOD-3) for every method, or for GET and HEAD alike, answers
#: them 400 where MB-METHOD-2 asks for 405. TRACE is left out: RFC 9110 §9.3.8 forbids content
#: on it ("A client MUST NOT send content in a TRACE request").
CONTENT_METHODS = ("HEAD", "PUT", "PATCH", "DELETE")
#: Content on a method the batch endpoint does not allow: one typed octet by Content-Length, a
#: multipart/mixed batch (what a client that picked the wrong method sends) and chunked JSON.
CONTENT_FRAMINGS: tuple[tuple[str, tuple[tuple[str, str], ...], bytes], ...] = (
    ("Content-Length", (("Content-Type", "text/plain"),), b"x"),
    (
        "Content-Length, a batch",
        (("Content-Type", "multipart/mixed; boundary=mb-405"),),
        b"--mb-405\r\nHttp-Method: GET\r\nContent-Id: </>\r\n\r\n\r\n--mb-405--",
    ),
    (
        "chunked",
        (("Transfer-Encoding", "chunked"), ("Content-Type", "application/json")),
        b"2\r\n{}\r\n0\r\n\r\n",
    ),
)
#: Methods asked with `Content-Length: 0`, which frames no content (RFC 9112 §6.3): GET among
#: them, which MB-METHOD-3 then leaves to MB-METHOD-2 ("A `GET` with `Content-Length: 0` ...
#: has no content"). PUT and PATCH are already asked so, without content.
EMPTY_LENGTH_METHODS = ("GET", "HEAD", "DELETE")
#: A method no HTTP specification defines: spec 4.1 lets a server answer it 501 (RFC 9110
#: §15.6.2) where it would answer a method it knows 405.
UNKNOWN_METHOD = "MBPROBE"
#: Conditional fields sent beside content on a collection GET: each would decide the answer
#: (304 or 412) of the same GET without content.
CONTENT_PRECONDITIONS = (
    ("If-Modified-Since", "Fri, 01 Jan 2100 00:00:00 GMT"),
    ("If-Match", '"mb-no-such-tag"'),
    ("If-Unmodified-Since", "Thu, 01 Jan 1970 00:00:00 GMT"),
)
#: The media type of the capabilities document OPTIONS gives when discovery is offered.
CAPABILITIES = "application/vnd.mixbatch.capabilities+json"
#: How many members of a collection retrieval are fetched alone to judge their Content-Id.
MEMBERS_FOLLOWED = 4
#: Content sent on a GET, each way HTTP/1.1 frames it (RFC 9112 §6): by Content-Length, and
#: chunked (one chunk of `content`, then the last chunk).
GET_CONTENT_FRAMINGS: tuple[tuple[str, tuple[tuple[str, str], ...], bytes], ...] = (
    ("Content-Length", (), b"content"),
    ("chunked", (("Transfer-Encoding", "chunked"),), b"7\r\ncontent\r\n0\r\n\r\n"),
    ("Content-Length with a Content-Type", (("Content-Type", "text/plain"),), b"content"),
    (
        "chunked with a Content-Type",
        (("Transfer-Encoding", "chunked"), ("Content-Type", "application/json")),
        b"2\r\n{}\r\n0\r\n\r\n",
    ),
    ("Content-Length of one octet", (), b"x"),
)
#: Framings that carry no content (RFC 9112 §6.3: a Content-Length of 0 means none): a GET
#: framed so is no GET "that has content", and a collection retrieval answers it as usual. The
#: length written with a leading zero is the same length (RFC 9110 §8.6: `Content-Length =
#: 1*DIGIT`, a decimal number of octets), not a field whose presence means content.
GET_EMPTY_FRAMINGS: tuple[tuple[str, tuple[tuple[str, str], ...], bytes], ...] = (
    ("Content-Length: 0", (("Content-Length", "0"),), b""),
    ("Content-Length: 00", (("Content-Length", "00"),), b""),
)


def _empty_framings(
    ctx: Context, judge: Judge
) -> list[tuple[str, tuple[tuple[str, str], ...], bytes]]:
    """GET_EMPTY_FRAMINGS less those the server's HTTP stack refuses on an ordinary resource:
    a parser stricter than RFC 9110 §8.6 (one refusing `Content-Length: 00`) answers 400
    before any batch rule is met, which the spec cannot require otherwise."""
    ok = ctx.target.resource("ok")
    if ok is None:
        return list(GET_EMPTY_FRAMINGS)
    out = []
    for empty in GET_EMPTY_FRAMINGS:
        framing, head, body = empty
        resp = ctx.send(judge, ctx.raw_request("GET", ctx.path(ok), head, body))
        if resp.status == 400:
            judge.note(f"a GET of ok with {framing} is refused 400 by the stack: not judged")
            continue
        out.append(empty)
    return out


#: Accept values other than `multipart/mixed` that make a GET of a collection a retrieval (spec
#: 4.2: its `Accept` "admits `multipart/mixed`, and admits no other representation of the
#: collection with a higher weight"), sent with content: a GET for a collection retrieval.
CONTENT_RETRIEVAL_ACCEPTS = ("Multipart/Mixed", "multipart/*;q=0.5")


def _allow(resp: Response) -> list[str]:
    return [a.strip(" \t") for a in ",".join(resp.get_all("Allow")).split(",") if a.strip(" \t")]


def batch_endpoint_allow(ctx: Context, judge: Judge) -> list[str]:
    """The methods the batch endpoint lists in the Allow of its 405 to PUT (MB-METHOD-2)."""
    resp = ctx.send(judge, ctx.raw_request("PUT", ctx.batch_path, body=b""))
    # MB-METHOD-2: "405 (Method Not Allowed) and an `Allow` field listing the methods it does
    # support (at least `POST` ...)".
    judge.require("PUT status", resp.status, {405}, "MB-METHOD-2")
    return _allow(resp)


def refused_before_routing(
    ctx: Context,
    judge: Judge,
    method: str,
    head: tuple[tuple[str, str], ...],
    content: bytes | None,
) -> int | None:
    """The status the server gives `method` with this content on a resource it does not have,
    when that is a refusal no routing gives (a 4xx other than 404, 405 and 410); None otherwise.

    RFC 9110 §9.3.2 and §9.3.5 say of content on HEAD and DELETE that it "might lead some
    implementations to reject the request", and an HTTP stack that does so refuses it on
    every resource before any handler sees it. The same request to the `not_found` resource
    (which no method changes) shows that refusal; the batch endpoint may then give it too."""
    missing = ctx.target.resource("not_found")
    if not missing:
        return None
    alone = ctx.send(judge, ctx.raw_request(method, ctx.path(missing), head, content))
    judge.note(f"{method} with that content to {missing}: {alone.status}")
    if 400 <= alone.status < 500 and alone.status not in (404, 405, 410):
        return alone.status
    return None


@checker(
    "method-not-allowed",
    ("MB-METHOD-2",),
    "Every method the batch endpoint's Allow does not list (GET without content or with Content-Length: 0, HEAD and DELETE without content or with Content-Length: 0, PATCH, PUT, TRACE, and HEAD, PUT, PATCH and DELETE with content framed by Content-Length and chunked) is answered 405 with an Allow naming POST, and OPTIONS when OPTIONS gives the capabilities document; content is refused otherwise only as the server refuses it on a resource it does not have.",
    state=State.READ_ONLY,
)
def method_not_allowed(ctx: Context, judge: Judge) -> None:
    allowed = batch_endpoint_allow(ctx, judge)
    # A server that supports GET there answers HEAD as GET (RFC 9110 §9.3.2).
    supported = {m.upper() for m in allowed} | ({"HEAD"} if "GET" in allowed else set())
    options = ctx.send(judge, ctx.raw_request("OPTIONS", ctx.batch_path))
    discovery = options.status == 200 and options.media_type == CAPABILITIES
    judge.note(f"Allow of the 405 to PUT: {allowed!r}; discovery offered: {discovery}")
    for method in sorted(supported & set(PROBED_METHODS)):
        body = b"" if method in ("PATCH", "PUT") else None
        resp = ctx.send(judge, ctx.raw_request(method, ctx.batch_path, body=body))
        # MB-METHOD-2: the Allow of a 405 lists "the methods it does support", so a method it
        # names is not itself answered 405.
        judge.expect(
            f"{method}, which the Allow names, status",
            resp.status,
            lambda s: s != 405,
            "MB-METHOD-2",
            allowed_text="anything but 405",
        )
    empty: tuple[tuple[str, str], ...] = (("Content-Length", "0"),)
    # (label, method, header fields, content, whether the content may be refused as the server
    # refuses it elsewhere)
    probes: list[tuple[str, str, tuple[tuple[str, str], ...], bytes | None, bool]] = [
        (method, method, (), b"" if method in ("PATCH", "PUT") else None, False)
        for method in PROBED_METHODS
        if method not in supported
    ]
    # RFC 9112 §6.3: a Content-Length of 0 frames no content, so these are the requests above.
    probes += [
        (f"{method}, Content-Length: 0", method, empty, b"", False)
        for method in EMPTY_LENGTH_METHODS
        if method not in supported
    ]
    probes += [
        (f"{method}, content framed by {framing}", method, head, body, True)
        for method in CONTENT_METHODS
        if method not in supported
        for framing, head, body in CONTENT_FRAMINGS
    ]
    for label, method, head, content, has_content in probes:
        refused = refused_before_routing(ctx, judge, method, head, content) if has_content else None
        resp = ctx.send(judge, ctx.raw_request(method, ctx.batch_path, head, content))
        # MB-METHOD-2: "answer a request to a batch endpoint with any method it does not
        # support there with 405 (Method Not Allowed) and an `Allow` field listing the methods
        # it does support (at least `POST`, and `OPTIONS` when it offers discovery)"; content
        # on the request changes nothing of that (MB-METHOD-3's 400 is for a GET only, and "A
        # `GET` with `Content-Length: 0` ... has no content"). A refusal the server gives the
        # same request on a resource it does not have comes before any resource is chosen.
        statuses = {405} | ({refused} if refused is not None else set())
        judge.expect(f"{label} status", resp.status, statuses, "MB-METHOD-2")
        if resp.status != 405 and resp.status == refused:
            judge.note(f"{label}: {resp.status}, as on a resource the server does not have")
            continue
        listed = {a.upper() for a in _allow(resp)}
        judge.expect_true(
            f"{label} Allow", "POST" in listed, repr(sorted(listed)), "names POST", "MB-METHOD-2"
        )
        # MB-METHOD-2: the Allow lists "the methods it does support": not the one it refused.
        judge.expect_true(
            f"{label} Allow",
            method not in listed,
            repr(sorted(listed)),
            f"does not name {method}, which it refused",
            "MB-METHOD-2",
        )
        if discovery:
            judge.expect_true(
                f"{label} Allow",
                "OPTIONS" in listed,
                repr(sorted(listed)),
                "names OPTIONS, which gives the capabilities document",
                "MB-METHOD-2",
            )


@checker(
    "unknown-method-refused",
    ("MB-METHOD-2",),
    "A method no specification defines, sent to the batch endpoint without content, with Content-Length: 0, and with content framed by Content-Length and chunked, is answered 405 with an Allow naming POST and not that method, or 501; otherwise only as the server refuses the same request on a resource it does not have.",
    state=State.READ_ONLY,
    direct_only="an intermediary may refuse a method outside its own table before the server "
    "sees it",
)
def unknown_method_refused(ctx: Context, judge: Judge) -> None:
    sent: list[tuple[str, tuple[tuple[str, str], ...], bytes | None]] = [
        ("without content", (), None),
        ("Content-Length: 0", (("Content-Length", "0"),), b""),
        *((f"content framed by {f}", head, body) for f, head, body in CONTENT_FRAMINGS),
    ]
    for how, head, content in sent:
        label = f"{UNKNOWN_METHOD}, {how}"
        # An HTTP parser that knows only the registered methods refuses the request line on
        # every resource (llhttp answers 400), content or none.
        refused = refused_before_routing(ctx, judge, UNKNOWN_METHOD, head, content)
        resp = ctx.send(judge, ctx.raw_request(UNKNOWN_METHOD, ctx.batch_path, head, content))
        # MB-METHOD-2: 405 "and an `Allow` field listing the methods it does support (at least
        # `POST` ...)"; spec 4.1: "A server may answer such a method 501, with or without an
        # `Allow` field" (RFC 9110 §15.6.2). Content changes neither: MB-METHOD-3's 400 is for
        # a GET only. A refusal the server gives the same request on a resource it does not
        # have comes before any resource is chosen.
        statuses = {405, 501} | ({refused} if refused is not None else set())
        judge.expect(f"{label}: status", resp.status, statuses, "MB-METHOD-2")
        if resp.status == 405:
            listed = {a.upper() for a in _allow(resp)}
            judge.expect_true(
                f"{label}: Allow on the 405",
                "POST" in listed and UNKNOWN_METHOD not in listed,
                repr(sorted(listed)),
                f"names POST and not {UNKNOWN_METHOD}",
                "MB-METHOD-2",
            )


@checker(
    "batch-endpoint-get-with-content",
    ("MB-METHOD-3", "MB-METHOD-2"),
    "A GET to the batch endpoint with content, framed by Content-Length or chunked, is answered 400, or 405 when the endpoint does not allow GET; one with Content-Length: 0 or 00 has none and is answered as the GET without the field.",
    profile="collection-get",
    state=State.READ_ONLY,
)
def batch_endpoint_get_content(ctx: Context, judge: Judge) -> None:
    allowed = {m.upper() for m in batch_endpoint_allow(ctx, judge)}
    # MB-METHOD-3: "answer 400 to a `GET` request ... to a batch endpoint, that has content";
    # "A server that does not allow `GET` on its batch endpoint may answer a `GET` with content
    # there 405 under MB-METHOD-2 instead of 400".
    statuses = {400} if "GET" in allowed else {400, 405}
    bare = ctx.send(judge, ctx.raw_request("GET", ctx.batch_path))
    for framing, head, body in _empty_framings(ctx, judge):
        resp = ctx.send(judge, ctx.raw_request("GET", ctx.batch_path, head, body))
        # MB-METHOD-3: "A `GET` with `Content-Length: 0` ... has no content", so it is not the
        # GET with content refused 400 but the GET without the field, answered as that is.
        judge.expect(
            f"status, {framing} and no content (as without the field)",
            resp.status,
            {bare.status},
            "MB-METHOD-3",
        )
    for framing, head, body in GET_CONTENT_FRAMINGS:
        resp = ctx.send(judge, ctx.raw_request("GET", ctx.batch_path, head, body))
        judge.expect(f"status, content framed by {framing}", resp.status, statuses, "MB-METHOD-3")
        if resp.status == 405:
            listed = {a.upper() for a in _allow(resp)}
            # MB-METHOD-2: a 405 carries "an `Allow` field listing the methods it does support
            # (at least `POST` ...)", and a 405 to GET cannot list GET among them.
            judge.expect_true(
                f"Allow of the 405, content framed by {framing}",
                "POST" in listed and "GET" not in listed,
                repr(sorted(listed)),
                "names POST and not GET",
                "MB-METHOD-2",
            )


@checker(
    "collection-get",
    ("MB-METHOD-4", "MB-STATUS-7", "MB-METHOD-6", "MB-METHOD-7", "MB-TEST-8"),
    "GET on a collection with Accept multipart/mixed gives one part per member, an ETag, Vary: Accept, and 304 on that ETag.",
    profile="collection-get",
    state=State.READ_ONLY,
)
def collection_get(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "collection"))
    resp = ctx.send(judge, ctx.raw_request("GET", coll, [("Accept", "multipart/mixed")]))
    # MB-TEST-8: a declared `collection` answers "a `GET` of that resource with `Accept:
    # multipart/mixed` as a collection retrieval"; MB-STATUS-7: "200 with the members as parts".
    judge.require("status", resp.status, {200}, "MB-STATUS-7")
    judge.require("media type", resp.media_type, {"multipart/mixed"}, "MB-METHOD-4")
    _, params = judge.media_type("Content-Type", resp.get("Content-Type"), "MB-WIRE-3")
    env = read_multipart(resp.body, params.get("boundary", ""))
    # MB-METHOD-4: "one part per member of the collection"; MB-METHOD-6: "an `Http-Status-Code`
    # field and a `Content-Id` field whose value is `"<" URI-reference ">"` naming the member".
    judge.expect("framing", [f.message for f in env.fatal], [[]], "MB-METHOD-4")
    judge_sender_findings(judge, "collection retrieval", env)
    for part in env.parts:
        status = part.get("Http-Status-Code") or ""
        cid = part.get("Content-Id") or ""
        judge.expect_true(
            f"member part {part.index}",
            len(status) == 3 and status.isdigit() and cid.startswith("<") and cid.endswith(">"),
            f"Http-Status-Code {status!r}, Content-Id {cid!r}",
            "Http-Status-Code and a Content-Id naming the member",
            "MB-METHOD-6",
        )
    _members_resolve(ctx, judge, coll, env.parts[:MEMBERS_FOLLOWED])
    # MB-METHOD-4: "with an aggregate `ETag` and a `Vary: Accept` field in the response".
    etag = resp.get("ETag")
    judge.require_true("aggregate ETag", bool(etag), repr(etag), "an ETag field", "MB-METHOD-4")
    # An aggregate `ETag` is an entity-tag (RFC 9110 §8.8.3: `[ weak ] opaque-tag`, the opaque
    # tag in double quotes), or no client can send it back in If-None-Match.
    judge.expect_true(
        "aggregate ETag syntax", is_entity_tag(etag), repr(etag), "an entity-tag", "MB-METHOD-4"
    )
    vary = [v.strip().lower() for v in ",".join(resp.get_all("Vary")).split(",")]
    judge.expect_true("Vary", "accept" in vary, repr(vary), "Vary naming Accept", "MB-METHOD-4")
    again = ctx.send(
        judge,
        ctx.raw_request(
            "GET", coll, [("Accept", "multipart/mixed"), ("If-None-Match", etag or "")]
        ),
    )
    # MB-STATUS-7: "304 (Not Modified) when a conditional request's validator matches".
    judge.expect("conditional status", again.status, {304}, "MB-STATUS-7")
    # MB-METHOD-7: "a weak validator (`W/"..."`) unless every octet of the representation,
    # boundary included, is a function of the collection's state".
    if etag and not etag.startswith("W/"):
        third = ctx.send(judge, ctx.raw_request("GET", coll, [("Accept", "multipart/mixed")]))
        judge.expect_true(
            "strong ETag means identical octets",
            third.get("ETag") != etag or third.body == resp.body,
            "same strong ETag, different octets" if third.body != resp.body else "identical",
            "a strong ETag only when the octets, boundary included, repeat",
            "MB-METHOD-7",
        )
    for accept in RETRIEVAL_ACCEPTS:
        other = ctx.send(judge, ctx.raw_request("GET", coll, [("Accept", accept)]))
        # Spec 4.2: "A `GET` is a collection retrieval when its `Accept` admits
        # `multipart/mixed`" (media types and parameter names compare case-insensitively, RFC
        # 9110 §8.3.1 and §12.5.1), and MB-METHOD-4 answers it with "one part per member".
        judge.expect(
            f"Accept: {accept}: status and media type",
            (other.status, other.media_type),
            {(200, "multipart/mixed")},
            "MB-METHOD-4",
        )
    nf = ctx.path(ctx.resource(judge, "not_found"))
    # MB-STATUS-7: "404 (Not Found) when the collection does not exist".
    missing = ctx.send(judge, ctx.raw_request("GET", nf, [("Accept", "multipart/mixed")]))
    judge.expect("missing collection status", missing.status, {404}, "MB-STATUS-7")


#: Accept values that admit multipart/mixed and nothing else: other case, a weight (the
#: smallest above zero among them: RFC 9110 §12.4.2 makes only 0 "not acceptable"), the subtype
#: wildcard, and the media range listed twice with other weights.
RETRIEVAL_ACCEPTS = (
    "Multipart/Mixed",
    "multipart/mixed;q=0.5",
    "multipart/mixed;q=0.001",
    "multipart/*",
    "multipart/mixed; Q=0.2, multipart/mixed;q=1",
)
#: An entity tag no collection carries: a list holding it and the aggregate tag still matches.
FOREIGN_TAG = '"mb-no-such-tag-5f1c"'
#: A date after any Last-Modified a collection could carry, and one before any.
FUTURE_DATE = "Fri, 31 Dec 9999 23:59:59 GMT"
PAST_DATE = "Thu, 01 Jan 1970 00:00:00 GMT"


def _conditional_cases(etag: str) -> list[tuple[str, tuple[tuple[str, str], ...], int]]:
    """(what, conditional fields, the status RFC 9110 §13 gives) for a collection tagged `etag`.

    RFC 9110 §13.1.2: If-None-Match is false when "the entity tag of the selected
    representation" matches "any of the listed tags" by the weak comparison function ("A
    recipient MUST use the weak comparison function when comparing entity tags for
    If-None-Match"), or when the value is `*` and a representation exists; §13.1.3: "A
    recipient MUST ignore If-Modified-Since if the request contains an If-None-Match header
    field". A false If-None-Match on GET or HEAD is answered 304.
    """
    opaque = etag[2:] if etag.startswith("W/") else etag
    other_form = opaque if etag.startswith("W/") else f"W/{opaque}"
    return [
        ("If-None-Match: the tag itself", (("If-None-Match", etag),), 304),
        ("If-None-Match: the tag's other strength", (("If-None-Match", other_form),), 304),
        (
            "If-None-Match: a list ending with the tag",
            (("If-None-Match", f"{FOREIGN_TAG}, {etag}"),),
            304,
        ),
        (
            "If-None-Match: a list starting with the tag",
            (("If-None-Match", f"{etag},{FOREIGN_TAG}"),),
            304,
        ),
        (
            "a list in two field lines",
            (("If-None-Match", FOREIGN_TAG), ("If-None-Match", etag)),
            304,
        ),
        ("If-None-Match: *", (("If-None-Match", "*"),), 304),
        ("If-None-Match: a foreign tag", (("If-None-Match", FOREIGN_TAG),), 200),
        ("If-None-Match: a foreign weak tag", (("If-None-Match", f"W/{FOREIGN_TAG}"),), 200),
        (
            "If-None-Match: a foreign tag, with a later If-Modified-Since",
            (("If-None-Match", FOREIGN_TAG), ("If-Modified-Since", FUTURE_DATE)),
            200,
        ),
        (
            "If-None-Match: the tag, with an earlier If-Modified-Since",
            (("If-None-Match", etag), ("If-Modified-Since", PAST_DATE)),
            304,
        ),
        ("If-Modified-Since: before any change", (("If-Modified-Since", PAST_DATE),), 200),
        # RFC 9110 §13.1.1: If-Match is true for `*` when a current representation exists, and
        # for a listed tag that matches by the strong comparison ("An origin server MUST use
        # the strong comparison function when comparing entity tags for If-Match"), so a weak
        # tag matches nothing, not even itself; when false, "the origin server MUST NOT
        # perform the requested method" and answers 412 (§15.5.13).
        ("If-Match: *", (("If-Match", "*"),), 200),
        ("If-Match: a foreign tag", (("If-Match", FOREIGN_TAG),), 412),
        ("If-Match: the tag", (("If-Match", etag),), 412 if etag.startswith("W/") else 200),
        ("If-Match: the tag's weak form", (("If-Match", f"W/{opaque}"),), 412),
        (
            "If-Match: a foreign tag, with a later If-Unmodified-Since",
            (("If-Match", FOREIGN_TAG), ("If-Unmodified-Since", FUTURE_DATE)),
            412,
        ),
    ]


def _date_cases(last_modified: str | None) -> list[tuple[str, tuple[tuple[str, str], ...], int]]:
    """(what, conditional fields, status) for If-Modified-Since against the aggregate
    `last_modified`, when the 200 carries one that is a date no later than now.

    RFC 9110 §13.1.3: If-Modified-Since is false when "the selected representation's last
    modification date is earlier or equal to the date provided in the field value", and true
    when it is later; a recipient parses all three HTTP-date forms (§5.6.7: "A recipient that
    parses a timestamp value in an HTTP field MUST accept all three HTTP-date formats").
    """
    try:
        when = parsedate_to_datetime(last_modified or "")
    except (TypeError, ValueError):
        return []
    if when.tzinfo is None or when > datetime.now(UTC):
        return []
    stamp = when.astimezone(UTC)
    earlier = stamp - timedelta(seconds=1)
    return [
        (
            "If-Modified-Since: the aggregate Last-Modified",
            (("If-Modified-Since", _imf(stamp)),),
            304,
        ),
        (
            "If-Modified-Since: the aggregate Last-Modified in RFC 850 form",
            (("If-Modified-Since", stamp.strftime("%A, %d-%b-%y %H:%M:%S GMT")),),
            304,
        ),
        (
            "If-Modified-Since: a second before the aggregate Last-Modified",
            (("If-Modified-Since", _imf(earlier)),),
            200,
        ),
        # RFC 9110 §13.1.4: If-Unmodified-Since is false, and the request answered 412, when
        # "the selected representation's last modification date is more recent than the date
        # provided"; equal to it, the condition holds. §13.2.2 step 2 evaluates it only without
        # If-Match, and `*` holds where a representation exists.
        (
            "If-Unmodified-Since: the aggregate Last-Modified",
            (("If-Unmodified-Since", _imf(stamp)),),
            200,
        ),
        (
            "If-Unmodified-Since: a second before the aggregate Last-Modified",
            (("If-Unmodified-Since", _imf(earlier)),),
            412,
        ),
        (
            "If-Match: *, with an If-Unmodified-Since a second before",
            (("If-Match", "*"), ("If-Unmodified-Since", _imf(earlier))),
            200,
        ),
    ]


def _imf(when: datetime) -> str:
    """`when` as an IMF-fixdate (RFC 9110 §5.6.7), in English whatever the locale."""
    return format_datetime(when, usegmt=True)


@checker(
    "collection-get-conditional",
    ("MB-STATUS-7",),
    "A collection retrieval on GET and HEAD is 304 exactly when If-None-Match matches the aggregate ETag by RFC 9110's weak comparison (the tag in either strength, in a list, or *), with If-Modified-Since ignored beside If-None-Match, and 412 exactly when If-Match fails the strong comparison or, without If-Match, If-Unmodified-Since is before the aggregate Last-Modified.",
    profile="collection-get",
    state=State.READ_ONLY,
)
def collection_get_conditional(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "collection"))
    accept = (("Accept", "multipart/mixed"),)
    resp = ctx.send(judge, ctx.raw_request("GET", coll, accept))
    if resp.status != 200 or not resp.get("ETag"):
        judge.setup_error(
            f"GET {coll} answered {resp.status} without an ETag; collection-get judges that"
        )
    etag = (resp.get("ETag") or "").strip(" \t")
    cases = [*_conditional_cases(etag), *_date_cases(resp.get("Last-Modified"))]
    for method in ("GET", "HEAD"):
        for what, fields, want in cases:
            got = ctx.send(judge, ctx.raw_request(method, coll, (*accept, *fields)))
            # MB-STATUS-7: "304 (Not Modified) when a conditional request's validator matches
            # the aggregate one", 200 otherwise; matching as RFC 9110 §13.1.2 and §13.1.3 say.
            # Spec 5 (b): the status "describes the collection as a whole, as for any `GET`",
            # so If-Match and If-Unmodified-Since give the 412 RFC 9110 §13.1.1 and §13.1.4 give.
            judge.expect(f"{method} with {what}", got.status, {want}, "MB-STATUS-7")
            if got.status == 304:
                # Spec 4.2: "A 304 or 204 answer to a collection retrieval carries the aggregate
                # `ETag` and `Vary: Accept` that the 200 would have carried (RFC 9110 §15.4.5
                # requires this of 304)"; MB-METHOD-4 puts both on the 200.
                vary = [v.strip().lower() for v in ",".join(got.get_all("Vary")).split(",")]
                judge.expect_true(
                    f"{method} with {what}: 304 fields",
                    got.get("ETag") == resp.get("ETag") and "accept" in vary,
                    f"ETag {got.get('ETag')!r}, Vary {vary!r}",
                    f"ETag {etag} and Vary naming Accept",
                    "MB-METHOD-4",
                )


def _members_resolve(ctx: Context, judge: Judge, coll: str, parts: Sequence[Part]) -> None:
    """Each part's Content-Id, resolved against the collection's URI, names the member: a
    GET of it alone answers the status the part carries."""
    base = f"{ctx.scheme}://{ctx.authority}{coll}"
    for part in parts:
        cid = (part.get("Content-Id") or "").strip(" \t")
        status = part.get("Http-Status-Code") or ""
        if not (cid.startswith("<") and cid.endswith(">") and status.isdigit()):
            continue
        url = urlsplit(urljoin(base, cid[1:-1]))
        if (url.scheme, url.netloc.lower()) != (ctx.scheme, ctx.authority.lower()):
            judge.note(f"member part {part.index}: {cid} resolves to another origin; not fetched")
            continue
        target = url.path + (f"?{url.query}" if url.query else "")
        alone = ctx.send(judge, ctx.raw_request("GET", target))
        # MB-METHOD-6: "a `Content-Id` field whose value is `"<" URI-reference ">"` naming the
        # member, resolvable against the collection's URI": "resolving the reference against
        # the collection's URI gives the member's URI", so a GET of that URI alone finds the
        # member the part carries (with the collection at `/books`, `<1>` would be `/1`).
        judge.expect(
            f"member part {part.index} {cid} resolved to {target}, GET alone",
            alone.status,
            {int(status)},
            "MB-METHOD-6",
        )


@checker(
    "collection-get-with-content",
    ("MB-METHOD-3", "MB-METHOD-4"),
    "A GET collection retrieval that has content, framed by Content-Length or chunked, is rejected with 400, under Accept multipart/mixed in another case or multipart/* too, with or without a conditional field that would make it 304 or 412; one with Content-Length: 0 or 00 has none and is answered 200 with the members.",
    profile="collection-get",
    state=State.READ_ONLY,
)
def collection_get_content(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "collection"))
    for framing, head, body in GET_CONTENT_FRAMINGS:
        req = ctx.raw_request("GET", coll, (("Accept", "multipart/mixed"), *head), body)
        resp = ctx.send(judge, req)
        # MB-METHOD-3: "answer 400 to a `GET` request for a collection retrieval ... that has
        # content", however the content is framed.
        judge.expect(f"status, content framed by {framing}", resp.status, {400}, "MB-METHOD-3")
    framing, head, body = GET_CONTENT_FRAMINGS[0]
    for accept in CONTENT_RETRIEVAL_ACCEPTS:
        req = ctx.raw_request("GET", coll, (("Accept", accept), *head), body)
        resp = ctx.send(judge, req)
        # MB-METHOD-3: the GET is "for a collection retrieval" whichever spelling of Accept
        # makes it one (spec 4.2), so its content is refused as under `multipart/mixed`.
        judge.expect(
            f"status, Accept: {accept} and content framed by {framing}",
            resp.status,
            {400},
            "MB-METHOD-3",
        )
    # RFC 9110 §13.2.1: preconditions are evaluated only where the server would otherwise
    # answer 2xx or 412; a GET that MB-METHOD-3 answers 400 never gets there, so no conditional
    # field turns its 400 into a 304 or a 412, whatever the collection's validators.
    tag = ctx.alone(judge, SubRequest("GET", coll, (("Accept", "multipart/mixed"),))).get("ETag")
    conditions = [("If-None-Match", "*"), *CONTENT_PRECONDITIONS]
    if tag:
        conditions.insert(1, ("If-None-Match", tag))
    for name, value in conditions:
        for framing, head, body in GET_CONTENT_FRAMINGS:
            fields = (("Accept", "multipart/mixed"), (name, value), *head)
            resp = ctx.send(judge, ctx.raw_request("GET", coll, fields, body))
            judge.expect(
                f"status, {name}: {value} and content framed by {framing}",
                resp.status,
                {400},
                "MB-METHOD-3",
            )
    for framing, head, body in _empty_framings(ctx, judge):
        req = ctx.raw_request("GET", coll, (("Accept", "multipart/mixed"), *head), body)
        resp = ctx.send(judge, req)
        # MB-METHOD-3: "A `GET` with `Content-Length: 0` ... has no content: it is a collection
        # retrieval like one without the field", which MB-STATUS-7 answers "200 with the
        # members as parts" and MB-METHOD-4 "with one part per member".
        judge.expect(f"status, {framing} and no content", resp.status, {200}, "MB-METHOD-4")
        if resp.status == 200:
            judge.expect(
                f"media type, {framing} and no content",
                resp.media_type,
                {"multipart/mixed"},
                "MB-METHOD-4",
            )


@checker(
    "collection-get-empty",
    ("MB-STATUS-11", "MB-TEST-8"),
    "GET collection retrieval of an existing collection with no members answers 204 with no content, the aggregate ETag and Vary: Accept, and 304 to If-None-Match with that ETag.",
    profile="collection-get",
    state=State.READ_ONLY,
)
def collection_get_empty(ctx: Context, judge: Judge) -> None:
    # The suite never empties a collection itself (the sandbox contract lets it delete only
    # what it created), so the target must declare one that is empty.
    coll = ctx.path(ctx.resource(judge, "empty_collection"))
    resp = ctx.send(judge, ctx.raw_request("GET", coll, [("Accept", "multipart/mixed")]))
    # MB-TEST-8: "for `empty_collection`, with 204"; MB-STATUS-11: "204 (No Content)".
    judge.expect("status", resp.status, {204}, "MB-STATUS-11")
    judge.expect("content length", len(resp.body), {0}, "MB-STATUS-11")
    if resp.status != 204:
        return
    # Spec 4.2: "A 304 or 204 answer to a collection retrieval carries the aggregate `ETag` and
    # `Vary: Accept` that the 200 would have carried"; MB-METHOD-4 puts both on every
    # successful retrieval, and 5.2: "A 204 response still carries the aggregate `ETag`".
    etag = (resp.get("ETag") or "").strip(" \t")
    vary = [v.strip().lower() for v in ",".join(resp.get_all("Vary")).split(",")]
    judge.expect_true("204 ETag", bool(etag), repr(etag), "an aggregate ETag", "MB-METHOD-4")
    judge.expect_true("204 Vary", "accept" in vary, repr(vary), "Vary naming Accept", "MB-METHOD-4")
    if etag:
        again = ctx.send(
            judge,
            ctx.raw_request("GET", coll, [("Accept", "multipart/mixed"), ("If-None-Match", etag)]),
        )
        # MB-STATUS-7: "304 (Not Modified) when a conditional request's validator matches the
        # aggregate one", an empty collection's as much as any other's.
        judge.expect("status with If-None-Match: its ETag", again.status, {304}, "MB-STATUS-7")
