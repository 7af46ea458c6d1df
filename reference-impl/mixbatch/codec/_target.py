"""Sub-request targets: the ``Content-Id`` syntax and its resolution to an origin-form target.

MB-PART-3: each request part names its target as ``Content-Id: <URI-reference>``.
MB-PART-5: the reference is resolved against the batch request's target URI by RFC 3986 §5.2.
MB-SUB-2: the result must stay on the batch's origin, so a reference with a different scheme or
authority, a network-path reference (``//host/...``) and a fragment are all refused.

The grammar accepted inside the angle brackets is RFC 3986's URI-reference character set:
unreserved, reserved and percent-encoded octets. The split uses the regular expression of
RFC 3986 Appendix B; the merge and dot-segment removal follow §5.2.2-§5.2.4 literally.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from ._errors import RemoteProtocolError
from ._events import RequestPartStart

__all__ = [
    "DEFAULT_PORTS",
    "RESOLVED_CACHE_MAX_CHARS",
    "RESOLVED_CACHE_SIZE",
    "is_uri_reference",
    "normalize_authority",
    "remove_dot_segments",
    "resolve_part_target",
    "resolve_target",
]

_URI_REFERENCE = re.compile(r"(?:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})+")
# RFC 3986 Appendix B.
_SPLIT = re.compile(r"^(?:([^:/?#]+):)?(?://([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+\-.]*")
#: The first character that ends a scheme or the first path segment (RFC 3986 §3, §4.2).
_FIRST_DELIMITER = re.compile(r"[:/?#]")


#: RFC 3986 §3.2.2: "[" and "]" appear only around an IP-literal host (spec 3.2.2, MB-PART-4).
_BRACKETS_PLACED = re.compile(
    r"(?:[A-Za-z][A-Za-z0-9+\-.]*:)?//(?:[^/?#\[\]@]*@)?\[[^/?#\[\]@]+\](?::[0-9]*)?"
    r"(?:[/?#][^\[\]]*)?"
)


def is_uri_reference(text: str) -> bool:
    """True if ``text`` is a non-empty RFC 3986 URI-reference (character set and % escapes).

    Beside the character set, three structural rules of the grammar (spec 3.2.2, MB-PART-4):
    "[" and "]" only around an IP-literal host; a ":" before the first "/", "?" or "#" ends a
    scheme, which is ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), since a relative reference's
    first segment holds no colon (path-noscheme); and one "#" at most, since a fragment holds
    none. Resolution (``resolve_target``) judges the components."""
    if _URI_REFERENCE.fullmatch(text) is None or text.count("#") > 1:
        return False
    head = _FIRST_DELIMITER.search(text)
    if head is not None and head[0] == ":" and _SCHEME.fullmatch(text[: head.start()]) is None:
        return False
    return ("[" not in text and "]" not in text) or _BRACKETS_PLACED.fullmatch(text) is not None


def remove_dot_segments(path: str) -> str:
    """RFC 3986 §5.2.4."""
    if "/." not in path and not path.startswith("."):
        # No segment is "." or "..": the algorithm below would copy the path unchanged, and
        # almost every target is like that, so the segment-by-segment loop is skipped.
        return path
    output: list[str] = []
    inp = path
    while inp:
        if inp.startswith("../"):
            inp = inp[3:]
        elif inp.startswith("./") or inp.startswith("/./"):
            inp = inp[2:]
        elif inp == "/.":
            inp = "/"
        elif inp.startswith("/../"):
            inp = inp[3:]
            if output:
                output.pop()
        elif inp == "/..":
            inp = "/"
            if output:
                output.pop()
        elif inp in (".", ".."):
            inp = ""
        else:
            start = 1 if inp.startswith("/") else 0
            cut = inp.find("/", start)
            if cut == -1:
                cut = len(inp)
            output.append(inp[:cut])
            inp = inp[cut:]
    return "".join(output)


#: RFC 3986 §6.2.3: a port equal to the scheme's default is the same as no port.
DEFAULT_PORTS = {"http": "80", "https": "443"}
_PORT = re.compile(r":([0-9]*)\Z")
_PERCENT_UNRESERVED = re.compile(r"%(2[DdEe]|3[0-9]|[46][1-9A-Fa-f]|[57][0-9Aa]|5[Ff]|7[Ee])")


def normalize_authority(authority: str, scheme: str) -> str:
    """``authority`` as RFC 3986 §6.2.2.1 and §6.2.3 compare it: the host in lower case, and
    no port when it is empty or the scheme's default (``EXAMPLE.test:80`` is ``example.test``
    for http). Userinfo, which a target should not carry, is kept as written."""
    userinfo, at, hostport = authority.rpartition("@")
    port_match = _PORT.search(hostport)
    host, port = hostport, ""
    if port_match is not None:
        host, port = hostport[: port_match.start()], port_match[1]
    if port:
        # MB-SUB-2: "A port compares as a decimal number, so `:08099` is port 8099".
        port = port.lstrip("0") or "0"
    if port == DEFAULT_PORTS.get(scheme.lower()):
        port = ""
    return f"{userinfo}{at}{host.lower()}{':' + port if port else ''}"


def _decode_unreserved(path: str) -> str:
    """``path`` with percent-encoded unreserved characters decoded (RFC 3986 §6.2.2.2), so
    ``/%62atch`` compares equal to ``/batch``; other escapes stay as written."""
    if "%" not in path:
        return path
    return _PERCENT_UNRESERVED.sub(lambda m: chr(int(m[1], 16)), path)


def _refuse(detail: str) -> RemoteProtocolError:
    # MB-SUB-2: "A server rejects a target with a scheme or authority of its own that differs
    # from the batch's, a network-path reference, or a fragment, with 400."
    return RemoteProtocolError(
        detail, requirement="MB-SUB-2", slug="target-off-origin", title="Target leaves the origin"
    )


def resolve_target(base: str, reference: str, *, scheme: str, authority: str) -> str:
    """Resolve ``reference`` against the batch's origin-form target ``base``.

    ``scheme`` and ``authority`` are the batch request's own; the result is an origin-form
    target (``/path?query``). Raises ``RemoteProtocolError`` (MB-SUB-2) for a reference that
    would leave the origin or carries a fragment.
    """
    if not base.startswith("/"):
        raise ValueError(f"base must be an origin-form target, got {base!r}")
    if reference == "*":
        # MB-SUB-8: "A server rejects a part whose Content-Id is <*> with 400."
        raise RemoteProtocolError(
            "the asterisk-form target '*' names no resource",
            requirement="MB-SUB-8",
            slug="target-off-origin",
            title="Asterisk-form target",
        )
    match = _SPLIT.match(reference)
    if match is None:  # pragma: no cover - the Appendix B expression matches every string
        raise _refuse(f"unparseable target {reference!r}")
    r_scheme, r_authority, r_path, r_query, r_fragment = match.groups()
    if r_fragment is not None:
        raise _refuse(f"target {reference!r} carries a fragment")
    if r_scheme is not None:
        if not _SCHEME.fullmatch(r_scheme):
            raise _refuse(f"target {reference!r} has an invalid scheme")
        r_host = _PORT.sub("", (r_authority or "").rpartition("@")[2])
        if not r_host:
            # MB-SUB-2 prose: "an empty host (`http:///x`) matches no batch request", whatever
            # the batch's own Host says (RFC 9110 §4.2.1: an http URI with an empty host is
            # invalid).
            raise _refuse(f"target {reference!r} names an empty host")
        if r_scheme.lower() != scheme.lower() or normalize_authority(
            r_authority or "", r_scheme
        ) != normalize_authority(authority, scheme):
            raise _refuse(f"target {reference!r} names another origin than {scheme}://{authority}")
        path, query = remove_dot_segments(r_path or "/"), r_query
    elif r_authority is not None:
        raise _refuse(f"target {reference!r} is a network-path reference")
    else:
        b_path, _, b_query = base.partition("?")
        if r_path == "":
            path = b_path
            query = r_query if r_query is not None else (b_query if "?" in base else None)
        else:
            if r_path.startswith("/"):
                path = remove_dot_segments(r_path)
            else:
                # RFC 3986 §5.2.3 merge: the base has an authority, so a base with an empty
                # path would merge as "/" + reference; origin-form bases are never empty.
                path = remove_dot_segments(b_path[: b_path.rfind("/") + 1] + r_path)
            query = r_query
    if not path.startswith("/"):
        path = "/" + path
    return path if query is None else f"{path}?{query}"


#: Distinct (reference, base, scheme, authority) whose resolution is remembered: the parts of a
#: batch mostly name a few targets, and resolving one is most of what receiving a part costs.
RESOLVED_CACHE_SIZE = 1024
#: Only references up to this long are remembered, so the cache holds at most about 256 KiB of
#: them whatever targets peers send.
RESOLVED_CACHE_MAX_CHARS = 256
#: (reference, base, scheme, authority) -> (target, its path as MB-SUB-4 compares it).
_resolved: dict[tuple[str, str, str, str], tuple[str, str]] = {}


def _resolve(key: tuple[str, str, str, str]) -> tuple[str, str]:
    """``resolve_target`` for ``key`` and the target's path with unreserved escapes decoded,
    remembered when it succeeds and the reference is short. A refusal is not remembered: it
    raises afresh, with its own part index and offset."""
    reference, base, scheme, authority = key
    target = resolve_target(base, reference, scheme=scheme, authority=authority)
    # Compared as RFC 3986 §6.2.2 normalises it, so no spelling of the path slips past.
    resolved = (target, _decode_unreserved(target.partition("?")[0]))
    if len(reference) <= RESOLVED_CACHE_MAX_CHARS and len(base) <= RESOLVED_CACHE_MAX_CHARS:
        if len(_resolved) >= RESOLVED_CACHE_SIZE:
            _resolved.clear()
        _resolved[key] = resolved
    return resolved


def resolve_part_target(
    event: RequestPartStart,
    *,
    base: str,
    scheme: str,
    authority: str,
    batch_paths: Collection[str] = (),
) -> str:
    """The origin-form target of a request part, checked as spec §8 asks of a receiver.

    Resolves the part's Content-Id against the batch target ``base`` (MB-PART-5), keeps it on
    the batch's origin (MB-SUB-2, MB-SUB-8) and refuses a target whose path is one of
    ``batch_paths`` (MB-SUB-4). Errors carry the part index and the Content-Id line's offset.
    """
    reference = event.target
    key = (reference, base, scheme, authority)
    try:
        target, path = _resolved.get(key) or _resolve(key)
    except RemoteProtocolError as exc:
        exc.part_index = event.index
        exc.offset = event.target_offset
        raise
    # MB-SUB-4: "A server rejects a part whose target is a batch endpoint with 400, so batches
    # do not nest."
    if path in batch_paths:
        raise RemoteProtocolError(
            f"part target {event.target!r} resolves to the batch endpoint {target!r}",
            requirement="MB-SUB-4",
            slug="nested-batch",
            title="Nested batch",
            part_index=event.index,
            offset=event.target_offset,
        )
    return target
