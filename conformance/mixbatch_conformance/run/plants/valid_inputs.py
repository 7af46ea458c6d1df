"""Planted violations of a receiver too strict for inputs the grammar allows.

Covers a server that refuses or changes a valid batch: a Content-Id holding `%00` or a second
`?` in its query, an absolute URI with an empty path or the reference `.` refused (where it
does not resolve to the batch endpoint), a target whose path decodes to octets that are not
UTF-8, one holding an escaped control octet other than NUL or an overlong escaped slash, and
one whose query holds an escaped gen-delim or sub-delim refused (MB-PART-4);
percent-encoded slashes and question marks decoded, or an empty query dropped (MB-PART-5); a
Content-Id capped at 2048 octets (MB-PART-12); an Http-Method longer than 32 characters
refused (MB-PART-2); transport padding before an epilogue refused (MB-WIRE-11); a part body
holding the boundary without its hyphens refused (MB-PART-8); a field value that begins with
obs-text refused (MB-PART-11); a preamble or epilogue that is not UTF-8 refused (MB-WIRE-9).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import unquote_to_bytes

from mixbatch_conformance.run.mutations import FieldList, Mutation
from mixbatch_conformance.run.plants._edits import (
    Part,
    Pred,
    body_has,
    boundary_of,
    is_batch,
    parts_of,
    refuses,
)
from mixbatch_conformance.transport.relay import RelayRequest

__all__ = ["PLANTS"]

P = Mutation


def _content_ids(req: RelayRequest) -> list[bytes]:
    if not is_batch(req):
        return []
    return re.findall(rb"(?im)^Content-Id:[ \t]*<([^\r\n]*)>[ \t]*\r?$", req.body)


def _cid(pattern: bytes, longer_than: int = -1) -> Pred:
    rx = re.compile(pattern)
    return lambda req: any(
        rx.search(c) is not None and len(c) > longer_than for c in _content_ids(req)
    )


#: A Content-Id with no path: an absolute URI with an empty path, or the reference `.` or `./`.
_NO_PATH = re.compile(rb"^(?:https?://[^/?]*(?:\?.*)?|\./?)$")


def _pathless_not_endpoint(req: RelayRequest) -> bool:
    """A batch holding a Content-Id with no path that does not resolve to the batch's own
    endpoint: an empty path resolves to `/` (RFC 9112 §3.2.1), `.` and `./` to the endpoint's
    directory (RFC 3986 §5.2.3), which is the endpoint itself when its path ends in `/`, and a
    server refuses such a part under MB-SUB-4 whatever it makes of the reference."""
    endpoint = re.sub(r"^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*", "", req.target).split("?", 1)[0]
    for cid in _content_ids(req):
        if _NO_PATH.match(cid) is None:
            continue
        resolved = "/" if cid.startswith(b"http") else endpoint[: endpoint.rfind("/") + 1]
        if resolved != endpoint:
            return True
    return False


def _path_not_utf8(req: RelayRequest) -> bool:
    """A batch whose part target's path, its percent-encodings decoded, is not UTF-8 (a
    receiver taking the path for text, as an IRI)."""
    for cid in _content_ids(req):
        path = re.sub(rb"^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*", b"", cid)
        path = re.split(rb"[?#]", path, maxsplit=1)[0]
        try:
            unquote_to_bytes(path).decode("utf-8")
        except UnicodeDecodeError:
            return True
    return False


#: An escaped control octet other than NUL: %01 to %1F and %7F, in either case of hex.
_CONTROL_ESCAPE = rb"%(?:0[1-9A-Fa-f]|1[0-9A-Fa-f]|7[Ff])"
#: An overlong escaped "/" or "\" (two and three octets), as a traversal filter refuses it.
_OVERLONG_ESCAPE = rb"(?i)%C0%AF|%C1%9C|%E0%80%AF"
#: A query holding an escaped gen-delim or sub-delim other than "/", "?" and "#": "!", "$",
#: "&", "'", "(", ")", "*", "+", ",", ":", ";", "=", "@", "[" or "]".
_QUERY_RESERVED_ESCAPE = rb"\?[^#]*%(?:2[146-9A-Ca-c]|3[ABDabd]|40|5[BDbd])"


def _methods_longer_than(n: int) -> Pred:
    rx = re.compile(rb"(?im)^Http-Method:[ \t]*([^\r\n]*?)[ \t]*\r?$")
    return lambda req: is_batch(req) and any(len(m) > n for m in rx.findall(req.body))


def _bodies_hold_boundary(req: RelayRequest) -> bool:
    b = boundary_of(req)
    if not b or not is_batch(req):
        return False
    parts = parts_of(req.body, b)
    return parts is not None and any(b.encode("latin-1") in body for _, body in parts)


def _outside_utf8(req: RelayRequest) -> bool:
    """A batch whose preamble or epilogue is not UTF-8 (a server decoding the whole content)."""
    b = boundary_of(req)
    if not b or not is_batch(req):
        return False
    dash = b"--" + b.encode("latin-1")
    first = req.body.find(dash)
    close = req.body.rfind(dash + b"--")
    for piece in (
        req.body[: max(first, 0)],
        req.body[close + len(dash) + 2 :] if close >= 0 else b"",
    ):
        try:
            piece.decode("utf-8")
        except UnicodeDecodeError:
            return True
    return False


def _edit_cids(fn: Callable[[str], str]) -> Callable[[list[Part]], list[Part]]:
    def edit(parts: list[Part]) -> list[Part]:
        out: list[Part] = []
        for fields, body in parts:
            new: FieldList = [(n, fn(v) if n.lower() == "content-id" else v) for n, v in fields]
            out.append((new, body))
        return out

    return edit


def _decoded(value: str) -> str:
    """A receiver that decodes %2F and %3F before it builds the target."""
    return re.sub("%2[Ff]", "/", re.sub("%3[Ff]", "?", value))


def _empty_query_dropped(value: str) -> str:
    return re.sub(r"\?(>?)\s*$", r"\1", value.strip())


QUERY_CATCHERS = ("target-query-octets-reach-resource",)
PATH_CATCHERS = ("target-path-octets-as-alone",)
SPELLING_CATCHERS = ("valid-reference-spellings-accepted",)

PLANTS: tuple[Mutation, ...] = (
    P(
        "content-id-percent-nul-refused",
        "MB-PART-4 a Content-Id holding %00 refused with 400",
        (*QUERY_CATCHERS, *PATH_CATCHERS),
        on_response=refuses(_cid(rb"%00")),
    ),
    P(
        "content-id-second-question-mark-refused",
        "MB-PART-4 a Content-Id whose query holds a second ? refused with 400",
        QUERY_CATCHERS,
        on_response=refuses(_cid(rb"\?[^>]*\?")),
    ),
    P(
        "content-id-without-path-refused",
        "MB-PART-4 an absolute-URI Content-Id with an empty path, or the reference . or ./, refused with 400 where it does not resolve to the batch endpoint",
        PATH_CATCHERS,
        on_response=refuses(_pathless_not_endpoint),
    ),
    P(
        "content-id-non-utf8-path-refused",
        "MB-PART-4 a Content-Id whose path, its percent-encodings decoded, is not UTF-8 refused with 400",
        (*PATH_CATCHERS, *SPELLING_CATCHERS),
        on_response=refuses(_path_not_utf8, requirement="MB-PART-4"),
    ),
    P(
        "content-id-control-escape-refused",
        "MB-PART-4 a Content-Id holding an escaped control octet other than NUL refused with 400",
        (*QUERY_CATCHERS, *PATH_CATCHERS, *SPELLING_CATCHERS),
        on_response=refuses(_cid(_CONTROL_ESCAPE), requirement="MB-PART-4"),
    ),
    P(
        "content-id-overlong-escape-refused",
        "MB-PART-4 a Content-Id holding an overlong escaped slash or backslash refused with 400",
        (*QUERY_CATCHERS, *PATH_CATCHERS, *SPELLING_CATCHERS),
        on_response=refuses(_cid(_OVERLONG_ESCAPE), requirement="MB-PART-4"),
    ),
    P(
        "content-id-query-reserved-escape-refused",
        "MB-PART-4 a Content-Id whose query holds an escaped gen-delim or sub-delim refused with 400",
        (*QUERY_CATCHERS, *SPELLING_CATCHERS),
        on_response=refuses(_cid(_QUERY_RESERVED_ESCAPE), requirement="MB-PART-4"),
    ),
    P(
        "target-encoded-slash-decoded",
        "MB-PART-5 a target's %2F and %3F decoded before the sub-request is built",
        QUERY_CATCHERS,
        on_request_parts=_edit_cids(_decoded),
    ),
    P(
        "target-empty-query-dropped",
        "MB-PART-5 a target's empty query dropped with its ?",
        QUERY_CATCHERS,
        on_request_parts=_edit_cids(_empty_query_dropped),
    ),
    P(
        "content-id-capped-2048",
        "MB-PART-12 a Content-Id longer than 2048 octets refused with 400",
        (
            "accept-long-content-id",
            "accept-long-content-id-absolute-uri",
            "content-id-at-header-limit",
        ),
        on_response=refuses(_cid(rb"", longer_than=2048)),
    ),
    P(
        "http-method-capped-32",
        "MB-PART-2 an Http-Method longer than 32 characters refused with 400",
        ("accept-http-method-long-token",),
        on_response=refuses(_methods_longer_than(32)),
    ),
    P(
        "close-padding-before-epilogue-refused",
        "MB-WIRE-11 transport padding after the close delimiter refused when an epilogue follows",
        ("accept-close-padding-then-epilogue",),
        on_response=refuses(body_has(rb"--[!-~ ]{1,70}--[ \t]+\r\n.")),
    ),
    P(
        "bare-boundary-in-body-refused",
        "MB-PART-8 a part body holding the boundary without its hyphens refused as a broken envelope",
        ("accept-body-holding-bare-boundary", "accept-body-holding-bare-boundary-undeclared"),
        on_response=refuses(_bodies_hold_boundary),
    ),
    P(
        "field-value-leading-obs-text-refused",
        "MB-PART-11 a part field value that begins with an obs-text octet refused with 400",
        ("accept-field-value-leading-obs-text",),
        on_response=refuses(body_has(rb"(?m)^[!#$%&'*+.^_`|~0-9A-Za-z-]+:[ \t]*[\x80-\xff]")),
    ),
    P(
        "preamble-decoded-as-utf8",
        "MB-WIRE-9 a preamble or epilogue that is not UTF-8 refused with 400",
        ("accept-binary-preamble-and-epilogue",),
        on_response=refuses(_outside_utf8),
    ),
)
