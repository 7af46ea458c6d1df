"""Planted violations of part length and of the size limits on the envelope (spec 3.1.4:
MB-WIRE-15 to MB-WIRE-17, MB-WIRE-20; spec 5.1 and 9.1: MB-STATUS-3, MB-LIMIT-1).

A length plant writes answer parts without Content-Length or with a wrong one, accepts a part
whose Content-Length differs from its body or is not exactly 1*DIGIT, or refuses one that is
right (a body ending in CRLF, leading zeros, the name in another case). A limit plant measures
a limit wrongly (chunked content cut at it, field lines folded by name, the first part only,
the declared length instead of the octets) or runs parts before it finds one over a limit.
"""

from __future__ import annotations

import json
import re

from mixbatch_conformance.run.mutations import Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    Part,
    accepts,
    body_has,
    boundary_of,
    is_batch,
    map_parts,
    parts_of,
    problem,
    refuses,
    without_field,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]


def _drop_length(parts: list[Part]) -> list[Part]:
    return [(without_field(f, "Content-Length"), b) for f, b in parts]


def _short_length(parts: list[Part]) -> list[Part]:
    out = []
    for f, b in parts:
        if b:
            f = [(n, str(len(b) - 1) if n.lower() == "content-length" else v) for n, v in f]
        out.append((f, b))
    return out


def _content_length_lenient(req: RelayRequest) -> bool:
    """A Content-Length line whose value, without its surrounding whitespace, is not 1*DIGIT."""
    values = re.findall(rb"(?im)^content-length:([^\r\n]*)\r\n", req.body)
    return req.method == "POST" and any(
        re.fullmatch(rb"[0-9]+", v.strip(b" \t")) is None for v in values
    )


def _length_less_final_newline(req: RelayRequest) -> bool:
    """A part Content-Length equal to its body less one final CRLF or LF, or all of them."""
    if req.method != "POST":
        return False
    for m in re.finditer(rb"(?i)content-length: ([0-9]+)\r\n(?:[^\r\n]*\r\n)*?\r\n", req.body):
        rest = req.body[m.end() :]
        body = rest[: rest.find(b"\r\n--")] if b"\r\n--" in rest else rest
        shorter = {len(body.rstrip(b"\r\n")), len(body.removesuffix(b"\n").removesuffix(b"\r"))}
        if body.endswith(b"\n") and int(m.group(1)) in shorter:
            return True
    return False


class _ChunkedWindow:
    """A server that reads chunked batch content through a window of exactly max_batch_bytes
    (learned from the capabilities document the relay passes on): content over the limit is
    cut there, and the cut batch is refused as malformed rather than as too large."""

    def __init__(self) -> None:
        self.limit: int | None = None

    def request(self, req: RelayRequest) -> None:
        chunked = "chunked" in (req.get("Transfer-Encoding") or "").lower()
        if chunked and is_batch(req) and self.limit is not None and len(req.body) > self.limit:
            req.body = req.body[: self.limit]

    def response(self, req: RelayRequest, resp: RelayResponse) -> None:
        if req.method != "OPTIONS":
            return
        try:
            doc = json.loads(resp.body)
        except ValueError:
            return
        limits = doc.get("limits") if isinstance(doc, dict) else None
        value = limits.get("max_batch_bytes") if isinstance(limits, dict) else None
        self.limit = value if isinstance(value, int) else None


_WINDOW = _ChunkedWindow()


class _RunBeforeLimits:
    """A server that streams a batch, running each part as it is read, and refuses the batch
    only when a part over a part limit (learned from the capabilities document) comes: the
    parts before it have run by then."""

    MARK = "X-Plant-Over-Limit"

    def __init__(self) -> None:
        self.limits: dict[str, int] = {}

    def _over(self, index: int, fields: list[tuple[str, str]]) -> int | None:
        """The status for the first limit part `index` is over (spec 9.1), or None."""
        octets = sum(len(f"{n}: {v}\r\n") for n, v in fields)
        checks = {"max_part_header_bytes": (octets, 431), "max_part_fields": (len(fields), 431)}
        checks["max_parts"] = (index + 1, 413)
        over = [st for name, (used, st) in checks.items() if used > self.limits.get(name, used)]
        return over[0] if over else None

    def request(self, req: RelayRequest) -> None:
        b = boundary_of(req)
        parts = parts_of(req.body, b) if b and is_batch(req) else None
        if not parts or b is None:
            return
        for i, (fields, _) in enumerate(parts):
            status = self._over(i, list(fields))
            if status is not None:
                if i:
                    req.body = write_parts(parts[:i], b)
                    req.headers.append((self.MARK, str(status)))
                return

    def response(self, req: RelayRequest, resp: RelayResponse) -> None:
        status = req.get(self.MARK)
        if status:
            problem(resp, int(status), "MB-STATUS-3")
            return
        if req.method != "OPTIONS":
            return
        try:
            doc = json.loads(resp.body)
        except ValueError:
            return
        limits = doc.get("limits") if isinstance(doc, dict) else None
        if isinstance(limits, dict):
            self.limits = {k: v for k, v in limits.items() if isinstance(v, int)}


_STREAMED = _RunBeforeLimits()

#: Octets over which a part body without Content-Length counts as large in the plants below
#: (far under any published max_part_bytes the limit cases exceed, far over an ordinary part).
_LARGE_PART = 64 * 1024


def _repeated_field_name(req: RelayRequest) -> bool:
    """A batch with a part holding two field lines of one name: a server that folds them into
    one field (a map of names) before it counts lines and octets counts fewer."""
    b = boundary_of(req)
    parts = parts_of(req.body, b) if b and is_batch(req) else None
    for fields, _ in parts or []:
        names = [n.lower() for n, _ in fields]
        if len(set(names)) < len(names):
            return True
    return False


def _large_header_after_first(req: RelayRequest) -> bool:
    """A batch whose first part's header section is small and a later one's is over 1 KiB:
    a server that applies the part header limits to the first part only lets it through."""
    b = boundary_of(req)
    parts = parts_of(req.body, b) if b and is_batch(req) else None
    sizes = [sum(len(n) + len(v) + 4 for n, v in fields) for fields, _ in parts or []]
    return len(sizes) > 1 and sizes[0] <= 1024 < max(sizes[1:])


def _content_length_case_sensitive(req: RelayRequest) -> None:
    """A server that looks up `Content-Length` with that exact spelling: a part's
    `content-length` is an ordinary field to it, so its body runs to the next delimiter and a
    final CRLF goes to the delimiter."""
    b = boundary_of(req)
    parts = parts_of(req.body, b) if b and is_batch(req) else None
    if not b or parts is None:
        return
    out: list[Part] = []
    for fields, body in parts:
        odd = [n for n, _ in fields if n.lower() == "content-length" and n != "Content-Length"]
        if odd:
            fields = [(n, v) for n, v in fields if n not in odd]
            body = body[:-2] if body.endswith(b"\r\n") else body
        out.append((fields, body))
    req.body = write_parts(out, b)


def _large_undeclared_part(req: RelayRequest) -> bool:
    """A batch with a part body over _LARGE_PART octets that states no Content-Length."""
    b = boundary_of(req)
    parts = parts_of(req.body, b) if b and is_batch(req) else None
    return any(
        len(body) > _LARGE_PART and all(n.lower() != "content-length" for n, _ in fields)
        for fields, body in parts or []
    )


P = Mutation
PLANTS: tuple[Mutation, ...] = (
    # MB-WIRE-15: each part carries Content-Length.
    P(
        "response-parts-without-length",
        "MB-WIRE-15",
        ("response-framing-strict",),
        caught_by=("WARN", "FAIL"),
        on_response=map_parts(_drop_length),
    ),
    # MB-WIRE-16: Content-Length equals the body's octets.
    P(
        "part-content-length-short",
        "MB-WIRE-16 one short",
        ("response-framing-strict",),
        on_response=map_parts(_short_length),
    ),
    # MB-WIRE-17: a Content-Length that differs from the octets is rejected.
    P(
        "short-content-length-accepted",
        "MB-WIRE-17 too small",
        ("reject-content-length-too-small",),
        on_response=accepts(body_has(rb"Length: 3\r\n\r\nabcdef")),
    ),
    P(
        "long-content-length-accepted",
        "MB-WIRE-17 too large",
        ("reject-content-length-too-large",),
        on_response=accepts(body_has(rb"Content-Length: 60\r\n")),
    ),
    P(
        "get-content-length-unchecked",
        "MB-WIRE-17 on GET",
        ("reject-content-length-on-get-mismatch",),
        on_response=accepts(body_has(rb"GET\r\n(?:[^\r\n]*\r\n)*?Content-Length: 5\r\n")),
    ),
    P(
        "body-delimiter-collision-accepted",
        "MB-WIRE-17 collision",
        ("reject-boundary-collision-in-body",),
        on_response=accepts(body_has(rb"abc\r\n--")),
    ),
    P(
        "content-length-on-get-refused",
        "MB-WIRE-17 zero on GET",
        ("accept-content-length-on-get",),
        on_response=refuses(body_has(rb"GET\r\n(?:[^\r\n]*\r\n)*?Content-Length: 0\r\n")),
    ),
    P(
        "empty-put-refused",
        "MB-WIRE-17 empty body",
        ("accept-empty-body-put",),
        on_response=refuses(body_has(rb"PUT\r\n(?:[^\r\n]*\r\n)*?Content-Length: 0\r\n")),
    ),
    # MB-WIRE-20: one Content-Length of 1*DIGIT.
    P(
        "content-length-underscore-accepted",
        "MB-WIRE-20 digits with an underscore",
        ("reject-content-length-underscore",),
        on_response=accepts(body_has(rb"Content-Length: [0-9]+_[0-9]")),
    ),
    P(
        "content-length-overflow-ignored",
        "MB-WIRE-20 too many digits for an integer",
        ("reject-content-length-overflow", "reject-content-length-overflow-to-body-length"),
        on_response=accepts(body_has(rb"Content-Length: [0-9]{20,}")),
    ),
    P(
        "hex-content-length-accepted",
        "MB-WIRE-20 hex",
        ("reject-content-length-hex",),
        on_response=accepts(body_has(rb"Content-Length: 0x")),
    ),
    P(
        "repeated-content-length-accepted",
        "MB-WIRE-20 repeated",
        ("reject-content-length-repeated",),
        on_response=accepts(body_has(rb"Content-Length: 3\r\nContent-Length: 3")),
    ),
    # MB-WIRE-20: one Content-Length, its value exactly 1*DIGIT.
    P(
        "content-length-value-lenient",
        "MB-WIRE-20 empty or not 1*DIGIT",
        (
            "reject-content-length-empty",
            "reject-content-length-whitespace-only",
            "reject-content-length-list",
            "reject-content-length-negative",
            "reject-content-length-decimal",
            "reject-content-length-inner-space",
            "reject-content-length-signed",
        ),
        on_response=accepts(_content_length_lenient),
    ),
    P(
        "repeated-content-length-case-sensitive",
        "MB-WIRE-20 repeated in another case",
        ("reject-content-length-repeated-other-case",),
        on_response=accepts(body_has(rb"Content-Length: 3\r\ncontent-length: 3")),
    ),
    P(
        "content-length-strict-text",
        "MB-WIRE-20 whitespace or leading zeros",
        ("accept-content-length-trailing-ows", "accept-content-length-leading-zeros"),
        on_response=refuses(body_has(rb"Content-Length: (3[ \t]|00)")),
    ),
    # MB-WIRE-17: Content-Length is the body's exact octet count, final CRLF included.
    P(
        "content-length-without-final-newline",
        "MB-WIRE-17 body less its final CRLF",
        (
            "reject-content-length-without-final-crlf",
            "reject-content-length-without-final-lf",
            "reject-content-length-zero-body-crlf",
            "reject-content-length-body-crlfs-only",
        ),
        on_response=accepts(_length_less_final_newline),
    ),
    P(
        "content-length-with-delimiter-crlf",
        "MB-WIRE-17 counting the delimiter's CRLF",
        ("reject-content-length-with-delimiter-crlf",),
        on_response=accepts(body_has(rb"Content-Length: 5\r\n\r\nabc\r\n--")),
    ),
    P(
        "content-length-off-by-one",
        "MB-WIRE-17 one octet either way",
        ("reject-content-length-one-short", "reject-content-length-one-over"),
        on_response=accepts(body_has(rb"Content-Length: (5\r\n\r\nabc\r\nx|4\r\n\r\nabc)\r\n--")),
    ),
    P(
        "final-crlf-trimmed-from-body",
        "MB-WIRE-17 a body's final CRLF dropped",
        (
            "accept-content-length-body-ending-crlf",
            "accept-content-length-body-only-crlf",
            "accept-content-length-body-ending-crlf-crlf",
        ),
        on_response=refuses(body_has(rb"\r\n\r\n(abc)?(\r\n)+\r\n--"), 400, "MB-WIRE-17"),
    ),
    # MB-STATUS-3: a batch over max_batch_bytes is 413 in every framing of its content.
    P(
        "chunked-content-cut-at-limit",
        "MB-STATUS-3 chunked content cut at max_batch_bytes",
        ("limit-batch-bytes-one-over-chunked",),
        on_request=_WINDOW.request,
        on_response=_WINDOW.response,
    ),
    # MB-STATUS-3: a batch over a part limit is refused before any part runs.
    P(
        "parts-run-before-a-limit-is-found",
        "MB-STATUS-3 earlier parts run before a later part over a limit",
        ("over-limit-batch-runs-nothing",),
        on_request=_STREAMED.request,
        on_response=_STREAMED.response,
    ),
    # MB-STATUS-3, MB-LIMIT-5: part header limits count field lines as sent, not names.
    P(
        "header-limits-count-folded-fields",
        "MB-STATUS-3 header limits counted on fields folded by name",
        (
            "limit-part-header-bytes-one-over-repeated-name",
            "limit-part-fields-one-over-repeated-name",
        ),
        on_response=accepts(_repeated_field_name),
    ),
    P(
        "header-limits-on-first-part-only",
        "MB-STATUS-3 part header limits applied to the first part only",
        ("limit-part-header-bytes-one-over-second-part",),
        on_response=accepts(_large_header_after_first),
    ),
    # MB-WIRE-17: Content-Length is recognised whatever the case of its name.
    P(
        "content-length-name-case-sensitive",
        "MB-WIRE-17 content-length in another case ignored",
        (
            "accept-content-length-lower-case-body-ending-crlf",
            "accept-content-length-upper-case-body-ending-crlf",
            "reject-content-length-lower-case-too-large",
        ),
        on_request=_content_length_case_sensitive,
        on_response=accepts(body_has(rb"\r\n(?!Content-Length)(?i:content-length):")),
    ),
    # MB-STATUS-3: max_part_bytes counts a part body's octets, not the length it declares.
    P(
        "part-size-by-declared-length-only",
        "MB-STATUS-3 part over max_part_bytes without Content-Length",
        ("limit-part-bytes-one-over-undeclared",),
        on_response=accepts(_large_undeclared_part),
    ),
    P(
        "chunked-content-window-one-short",
        "MB-LIMIT-1 chunked content at the limit refused",
        ("limit-batch-bytes-at-limit-chunked",),
        on_response=refuses(
            lambda req: (
                "chunked" in (req.get("Transfer-Encoding") or "").lower() and len(req.body) > 1024
            ),
            413,
            "MB-STATUS-3",
        ),
    ),
)
