"""Planted violations of the sender's delimiter check (MB-WIRE-6), each a way of looking for the
dash-boundary in a body that misses some of the places it can stand:

    delimiter-check-absent            a body goes into its part as it is, whatever it holds
    delimiter-check-skips-body-start  the dash-boundary is looked for after each LF only, not at
                                      the very start of a body
    delimiter-check-crlf-only         it is looked for after a CRLF only, so one after a bare LF
                                      passes
    delimiter-check-whole-lines-only  only a whole delimiter line counts (the dash-boundary, `--`
                                      or not, then CRLF or the end), so one with transport
                                      padding or more text after it passes
    delimiter-check-absent-unsized    no check, and the parts carry no Content-Length (a
                                      SHOULD, MB-WIRE-15), so no length tells where a body
                                      really ends: only the parts and the epilogue show it
    delimiter-check-misses-body-end   the loop over the places it can stand is bounded one
                                      short, so a dash-boundary that ends the body passes
    delimiter-check-first-occurrence  only the first occurrence of the dash-boundary is looked
                                      at (one search, no loop), so a mention mid-line or after
                                      a CR alone hides a delimiter line after it
    delimiter-check-last-occurrence   only the last occurrence is looked at (a search from the
                                      end), so a mention after a delimiter line hides it
    delimiter-check-first-64-kib      the scan stops after the first 64 KiB of a body, so a
                                      delimiter line further on passes

The collection retrieval (spec 4.2) is written by the same kind of writer, under a boundary
that depends on the collection's state alone, so a member can be written with the delimiter of
the last retrieval:

    collection-delimiter-check-absent the retrieval carries each member's content as it is
    collection-delimiter-check-first-occurrence
                                      the retrieval's boundary is changed only when the first
                                      occurrence of its dash-boundary in a member's content
                                      opens a line

A body the planted check of a batch's answer does find is refused as the reference server's writer refuses it: that
part becomes a 500 with a problem document naming MB-WIRE-6.

The relay's reference server keeps only JSON documents in its sandbox at /books (a PUT of
another media type is answered 415), and no JSON document can hold a delimiter; the plants
model a sandbox that keeps other content. The relay keeps what a PUT of another media type to a
book wrote and answers it 204, answers a GET of that book alone with it, and forgets it once a
JSON PUT or a DELETE of the book goes through. A batch's answer goes out head first
(`Behaviour.head_first`), so its boundary is known while its parts run; its content is held to
the end, and each part answering a GET of a book the relay keeps content for then carries that
content, or the 500 above when the planted check finds the dash-boundary in it. A collection
retrieval of the books carries the content the relay keeps for a book in that book's part, under
the reference server's boundary (a function of the books, which the kept content leaves
unchanged), or under another when the planted check finds its dash-boundary in that content.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from urllib.parse import urlsplit

from mixbatch_conformance.run.mutations import Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    SANDBOX_MEMBER,
    boundary_of,
    field_of,
    is_batch,
    parts_of,
    set_field,
)
from mixbatch_conformance.transport.relay import Behaviour, RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: Content a PUT of a media type other than JSON wrote to a book: path -> (media type, octets).
_KEPT: dict[str, tuple[str, bytes]] = {}

#: A planted check: whether it finds the dash-boundary `dash` in `body`.
Finds = Callable[[bytes, bytes], bool]


def _json_media(req: RelayRequest) -> bool:
    media = (req.get("Content-Type") or "").split(";", 1)[0].strip().lower()
    return media == "application/json" or media.endswith("+json")


def _alone(req: RelayRequest, resp: RelayResponse) -> None:
    """A sandbox that keeps content of any media type, for requests to a book alone."""
    path = urlsplit(req.target).path
    if not SANDBOX_MEMBER.fullmatch(path):
        return
    if req.method == "PUT" and not _json_media(req) and resp.status == 415:
        _KEPT[path] = (req.get("Content-Type") or "application/octet-stream", req.body)
        resp.status, resp.body = 204, b""
        resp.headers = [(n, v) for n, v in resp.headers if n.lower() in ("date", "server")]
    elif req.method == "GET" and path in _KEPT and resp.status == 200:
        media, body = _KEPT[path]
        resp.body = body
        resp.headers = [(n, v) for n, v in resp.headers if n.lower() in ("date", "server")]
        resp.headers.append(("Content-Type", media))
    elif req.method in ("PUT", "DELETE") and 200 <= resp.status < 300:
        _KEPT.pop(path, None)


def _refused(fields: list[tuple[str, str]]) -> tuple[list[tuple[str, str]], bytes]:
    doc = {
        "type": "https://mixbatch.dev/problems/boundary-collision",
        "title": "Boundary collision",
        "status": 500,
        "requirement": "MB-WIRE-6",
    }
    body = json.dumps(doc).encode()
    cid = field_of(fields, "Content-Id") or "<>"
    return [
        ("Http-Status-Code", "500"),
        ("Content-Id", cid),
        ("Content-Type", "application/problem+json"),
        ("Content-Length", str(len(body))),
    ], body


def _read_targets(req: RelayRequest) -> list[str | None]:
    """The path each request part of a batch GETs (None for a part that is no GET)."""
    b = boundary_of(req)
    parts = parts_of(req.body, b) if b else None
    out: list[str | None] = []
    for fields, _ in parts or []:
        method = (field_of(fields, "Http-Method") or "").strip()
        cid = (field_of(fields, "Content-Id") or "").strip().removeprefix("<").removesuffix(">")
        out.append(urlsplit(cid).path if method == "GET" else None)
    return out


def _writer(finds: Finds, sized: bool = True) -> Callable[[RelayRequest, RelayResponse], None]:
    """The edit of a plant whose writer looks for the dash-boundary with `finds`, and gives
    the parts it writes a Content-Length when `sized`."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        if not is_batch(req):
            _alone(req, resp)
            return
        b = boundary_of(resp)
        parts = parts_of(resp.body, b) if b else None
        if b is None or parts is None:
            return
        dash = b"--" + b.encode("latin-1")
        targets = _read_targets(req)
        out = []
        for i, (fields, body) in enumerate(parts):
            kept = _KEPT.get(targets[i] or "") if i < len(targets) else None
            if kept is None or field_of(fields, "Http-Status-Code") != "200":
                out.append((fields, body))
                continue
            media, content = kept
            if finds(content, dash):
                out.append(_refused(fields))
                continue
            cid = field_of(fields, "Content-Id") or "<>"
            head = [("Http-Status-Code", "200"), ("Content-Id", cid), ("Content-Type", media)]
            if sized:
                head.append(("Content-Length", str(len(content))))
            out.append((head, content))
        if not sized:
            out = [
                ([(n, v) for n, v in f if n.lower() != "content-length"], body) for f, body in out
            ]
        resp.body = write_parts(out, b)

    return edit


def _retrieval(finds: Finds) -> Callable[[RelayRequest, RelayResponse], None]:
    """The edit of a plant whose collection retrieval carries the kept content of its members,
    under the upstream's boundary unless `finds` finds its dash-boundary in one of them."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        if is_batch(req):
            return
        _alone(req, resp)
        b = boundary_of(resp) if req.method == "GET" and resp.status == 200 else None
        parts = parts_of(resp.body, b) if b else None
        if b is None or parts is None:
            return
        out = []
        contents = []
        for fields, body in parts:
            cid = (field_of(fields, "Content-Id") or "").strip().removeprefix("<").removesuffix(">")
            kept = _KEPT.get(urlsplit(cid).path)
            if kept is None:
                out.append((fields, body))
                continue
            media, content = kept
            fields = set_field(fields, "Content-Type", media)
            out.append((set_field(fields, "Content-Length", str(len(content))), content))
            contents.append(content)
        if any(finds(c, b"--" + b.encode("latin-1")) for c in contents):
            b += "-planted"
            resp.headers = [
                (n, f"multipart/mixed; boundary={b}" if n.lower() == "content-type" else v)
                for n, v in resp.headers
            ]
        resp.body = write_parts(out, b)

    return edit


def _never(body: bytes, dash: bytes) -> bool:
    return False


def _after_lf(body: bytes, dash: bytes) -> bool:
    return b"\n" + dash in body


def _after_crlf(body: bytes, dash: bytes) -> bool:
    return body.startswith(dash) or b"\r\n" + dash in body


def _whole_lines(body: bytes, dash: bytes) -> bool:
    line = rb"(?:\A|\n)" + re.escape(dash) + rb"(?:--)?(?:\r\n|\Z)"
    return re.search(line, body) is not None


def _with_room_after(body: bytes, dash: bytes) -> bool:
    """Found at a line's start only where some octet follows it: a loop bounded one short, so
    a dash-boundary that ends the body is not seen."""
    return any(
        _at_line_start(body, at) and at + len(dash) < len(body)
        for at in (m.start() for m in re.finditer(re.escape(dash), body))
    )


def _at_line_start(body: bytes, at: int) -> bool:
    return at == 0 or (at > 0 and body[at - 1] == 0x0A)


#: How far into a body the bounded scan looks.
SCAN_BOUND = 64 * 1024


def _first_64_kib(body: bytes, dash: bytes) -> bool:
    """Found at a line's start within the first SCAN_BOUND octets only."""
    return any(
        _at_line_start(body, m.start()) for m in re.finditer(re.escape(dash), body[:SCAN_BOUND])
    )


def _first_occurrence(body: bytes, dash: bytes) -> bool:
    return _at_line_start(body, body.find(dash))


def _last_occurrence(body: bytes, dash: bytes) -> bool:
    return _at_line_start(body, body.rfind(dash))


#: The answer to a batch goes out head first; every other answer is held for the edit.
HEAD_FIRST = Behaviour(head_first=is_batch)
CATCHERS = ("response-delimiter-planted-in-member",)

PLANTS: tuple[Mutation, ...] = tuple(
    # MB-WIRE-6: "A sender MUST ensure that the delimiter (CRLF, two hyphens and the boundary)
    # does not occur in any part's header section or body"; its prose: "a sender looks for
    # the dash-boundary at the start of a body and after every LF in it, with or without a CR
    # before the LF", and spec 3.1.3: "at the start of any line of content, not only for the
    # whole delimiter line".
    Mutation(
        name,
        f"MB-WIRE-6 {what}",
        CATCHERS,
        on_response=_writer(finds, sized),
        behaviour=HEAD_FIRST,
    )
    for name, what, finds, sized in (
        ("delimiter-check-absent", "no check", _never, True),
        ("delimiter-check-skips-body-start", "not at a body's start", _after_lf, True),
        ("delimiter-check-crlf-only", "not after a bare LF", _after_crlf, True),
        ("delimiter-check-whole-lines-only", "whole delimiter lines only", _whole_lines, True),
        ("delimiter-check-absent-unsized", "no check, parts unsized", _never, False),
        (
            "delimiter-check-misses-body-end",
            "a dash-boundary that ends the body not seen",
            _with_room_after,
            True,
        ),
        (
            "delimiter-check-first-occurrence",
            "the first occurrence of the dash-boundary looked at alone",
            _first_occurrence,
            True,
        ),
        (
            "delimiter-check-last-occurrence",
            "the last occurrence of the dash-boundary looked at alone",
            _last_occurrence,
            True,
        ),
        (
            "delimiter-check-first-64-kib",
            "the scan bounded to a body's first 64 KiB",
            _first_64_kib,
            True,
        ),
    )
)
#: MB-WIRE-6 binds the writer of a collection retrieval as it does a batch's: "A sender MUST
#: ensure that the delimiter ... does not occur in any part's header section or body".
RETRIEVAL_PLANTS: tuple[Mutation, ...] = tuple(
    Mutation(
        name,
        f"MB-WIRE-6 a collection retrieval's writer with {what}",
        ("collection-delimiter-planted-in-member",),
        on_response=_retrieval(finds),
    )
    for name, what, finds in (
        ("collection-delimiter-check-absent", "no check", _never),
        (
            "collection-delimiter-check-first-occurrence",
            "the first occurrence of the dash-boundary looked at alone",
            _first_occurrence,
        ),
    )
)
