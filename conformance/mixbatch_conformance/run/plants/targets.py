"""Planted violations of a part's target (spec 3.2.2, 8.3, 8.4: MB-PART-5, MB-PART-6,
MB-SUB-2, MB-SUB-4, MB-SUB-8).

A target plant resolves a Content-Id reference the wrong way (the endpoint taken as a
directory, dot segments kept, the query dropped or taken from the batch URI, case or
percent-escapes changed), or accepts a target it must refuse: another scheme, authority or
port, a fragment, a batch endpoint in any spelling, the asterisk. A routing spelling trimmed
(MB-SUB-1), a relative reference refused when a colon comes before its first slash (MB-PART-4),
and a collection member's Content-Id that does not resolve to the member
(MB-METHOD-6) are planted here too.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from mixbatch_conformance.run.mutations import Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    Part,
    accepts,
    body_has,
    boundary_of,
    field_of,
    is_batch,
    map_parts,
    parts_of,
    refuses,
    set_field,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

_ABSOLUTE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:|^/")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*\Z")


def _retarget(rewrite: Callable[[str, str], str | None]) -> Callable[[RelayRequest], None]:
    """Change what each part targets (`rewrite(reference, batch path)`, None: unchanged) and
    remember the original reference so that the answer still echoes it."""

    def edit(req: RelayRequest) -> None:
        b = boundary_of(req)
        parts = parts_of(req.body, b) if b and is_batch(req) else None
        if parts is None or b is None:
            return
        out: list[Part] = []
        for fields, body in parts:
            cid = field_of(fields, "Content-Id") or ""
            new = rewrite(cid.strip()[1:-1], req.target.partition("?")[0])
            if new is not None:
                fields = set_field(fields, "Content-Id", f"<{new}>")
                fields = [*fields, ("X-Plant-Original-Content-Id", cid)]
            out.append((fields, body))
        req.body = write_parts(out, b)

    return edit


def _restore(req: RelayRequest, resp: RelayResponse) -> None:
    """Put back the Content-Id each part was sent with (the plant changed the target only)."""
    b, rb = boundary_of(req), boundary_of(resp)
    sent = parts_of(req.body, b) if b else None
    got = parts_of(resp.body, rb) if rb else None
    if not sent or not got or rb is None:
        return
    out = []
    for i, (fields, body) in enumerate(got):
        original = field_of(sent[i][0], "X-Plant-Original-Content-Id") if i < len(sent) else None
        out.append((set_field(fields, "Content-Id", original) if original else fields, body))
    resp.body = write_parts(out, rb)


def _endpoint_as_directory(ref: str, batch: str) -> str | None:
    return None if _ABSOLUTE.match(ref) or not ref else f"{batch}/{ref}"


def _dots_kept(ref: str, batch: str) -> str | None:
    return "/plant-unresolved" + ref if re.search(r"(^|/)\.\.?(/|$)", ref) else None


def _case_folded(ref: str, batch: str) -> str | None:
    return ref.lower() if ref != ref.lower() else None


def _percent_decoded(ref: str, batch: str) -> str | None:
    from urllib.parse import unquote

    return unquote(ref) if "%" in ref else None


def _query_dropped(ref: str, batch: str) -> str | None:
    return ref.partition("?")[0] if "?" in ref else None


def _bare_member_ids(parts: list[Part]) -> list[Part]:
    """A collection whose member parts name each member by its last path segment alone
    (`</books/1>` becomes `<1>`), which resolves against the collection's URI to `/1`."""
    out = []
    for f, b in parts:
        cid = field_of(f, "Content-Id")
        if cid and cid.startswith("<") and "/" in cid:
            f = set_field(f, "Content-Id", "<" + cid.rstrip(">").rsplit("/", 1)[1] + ">")
        out.append((f, b))
    return out


def _upper_escapes(ref: str, batch: str) -> str | None:
    """Percent-encodings' hex digits upper-cased (RFC 3986 §6.2.2.1's normal form)."""
    up = re.sub(r"%[0-9A-Fa-f]{2}", lambda m: m.group(0).upper(), ref)
    return up if up != ref else None


def _trailing_slash_trimmed(ref: str, batch: str) -> str | None:
    path, sep, query = ref.partition("?")
    if len(path) > 1 and path.endswith("/") and not path.endswith("//"):
        return path[:-1] + sep + query
    return None


def _base_query_kept(req: RelayRequest) -> None:
    """Give a relative-path reference without a query the batch URI's query, as if RFC 3986
    §5.2.2 took the base's query whenever the reference has none."""
    query = req.target.partition("?")[2]
    if query:
        _retarget(
            lambda ref, batch: (
                f"{ref}?{query}" if ref and not _ABSOLUTE.match(ref) and "?" not in ref else None
            )
        )(req)


def _colon_before_slash(req: RelayRequest) -> bool:
    """A Content-Id reader that takes a colon before the first `/` for a scheme's end, so a
    relative reference with a colon in its query (`<name?at=10:30>`) is no URI reference."""
    b = boundary_of(req)
    parts = parts_of(req.body, b) if b and is_batch(req) else None
    for f, _ in parts or []:
        ref = (field_of(f, "Content-Id") or "").strip().removeprefix("<").removesuffix(">")
        colon, slash = ref.find(":"), ref.find("/")
        if colon > 0 and (slash < 0 or colon < slash) and not _SCHEME.match(ref[:colon]):
            return True
    return False


def _host_differs_in_case(req: RelayRequest) -> bool:
    """An absolute part target whose host is the batch's Host name in other case: a server
    comparing hosts octet for octet takes it for another origin."""
    host = (req.get("Host") or "").rsplit(":", 1)[0]
    if not is_batch(req) or not host:
        return False
    named = re.findall(rb"(?i)content-id: <https?://([^/:>]*)", req.body)
    return any(
        h.decode("latin-1") != host and h.decode("latin-1").lower() == host.lower() for h in named
    )


P = Mutation
PLANTS: tuple[Mutation, ...] = (
    # MB-PART-5: references resolve against the batch's target URI (RFC 3986 5.2).
    P(
        "endpoint-taken-as-directory",
        "MB-PART-5 base",
        ("content-id-forms-echoed",),
        on_request=_retarget(_endpoint_as_directory),
        on_response=_restore,
    ),
    P(
        "dot-segments-not-removed",
        "MB-PART-5 dot segments",
        ("content-id-forms-echoed",),
        on_request=_retarget(_dots_kept),
        on_response=_restore,
    ),
    P(
        "query-dropped-from-target",
        "MB-PART-5 query",
        ("target-forms-reach-resource",),
        on_request=_retarget(_query_dropped),
        on_response=_restore,
    ),
    # MB-PART-4: a valid reference is never refused for how it is written.
    P(
        "colon-before-slash-read-as-scheme",
        "MB-PART-4 a relative reference with a colon before any slash refused as no reference",
        ("scheme-lookalikes-run",),
        on_response=refuses(_colon_before_slash, 400, "MB-PART-4"),
    ),
    # MB-PART-6: no comment removal, no case change, no unfolding of Content-Id.
    P(
        "content-id-comment-stripped",
        "MB-PART-6 comment",
        ("vector-content-id-with-comment",),
        on_response=accepts(body_has(rb"\(second book\)")),
    ),
    P(
        "content-id-case-folded",
        "MB-PART-6 case",
        ("target-forms-reach-resource",),
        on_request=_retarget(_case_folded),
        on_response=_restore,
    ),
    P(
        "content-id-percent-decoded",
        "MB-PART-6 percent-encoding",
        ("target-forms-reach-resource",),
        on_request=_retarget(_percent_decoded),
        on_response=_restore,
    ),
    # MB-SUB-2: another scheme or authority, a network-path reference or a fragment is 400.
    P(
        "other-scheme-accepted",
        "MB-SUB-2 scheme",
        ("reject-target-other-scheme",),
        on_response=accepts(body_has(rb"Content-Id: <https://")),
    ),
    P(
        "other-authority-accepted",
        "MB-SUB-2 authority",
        ("reject-target-other-authority",),
        on_response=accepts(body_has(rb"Content-Id: <http://elsewhere")),
    ),
    P(
        "network-path-accepted",
        "MB-SUB-2 network-path",
        ("reject-target-network-path",),
        on_response=accepts(body_has(rb"Content-Id: <//")),
    ),
    P(
        "own-authority-network-path-accepted",
        "MB-SUB-2 network-path on the batch's own authority",
        (
            "reject-target-network-path-own-authority",
            "reject-target-network-path-own-host-and-port",
            "reject-target-network-path-own-host-upper-case",
            "reject-target-network-path-own-userinfo",
            "reject-target-network-path-own-host-no-port",
            "reject-target-network-path-own-port-leading-zero",
            "reject-target-network-path-own-host-empty-port",
        ),
        on_response=accepts(body_has(rb"Content-Id: <//[^/>]+/")),
    ),
    P(
        "empty-authority-network-path-accepted",
        "MB-SUB-2 network-path with an empty authority",
        ("reject-target-network-path-empty-host",),
        on_response=accepts(body_has(rb"Content-Id: <///")),
    ),
    P(
        "fragment-accepted",
        "MB-SUB-2 fragment",
        ("reject-target-fragment",),
        on_response=accepts(body_has(rb"Content-Id: <[^>]*#")),
    ),
    # MB-SUB-4: a part that targets a batch endpoint, in any spelling, is 400.
    P(
        "nested-batch-accepted",
        "MB-SUB-4 plain",
        ("reject-nested-batch",),
        on_response=accepts(body_has(rb"boundary=inner")),
    ),
    P(
        "nested-batch-by-query-accepted",
        "MB-SUB-4 query",
        ("vector-nested-batch-query",),
        on_response=accepts(body_has(rb"Content-Id: <[^>]*batch\?")),
    ),
    P(
        "nested-batch-by-dots-accepted",
        "MB-SUB-4 dot segments",
        ("vector-nested-batch-dot-segments",),
        on_response=accepts(body_has(rb"Content-Id: <[^>]*\.\./batch")),
    ),
    P(
        "nested-batch-percent-encoded-accepted",
        "MB-SUB-4 percent-encoding",
        ("vector-nested-batch-percent-encoded",),
        on_response=accepts(body_has(rb"%62atch")),
    ),
    P(
        "nested-batch-absolute-uri-accepted",
        "MB-SUB-4 absolute URI",
        ("vector-nested-batch-absolute-uri",),
        on_response=accepts(body_has(rb"(?i)Content-Id: <http://[^>]*/batch>")),
    ),
    P(
        "empty-reference-accepted",
        "MB-SUB-4 empty reference",
        ("vector-empty-content-id-targets-batch",),
        on_response=accepts(body_has(rb"Content-Id: <>")),
    ),
    # MB-SUB-8: <*> is 400.
    P(
        "asterisk-target-accepted",
        "MB-SUB-8",
        ("reject-target-asterisk",),
        on_response=accepts(body_has(rb"Content-Id: <\*>")),
    ),
    # MB-SUB-2: the port is part of the authority.
    P(
        "other-port-accepted",
        "MB-SUB-2 port",
        ("reject-target-other-port",),
        on_response=accepts(body_has(rb"Content-Id: <https?://[^/>]*:[0-9]+/")),
    ),
    # MB-PART-4: a port is *DIGIT (RFC 3986 §3.2.3); a parser that reads it as an integer takes
    # a sign, and one that reads the leading digits takes what follows them.
    P(
        "port-read-as-integer",
        "MB-PART-4 a signed port read as the number it spells",
        ("reject-target-port-plus-sign", "reject-target-port-minus-sign"),
        on_response=accepts(body_has(rb"Content-Id: <https?://[^/>]*:[+-][0-9]+/")),
    ),
    P(
        "port-read-by-leading-digits",
        "MB-PART-4 a port read up to its first non-digit",
        ("reject-target-port-letter-after", "reject-target-port-underscore"),
        on_response=accepts(body_has(rb"Content-Id: <https?://[^/>]*:[0-9]+[A-Za-z_][0-9]*/")),
    ),
    # MB-SUB-2: userinfo makes another authority; a trailing dot or an empty host is not the
    # batch's host; a port compares as a number, and an empty one is the default.
    P(
        "userinfo-stripped",
        "MB-SUB-2 userinfo",
        (
            "reject-target-userinfo-with-password",
            "reject-target-userinfo",
            "reject-target-empty-userinfo",
        ),
        on_response=accepts(body_has(rb"Content-Id: <https?://[^/>]*@")),
    ),
    P(
        "trailing-dot-host-accepted",
        "MB-SUB-2 trailing dot",
        ("reject-target-host-trailing-dot",),
        on_response=accepts(body_has(rb"Content-Id: <https?://[^/>@]*\.(?::[0-9]*)?/")),
    ),
    P(
        "empty-host-accepted",
        "MB-SUB-2 empty host",
        ("reject-target-empty-host",),
        on_response=accepts(body_has(rb"Content-Id: <https?:///")),
    ),
    P(
        "port-compared-as-text",
        "MB-SUB-2 leading zero",
        ("accept-target-port-leading-zero",),
        on_response=refuses(body_has(rb"Content-Id: <https?://[^/>]*:0[0-9]+/"), 400, "MB-SUB-2"),
    ),
    P(
        "loopback-name-taken-as-own",
        "MB-SUB-2 host name for its address",
        ("reject-target-host-alias",),
        on_response=accepts(body_has(rb"Content-Id: <https?://localhost[:/]")),
    ),
    P(
        "target-host-case-sensitive",
        "MB-SUB-2 host case against a Host name",
        ("same-origin-host-in-any-case",),
        on_response=refuses(_host_differs_in_case, 400, "MB-SUB-2"),
    ),
    P(
        "target-scheme-case-sensitive",
        "MB-SUB-2 scheme case",
        ("accept-target-scheme-upper-case", "accept-target-scheme-mixed-case"),
        on_response=refuses(body_has(rb"Content-Id: <(?!https?:)[A-Za-z]+://"), 400, "MB-SUB-2"),
    ),
    P(
        "absent-port-matches-any",
        "MB-SUB-2 absent port",
        ("target-absent-port-is-default",),
        on_response=accepts(body_has(rb"Content-Id: <https?://[^/:>@]+/")),
    ),
    P(
        "empty-port-taken-as-own",
        "MB-SUB-2 empty port",
        ("target-empty-port-is-default",),
        on_response=accepts(body_has(rb"Content-Id: <https?://[^/>]*:/")),
    ),
    # MB-METHOD-6: a member's Content-Id resolves against the collection's URI to the member.
    P(
        "member-content-id-bare",
        "MB-METHOD-6 resolution",
        ("collection-get",),
        on_response=map_parts(
            _bare_member_ids,
            lambda r: r.method == "GET" and "multipart/mixed" in (r.get("Accept") or ""),
        ),
    ),
    # MB-SUB-2: a fragment is 400, an empty one and one on an absolute URI included.
    P(
        "empty-fragment-accepted",
        "MB-SUB-2 empty fragment",
        ("reject-target-empty-fragment",),
        on_response=accepts(body_has(rb"Content-Id: <[^>]*#>")),
    ),
    P(
        "absolute-target-fragment-accepted",
        "MB-SUB-2 fragment on an absolute URI",
        ("reject-target-absolute-fragment",),
        on_response=accepts(body_has(rb"Content-Id: <https?://[^>]*#")),
    ),
    # MB-SUB-2 on the 207 path and in chunked content: the same validation whatever Accept asks
    # for and however the content is framed.
    P(
        "multistatus-path-skips-target-check",
        "MB-SUB-2 other authority under a 207 Accept",
        ("envelope-faults-refused-in-every-form",),
        on_response=accepts(
            lambda r: (
                any(f in (r.get("Accept") or "") for f in ("xml", "json"))
                and b"Content-Id: <http://elsewhere" in r.body
            )
        ),
    ),
    P(
        "chunked-path-skips-target-check",
        "MB-SUB-2 other authority in chunked content",
        ("envelope-faults-refused-in-every-form",),
        on_response=accepts(
            lambda r: (
                "chunked" in (r.get("Transfer-Encoding") or "").lower()
                and b"Content-Id: <http://elsewhere" in r.body
            )
        ),
    ),
    # MB-SUB-8 and MB-SUB-4: refused whatever the part's method and the target's spelling.
    P(
        "asterisk-refused-for-options-only",
        "MB-SUB-8 asterisk with another method",
        ("reject-target-asterisk-get",),
        on_response=accepts(body_has(rb"Http-Method: GET\r\nContent-Id: <\*>")),
    ),
    P(
        "nested-batch-refused-for-post-only",
        "MB-SUB-4 nested batch by GET",
        ("reject-nested-batch-get",),
        on_response=accepts(body_has(rb"Http-Method: GET\r\nContent-Id: <[^>]*/batch>")),
    ),
    P(
        "nested-batch-scheme-case-sensitive",
        "MB-SUB-4 absolute URI in upper case",
        ("reject-nested-batch-upper-case-scheme",),
        on_response=accepts(body_has(rb"Content-Id: <HTTPS?://")),
    ),
    # The sub-request targets exactly what the part says (spec 3.2.2, 3.2.4).
    P(
        "relative-target-takes-batch-query",
        "MB-PART-5 base query",
        ("target-against-batch-query",),
        on_request=_base_query_kept,
        on_response=_restore,
    ),
    P(
        "percent-escapes-upper-cased",
        "MB-PART-6 escape case",
        ("target-forms-reach-resource",),
        on_request=_retarget(_upper_escapes),
        on_response=_restore,
    ),
    P(
        "part-trailing-slash-trimmed",
        "MB-SUB-1 routing spelling",
        ("target-spellings-routed-as-alone",),
        on_request=_retarget(_trailing_slash_trimmed),
        on_response=_restore,
    ),
)
