"""A collection retrieval is the same representation whatever request fields ask for it (spec
4.2, MB-METHOD-7, MB-METHOD-6).

Theory of operation: MB-METHOD-7 makes the aggregate `ETag` of a collection retrieval weak
"unless every octet of the representation, boundary included, is a function of the collection's
state". The request is not the collection's state: a server that writes something of the
request into the representation (the Host it was asked by, in an absolute `Content-Id` or a
boundary hashed from the request URI, the version of the request line, the Accept that chose
it) while its tag stays strong promises the same octets for different ones.

The check retrieves each declared collection (`collection`, `empty_collection` and the sandbox,
which it only reads) with `Accept: multipart/mixed`, and then with one request variant each:
the Host spelled as the server may take as its own (another case, the default port written or
left out, `localhost` for a loopback address), the request-target in absolute-form, HTTP/1.0,
other Accept values that admit `multipart/mixed` (`multipart/*`, `*/*`, with weights),
`Accept-Encoding: gzip`, an `Authorization` and a `Cookie` the target does not use,
`Cache-Control: no-cache` and an `If-None-Match` naming no tag of it. A variant the server does
not answer as a retrieval (another status, another representation) says only that the server
does not take it as its own, and is noted. Whenever two retrievals carry the same strong tag,
their content, after any content coding is removed (spec 10.1: what must survive is "the
content's octet sequence after any transfer coding and content coding are removed"), must be
the same octets. A tag that differs (another client wrote between two requests) promises
nothing and is never a fault.

Each retrieval under the plain retrieval's tag must also name the same members in the same
order: each part's `Content-Id`, resolved against the URI that request named (its Host, or its
absolute-form), gives the member's URI on that origin (MB-METHOD-6: "resolvable against the
collection's URI"), whatever form of reference the server writes. When the variant's authority
is not RFC 3986-equivalent to the plain request's (`localhost` for `127.0.0.1`), the two name
different URIs for the collection, and a server may write absolute Content-Ids on either: only
the members' paths, each resolved against its own request's URI, are compared then. Those
variants still count for MB-METHOD-7, whose strong tag promises the same octets whatever Host
asked.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

from mixbatch_conformance.checks._shared.collections import declared_collections
from mixbatch_conformance.checks._shared.host_names import LOOPBACK_NAMES, case_spellings
from mixbatch_conformance.checks._shared.versions import with_version
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.validator import parse_media_type, read_multipart
from mixbatch_conformance.transport.http import Response
from mixbatch_conformance.transport.urls import DEFAULT_PORTS

__all__: list[str] = []

RETRIEVAL = "multipart/mixed"
#: Accept values that admit multipart/mixed besides the plain one (spec 4.2).
OTHER_ACCEPTS = ("multipart/*", "*/*", "multipart/mixed;q=0.5", "multipart/mixed, */*;q=0.1")
#: Fields a request may carry that the representation of a collection does not depend on.
QUIET_FIELDS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("Cache-Control: no-cache", (("Cache-Control", "no-cache"), ("Pragma", "no-cache"))),
    ("If-None-Match naming no tag", (("If-None-Match", '"mb-suite-no-such-tag"'),)),
)
#: Credentials no target takes as its own: sent only where the target declares none by the name.
STRANGER_FIELDS = (
    ("Authorization", "Bearer mb-suite-unused-credential"),
    ("Cookie", "mb_suite=unused"),
)


@dataclass(frozen=True)
class Answer:
    """A retrieval: what asked for it, the origin it named, and what came back."""

    label: str
    origin: str
    resp: Response


def _origin(scheme: str, authority: str) -> str:
    """`scheme://authority` lower-cased, with the scheme's default port left out."""
    host, _, port = authority.lower().rpartition(":")
    if not host or "]" in port:
        host, port = authority.lower(), ""
    if port == str(DEFAULT_PORTS[scheme]) or port == "":
        return f"{scheme}://{host}"
    return f"{scheme}://{host}:{port}"


def _authorities(ctx: Context) -> list[str]:
    """The target's authority spelt the other ways that name it: another case, the default
    port written or left out, the loopback name of a loopback address."""
    default = ctx.port == DEFAULT_PORTS[ctx.scheme]
    hosts = [ctx.host]
    if any(c.isalpha() for c in ctx.host.strip("[]")):
        hosts += [h for h in case_spellings(ctx.host) if h != ctx.host]
    name = LOOPBACK_NAMES.get(ctx.host)
    if name is not None:
        hosts += case_spellings(name)
    out: list[str] = []
    for host in hosts:
        out.append(host if default else f"{host}:{ctx.port}")
        if default:
            out.append(f"{host}:{ctx.port}")
    return [a for a in dict.fromkeys(out) if a != ctx.authority]


def _requests(ctx: Context, coll: str) -> list[tuple[str, str, bytes]]:
    """(label, origin named, request) for each variant, the plain retrieval first."""
    accept = [("Accept", RETRIEVAL)]
    own = _origin(ctx.scheme, ctx.authority)
    out = [("Accept: multipart/mixed", own, ctx.raw_request("GET", coll, accept))]
    for authority in _authorities(ctx):
        out.append(
            (
                f"Host: {authority}",
                _origin(ctx.scheme, authority),
                ctx.raw_request("GET", coll, accept, authority=authority),
            )
        )
    absolute = f"{ctx.scheme}://{ctx.authority}{coll}"
    out.append(("absolute-form", own, ctx.raw_request("GET", absolute, accept)))
    out.append(("HTTP/1.0", own, with_version(ctx.raw_request("GET", coll, accept), "1.0")))
    for value in OTHER_ACCEPTS:
        out.append((f"Accept: {value}", own, ctx.raw_request("GET", coll, [("Accept", value)])))
    out.append(
        (
            "Accept-Encoding: gzip",
            own,
            ctx.raw_request("GET", coll, [*accept, ("Accept-Encoding", "gzip")]),
        )
    )
    declared = {n.lower() for n, _ in ctx.target.credentials}
    strangers = [(n, v) for n, v in STRANGER_FIELDS if n.lower() not in declared]
    if strangers:
        names = " and ".join(n for n, _ in strangers)
        out.append((f"{names} not used", own, ctx.raw_request("GET", coll, [*accept, *strangers])))
    for label, fields in QUIET_FIELDS:
        out.append((label, own, ctx.raw_request("GET", coll, [*accept, *fields])))
    return out


def _retrieval(resp: Response) -> bool:
    return resp.status == 204 or (resp.status == 200 and resp.media_type == RETRIEVAL)


def _strong(resp: Response) -> str | None:
    etag = (resp.get("ETag") or "").strip(" \t")
    return etag if _retrieval(resp) and etag and not etag.startswith("W/") else None


def _decoded(resp: Response) -> bytes | None:
    """The content without its content codings, which the client removes as it reads a
    response (None for a coding it cannot undo)."""
    return None if resp.codings_left else resp.body


#: A member a part's Content-Id names: the origin of its resolved URI ("" when that is the
#: origin the request named, or no http(s) URI) and its path with any query.
Member = tuple[str, str]


def _members(answer: Answer, coll: str, body: bytes) -> list[Member] | None:
    """The members the parts' Content-Ids name, resolved against the collection's URI on the
    origin the request named; None when the content is no readable multipart."""
    if answer.resp.status == 204:
        return []
    try:
        _, params = parse_media_type(answer.resp.get("Content-Type") or "")
    except ValueError:
        return None
    env = read_multipart(body, params.get("boundary", ""))
    if env.fatal:
        return None
    base = answer.origin + coll
    out: list[Member] = []
    for part in env.parts:
        cid = (part.get("Content-Id") or "").strip(" \t")
        ref = urlsplit(urljoin(base, cid[1:-1] if cid.startswith("<") else cid))
        origin = _origin(ref.scheme.lower(), ref.netloc) if ref.scheme in DEFAULT_PORTS else ""
        path = ref.path + (f"?{ref.query}" if ref.query else "")
        out.append(("" if origin == answer.origin else origin, path))
    return out


def _shown(members: list[Member], paths_only: bool) -> list[str]:
    """The members as compared: their paths alone, or with the origin of any that lies on
    another origin than the request named."""
    return [path if paths_only else origin + path for origin, path in members]


def _first_difference(a: bytes, b: bytes) -> int:
    return next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )


def _judge_collection(ctx: Context, judge: Judge, coll: str) -> None:
    answers: list[Answer] = []
    for label, origin, request in _requests(ctx, coll):
        resp = ctx.send(judge, request)
        if not _retrieval(resp):
            judge.note(f"GET {coll}, {label}: {resp.status} {resp.media_type!r}, not compared")
            continue
        answers.append(Answer(label, origin, resp))
    if not answers or answers[0].label != "Accept: multipart/mixed":
        judge.note(f"GET {coll} with Accept: multipart/mixed is no collection retrieval")
        return
    plain = answers[0]
    plain_body = _decoded(plain.resp)
    plain_members = None if plain_body is None else _members(plain, coll, plain_body)
    plain_tag = (plain.resp.get("ETag") or "").strip(" \t")
    for other in answers[1:]:
        body = _decoded(other.resp)
        if body is None or plain_body is None:
            judge.note(f"GET {coll}, {other.label}: a content coding the suite cannot remove")
            continue
        tag = _strong(other.resp)
        same_tag = tag is not None and tag == _strong(plain.resp)
        same = body == plain_body
        # MB-METHOD-7: "a weak validator (`W/"..."`) unless every octet of the representation,
        # boundary included, is a function of the collection's state": the request that asked
        # for it is not the collection's state.
        judge.expect_true(
            f"GET {coll}, {other.label} and Accept: multipart/mixed, under the strong tags "
            f"{tag} and {_strong(plain.resp)}",
            not same_tag or same,
            "the same octets"
            if same
            else f"different octets from offset {_first_difference(plain_body, body)}"
            if same_tag
            else "a different tag: nothing promised",
            "the same octets whenever the strong tag is the same, boundary included",
            "MB-METHOD-7",
        )
        if (other.resp.get("ETag") or "").strip(" \t") != plain_tag or plain_members is None:
            continue
        members = _members(other, coll, body)
        # A variant whose authority is not RFC 3986-equivalent to the plain request's (a
        # loopback name for a loopback address) names another URI for the collection: a server
        # may write absolute Content-Ids on the authority it was asked by, or on its own, and
        # either resolves against the collection. Only the members' paths, each resolved
        # against its own request's URI, are compared then; MB-METHOD-7 above judges octets
        # that follow the Host under one strong tag.
        paths_only = other.origin != plain.origin
        want = _shown(plain_members, paths_only)
        # MB-METHOD-6: a "`Content-Id` field whose value is `"<" URI-reference ">"` naming the
        # member, resolvable against the collection's URI": the URI this request named.
        judge.expect(
            f"GET {coll}, {other.label}: the members its Content-Ids name against "
            f"{other.origin}{coll}" + (" (paths compared)" if paths_only else ""),
            None if members is None else _shown(members, paths_only),
            [want],
            "MB-METHOD-6",
            allowed_text=f"the members of the plain retrieval, in order: {want}",
        )


@checker(
    "collection-retrieval-same-under-request-variants",
    ("MB-METHOD-7", "MB-METHOD-6"),
    "Retrievals of each declared collection asked with another Host spelling, in absolute-form, over HTTP/1.0, with other Accept values, gzip, unused credentials or no-cache carry the same octets as the plain one wherever the strong aggregate ETag is the same, and their Content-Ids name the same members.",
    profile="collection-get",
    state=State.READ_ONLY,
)
def retrieval_same_under_request_variants(ctx: Context, judge: Judge) -> None:
    for coll in declared_collections(ctx, judge):
        _judge_collection(ctx, judge, coll)
