"""RFC 3986 §5.2 reference resolution, as the suite computes a part's expected target.

Theory of operation: MB-PART-5 resolves a Content-Id reference "against the batch request's
target URI (RFC 9110 §7.1) by the algorithm of RFC 3986 §5.2". A check that judges what a
resource received needs that result itself, and the standard library's `urljoin` will not do:
it leaves the dot segments of an absolute URI as written (`urljoin(base, "http://h/a/../b")`
keeps `/a/../`), which is the very mistake a check must catch. `resolve` follows §5.2.2 branch
by branch, with `remove_dot_segments` (§5.2.4) applied to the path in every branch that takes
the reference's path, and gives the origin-form target (path and query) a request carries.
"""

from __future__ import annotations

import re

__all__ = ["may_name_batch_endpoint", "remove_dot_segments", "resolve"]

#: RFC 3986 Appendix B: scheme, authority, path, query, fragment of a URI reference.
_REFERENCE = re.compile(r"^(?:([^:/?#]+):)?(?://([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$")


def remove_dot_segments(path: str) -> str:
    """RFC 3986 §5.2.4, step by step: the input buffer is consumed from the left."""
    out: list[str] = []
    rest = path
    while rest:
        if rest.startswith("../"):
            rest = rest[3:]  # A
        elif rest.startswith("./"):
            rest = rest[2:]  # A
        elif rest.startswith("/./"):
            rest = rest[2:]  # B: "/./" -> "/"
        elif rest == "/.":
            rest = "/"  # B
        elif rest.startswith("/../"):
            rest = rest[3:]  # C: "/../" -> "/", and the last output segment goes
            if out:
                out.pop()
        elif rest == "/..":
            rest = "/"  # C
            if out:
                out.pop()
        elif rest in (".", ".."):
            rest = ""  # D
        else:
            # E: the first segment, with its leading "/" if any, up to the next "/".
            cut = rest.find("/", 1)
            cut = len(rest) if cut < 0 else cut
            out.append(rest[:cut])
            rest = rest[cut:]
    return "".join(out)


def _merge(base_path: str, ref_path: str, base_has_authority: bool) -> str:
    """RFC 3986 §5.2.3: the reference's path appended to the base's directory."""
    if base_has_authority and not base_path:
        return "/" + ref_path
    return base_path[: base_path.rfind("/") + 1] + ref_path


def resolve(base: str, ref: str) -> str:
    """The origin-form target (path, and `?query` when the result has one) that RFC 3986
    §5.2.2 gives `ref` against `base`, an absolute URI or an origin-form target of the batch
    request (then the base is taken to have an authority, as every HTTP target URI does)."""
    m_base = _REFERENCE.match(base)
    m_ref = _REFERENCE.match(ref)
    # The pattern matches any string.
    assert m_base is not None
    assert m_ref is not None
    b_path, b_query = m_base.group(3), m_base.group(4)
    r_scheme, r_authority, r_path, r_query = m_ref.group(1, 2, 3, 4)
    if r_scheme is not None or r_authority is not None:
        path, query = remove_dot_segments(r_path), r_query
    elif not r_path:
        path, query = b_path, (r_query if r_query is not None else b_query)
    elif r_path.startswith("/"):
        path, query = remove_dot_segments(r_path), r_query
    else:
        path, query = remove_dot_segments(_merge(b_path, r_path, True)), r_query
    return (path or "/") + (f"?{query}" if query is not None else "")


#: A percent-encoded unreserved character (RFC 3986 §2.3: ALPHA, DIGIT, "-", ".", "_", "~").
_ENCODED_UNRESERVED = re.compile(
    r"%(4[1-9A-Fa-f]|5[0-9Aa]|6[1-9A-Fa-f]|7[0-9Aa]|3[0-9]|2[DEde]|5[Ff]|7[Ee])"
)


def _normalised(path: str) -> str:
    """`path` with its percent-encoded unreserved characters decoded (RFC 3986 §6.2.2.2), its
    dot segments then removed (§6.2.2.3) and any trailing "/" dropped."""
    decoded = _ENCODED_UNRESERVED.sub(lambda m: chr(int(m.group(1), 16)), path)
    return remove_dot_segments(decoded).rstrip("/")


def may_name_batch_endpoint(batch_path: str, target: str) -> bool:
    """Whether a server could route the origin-form `target` to its batch endpoint at
    `batch_path`, so that MB-SUB-4 makes a part naming it refuse its batch.

    MB-SUB-4: "A target is a batch endpoint when the server, given it as the target of a
    standalone request, would route that request to one of its batch endpoints", which holds
    "whenever its path equals the endpoint's path once percent-encoded unreserved characters
    are decoded (RFC 3986 §6.2.2.2), whatever its query"; spec 8.4 adds that `</batch/>`
    "names the batch endpoint only on a server that routes it there". A path equal to the
    endpoint's after that decoding, after a removal of the dot segments it spells encoded, or
    but for a trailing "/", is taken to be one: a part is never expected processed where a
    server may route it to a batch endpoint."""
    return _normalised(target.partition("?")[0]) == _normalised(batch_path)
