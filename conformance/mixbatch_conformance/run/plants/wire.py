"""Planted violations of the envelope requirements (spec 3.1: MB-WIRE-*).

Each entry is one way a server breaks one requirement: a validation it lacks (it accepts
what it must refuse), a refusal of what it must accept, or framing it writes wrongly. The
batch endpoint's answers to methods other than POST and to GET with content (MB-METHOD-2,
MB-METHOD-3) are planted here too, next to the envelope they stand in for. The grammar of the
part header section is in plants.part_grammar, and the problem documents in plants.problems.
The batch request's own list fields (Batch-Mode, Accept) read from one field line only, the
first or the last, are planted here too: the server sees the other lines removed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from mixbatch_conformance.run.mutations import Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    Part,
    Pred,
    RespEdit,
    accepts,
    body_has,
    boundary_of,
    header_has,
    is_batch,
    map_parts,
    parts_of,
    problem,
    refuses,
    without_field,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]


def _ctype(pattern: str) -> Pred:
    return header_has("Content-Type", pattern)


def _rebound(new: str, *, quote: bool = True) -> RespEdit:
    """A server whose response boundary is `new` (written on both the field and the body),
    quoted in Content-Type where a token cannot hold it, or never when `quote` is false."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        b = boundary_of(resp)
        parts = parts_of(resp.body, b) if b else None
        if not b or parts is None or not is_batch(req):
            return
        special = re.search(r"[^A-Za-z0-9_\-'+.]", new)
        quoted = f'"{new}"' if quote and special else new
        resp.headers = [
            (n, f"multipart/mixed; boundary={quoted}" if n.lower() == "content-type" else v)
            for n, v in resp.headers
        ]
        resp.body = write_parts(parts, new)

    return edit


def _fixed_boundary(req: RelayRequest, resp: RelayResponse) -> None:
    _rebound("plant-one-boundary-for-every-response")(req, resp)


def _epilogue(req: RelayRequest, resp: RelayResponse) -> None:
    if boundary_of(resp) and is_batch(req):
        resp.body += b"\r\nplanted epilogue\r\n"


def _drop_length(parts: list[Part]) -> list[Part]:
    return [(without_field(f, "Content-Length"), b) for f, b in parts]


def _short_length(parts: list[Part]) -> list[Part]:
    out = []
    for f, b in parts:
        if b:
            f = [(n, str(len(b) - 1) if n.lower() == "content-length" else v) for n, v in f]
        out.append((f, b))
    return out


def _get_refused_400(req: RelayRequest, resp: RelayResponse) -> None:
    """A server that answers every GET on the batch endpoint 400, as if it had content."""
    if req.method == "GET" and resp.status == 405:
        resp.status = 400


def _allow_post_only(req: RelayRequest, resp: RelayResponse) -> None:
    """A server whose 405 names POST alone, leaving out the OPTIONS it answers."""
    if resp.status == 405:
        resp.set("Allow", "POST")


def _chunked_get_content_unseen(req: RelayRequest) -> None:
    """A server that sees content on a GET only through Content-Length."""
    if req.method == "GET" and req.get("Transfer-Encoding"):
        req.body = b""


def _get_content_run(req: RelayRequest, resp: RelayResponse) -> None:
    """A server that answers a GET with content on the batch endpoint as if it had none, 200."""
    if req.method == "GET" and req.body and resp.status in (400, 405):
        resp.status = 200


def _bare_lf_blank_line(req: RelayRequest, resp: RelayResponse) -> None:
    b = boundary_of(resp)
    if b and is_batch(req):
        resp.body = re.sub(rb"(Content-Length: [0-9]+)\r\n\r\n", rb"\1\r\n\n", resp.body)


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


def _one_line_of(name: str, keep: int) -> Callable[[RelayRequest], None]:
    """A server that reads field `name` from one of its field lines only (0 first, -1 last)."""

    def edit(req: RelayRequest) -> None:
        lines = [(n, v) for n, v in req.headers if n.lower() == name.lower()]
        if len(lines) > 1:
            req.headers = [(n, v) for n, v in req.headers if n.lower() != name.lower()]
            req.headers.append(lines[keep])

    return edit


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
    # MB-WIRE-2: 415 with Accept-Post for a media type other than multipart/mixed.
    P(
        "media-type-unchecked",
        "MB-WIRE-2 accepts text/plain",
        ("reject-media-type-text-plain",),
        on_response=accepts(_ctype(r"^text/plain")),
    ),
    P(
        "form-data-taken-for-mixed",
        "MB-WIRE-2 accepts multipart/form-data",
        ("reject-media-type-form-data",),
        on_response=accepts(_ctype(r"form-data")),
    ),
    P(
        "absent-media-type-answered-400",
        "MB-WIRE-2 no Content-Type",
        ("reject-media-type-absent",),
        on_response=refuses(lambda r: r.method == "POST" and r.get("Content-Type") is None, 400),
    ),
    P(
        "accept-post-names-a-longer-type",
        "MB-WIRE-2 Accept-Post",
        ("reject-media-type-text-plain",),
        on_response=lambda q, r: (
            r.set("Accept-Post", "multipart/mixed-batch") if r.status == 415 else None
        ),
    ),
    P(
        "wrong-media-type-answered-400",
        "MB-WIRE-2 status",
        ("reject-media-type-text-plain",),
        on_response=refuses(_ctype(r"^text/plain"), 400),
    ),
    # MB-WIRE-4: "MUST NOT refuse a batch request for a boundary that MB-WIRE-3 allows,
    # whatever its length from 1 to 70, its bchars ... and its spelling as a token or a
    # quoted-string".
    P(
        "seventy-char-boundary-refused",
        "MB-WIRE-4 70 characters",
        ("accept-boundary-seventy-chars",),
        on_response=refuses(_ctype(r"boundary=[^;]{70}$")),
    ),
    P(
        "one-char-boundary-refused",
        "MB-WIRE-4 one character",
        ("accept-boundary-one-char",),
        on_response=refuses(_ctype(r"boundary=q$")),
    ),
    P(
        "quoted-boundary-refused",
        "MB-WIRE-4 quoted specials",
        ("accept-boundary-quoted-specials",),
        on_response=refuses(_ctype(r'boundary="[^"]*[()+,./:=?][^"]*"')),
    ),
    P(
        "boundary-recommended-alphabet-only",
        "MB-WIRE-4 bchars outside the recommended alphabet",
        (
            "accept-boundary-quoted-equals",
            "accept-boundary-quoted-colon",
            "accept-boundary-token-plus",
        ),
        on_response=refuses(_ctype(r'boundary="?[^";]*[^A-Za-z0-9_"; -]')),
    ),
    P(
        "boundary-inner-space-refused",
        "MB-WIRE-4 inner space",
        ("accept-boundary-quoted-space", "accept-boundary-leading-space"),
        on_response=refuses(_ctype(r'boundary="[^"]* [^"]*"')),
    ),
    P(
        "boundary-quoted-pair-kept",
        "MB-WIRE-4 quoted-pair not unescaped",
        ("accept-boundary-quoted-pair",),
        on_response=refuses(_ctype(r'boundary="[^"]*\\')),
    ),
    P(
        "boundary-escaped-dquote-accepted",
        "MB-WIRE-4 escaped double quote",
        ("reject-boundary-quoted-pair-dquote",),
        on_response=accepts(_ctype(r'boundary="[^"]*\\"')),
    ),
    P(
        "token-boundary-with-token-specials-refused",
        "MB-WIRE-4 token spelling",
        ("accept-boundary-token-apostrophe", "accept-boundary-token-period"),
        on_response=refuses(_ctype(r"boundary=[^\"; ]*['.]")),
    ),
    P(
        "response-boundary-over-long",
        "MB-WIRE-3 sender length",
        ("response-boundary-valid",),
        on_response=_rebound("b" * 75),
    ),
    P(
        "response-boundary-slash-unquoted",
        "MB-WIRE-3 sender quoting",
        ("response-boundary-valid",),
        on_response=_rebound("plant/unquoted/boundary0123", quote=False),
    ),
    # MB-WIRE-4: an invalid boundary parameter is 400.
    P(
        "missing-boundary-accepted",
        "MB-WIRE-4 missing",
        ("reject-boundary-missing",),
        on_response=accepts(_ctype(r"^multipart/mixed$")),
    ),
    P(
        "empty-boundary-accepted",
        "MB-WIRE-4 empty",
        ("reject-boundary-empty",),
        on_response=accepts(_ctype(r'boundary=""')),
    ),
    P(
        "long-boundary-accepted",
        "MB-WIRE-4 over-long",
        ("reject-boundary-seventy-one-chars",),
        on_response=accepts(_ctype(r"boundary=[^;]{71}")),
    ),
    P(
        "trailing-space-boundary-accepted",
        "MB-WIRE-4 trailing space",
        ("reject-boundary-trailing-space",),
        on_response=accepts(_ctype(r' "$')),
    ),
    P(
        "bad-char-boundary-accepted",
        "MB-WIRE-4 character outside bchars",
        ("reject-boundary-bad-char",),
        on_response=accepts(_ctype(r"@")),
    ),
    # MB-WIRE-5: a fresh boundary of 16+ safe characters for each response.
    P(
        "one-boundary-for-server-lifetime",
        "MB-WIRE-5 reuse",
        ("response-boundary-choice",),
        caught_by=("WARN", "FAIL"),
        on_response=_fixed_boundary,
    ),
    P(
        "short-response-boundary",
        "MB-WIRE-5 length",
        ("response-boundary-choice",),
        caught_by=("WARN", "FAIL"),
        on_response=_rebound("short"),
    ),
    P(
        "response-boundary-base64-alphabet",
        "MB-WIRE-5 alphabet",
        ("response-boundary-choice",),
        caught_by=("WARN", "FAIL"),
        on_response=_rebound("plant+base64/boundary0123", quote=False),
    ),
    # MB-WIRE-7: CRLF everywhere the sender writes a line.
    P(
        "bare-lf-blank-line-in-output",
        "MB-WIRE-7 blank line",
        ("response-framing-strict",),
        on_response=_bare_lf_blank_line,
    ),
    # MB-WIRE-8: bare LF or CR as a line terminator is rejected.
    P(
        "bare-lf-after-delimiter-accepted",
        "MB-WIRE-8 after delimiter",
        ("reject-bare-lf-after-delimiter",),
        on_response=accepts(body_has(rb"^--[^\r\n]*\n")),
    ),
    P(
        "bare-lf-in-part-header-accepted",
        "MB-WIRE-8 part header",
        ("reject-bare-lf-in-part-header",),
        on_response=accepts(body_has(rb"GET\nContent-Id")),
    ),
    P(
        "bare-lf-blank-line-accepted",
        "MB-WIRE-8 blank line",
        ("reject-bare-lf-blank-line",),
        on_response=accepts(body_has(rb">\r\n\n")),
    ),
    P(
        "bare-cr-accepted",
        "MB-WIRE-8 bare CR",
        ("reject-bare-cr-in-part-header",),
        on_response=accepts(body_has(rb"GET\rContent-Id")),
    ),
    P(
        "lf-only-message-accepted",
        "MB-WIRE-8 LF throughout",
        ("reject-lf-only-message",),
        on_response=accepts(body_has(rb"\n\n\n--")),
    ),
    P(
        "bare-lf-in-body-refused",
        "MB-WIRE-8 body data",
        ("accept-body-with-bare-lf",),
        on_response=refuses(body_has(rb"a\nb\nc\n")),
    ),
    # MB-WIRE-9: preamble and epilogue are ignored.
    P(
        "preamble-refused",
        "MB-WIRE-9 preamble",
        ("accept-preamble-and-epilogue",),
        on_response=refuses(body_has(rb"^This preamble")),
    ),
    P(
        "epilogue-refused",
        "MB-WIRE-9 epilogue",
        ("accept-preamble-and-epilogue",),
        on_response=refuses(body_has(rb"This epilogue is ignored")),
    ),
    # MB-WIRE-10: no preamble or epilogue in output.
    P(
        "epilogue-sent",
        "MB-WIRE-10 epilogue",
        ("response-framing-strict",),
        caught_by=("WARN", "FAIL"),
        on_response=_epilogue,
    ),
    # MB-WIRE-11: transport padding accepted.
    P(
        "transport-padding-refused",
        "MB-WIRE-11",
        ("accept-transport-padding",),
        on_response=refuses(body_has(rb"^--[^\r\n]*[ \t]\r\n")),
    ),
    # MB-WIRE-13: no close delimiter is 400.
    P(
        "unclosed-body-accepted",
        "MB-WIRE-13",
        (
            "reject-missing-close-delimiter",
            "reject-unclosed-after-dash-boundary",
            "reject-unclosed-after-one-hyphen",
            "reject-unclosed-after-transport-padding",
            "reject-unclosed-after-delimiter-line",
            "reject-unclosed-inside-part-header",
            "reject-unclosed-inside-part-body",
        ),
        on_response=accepts(lambda r: is_batch(r) and not r.body.rstrip().endswith(b"--")),
    ),
    P(
        "dash-boundary-at-end-taken-as-close",
        "MB-WIRE-13 after a dash-boundary",
        ("reject-unclosed-after-dash-boundary", "reject-unclosed-after-transport-padding"),
        on_response=accepts(body_has(rb"\r\n--[^\r\n]*[^\r\n \t-][ \t]*\Z")),
    ),
    P(
        "one-hyphen-taken-as-close",
        "MB-WIRE-13 after one hyphen",
        ("reject-unclosed-after-one-hyphen",),
        on_response=accepts(body_has(rb"\r\n--[^\r\n]*[^-]-\Z")),
    ),
    P(
        "delimiter-line-at-end-taken-as-close",
        "MB-WIRE-13 after a delimiter line",
        ("reject-unclosed-after-delimiter-line",),
        on_response=accepts(body_has(rb"\r\n--[^\r\n]*[^-\r\n]\r\n\Z")),
    ),
    P(
        "cut-short-part-dropped",
        "MB-WIRE-13 inside a part",
        ("reject-unclosed-inside-part-header", "reject-unclosed-inside-part-body"),
        on_response=accepts(body_has(rb"\n[^-\r\n][^\r\n]*\Z")),
    ),
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
    # MB-WIRE-18: at least one part.
    P(
        "empty-batch-after-preamble-accepted",
        "MB-WIRE-18 close delimiter after a preamble",
        ("reject-empty-batch-after-preamble", "reject-empty-batch-padded-close"),
        on_response=accepts(
            lambda r: (
                is_batch(r)
                and re.fullmatch(rb"(?s)[^-]?.*?--[^\r\n]*--[ \t]*\r\n", r.body) is not None
                and r.body.count(b"--") == 2
            )
        ),
    ),
    P(
        "empty-batch-accepted",
        "MB-WIRE-18 close delimiter only",
        ("reject-empty-batch",),
        on_response=accepts(
            lambda r: is_batch(r) and r.body.startswith(b"--") and r.body.count(b"--") == 2
        ),
    ),
    P(
        "empty-content-accepted",
        "MB-WIRE-18 no content",
        ("reject-empty-content",),
        on_response=accepts(lambda r: r.method == "POST" and not r.body),
    ),
    # MB-WIRE-19: text after the dash-boundary is rejected.
    P(
        "text-after-first-boundary-accepted",
        "MB-WIRE-19 first delimiter",
        ("reject-text-after-boundary",),
        on_response=accepts(body_has(rb"trailing-text")),
    ),
    P(
        "text-after-later-boundary-accepted",
        "MB-WIRE-19 later delimiter",
        ("reject-text-after-later-boundary",),
        on_response=accepts(body_has(rb"\r\n--[^\r\n]*X\r\n")),
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
    # MB-WIRE-21: a header section followed directly by the next delimiter.
    P(
        "bodyless-part-refused",
        "MB-WIRE-21",
        ("accept-part-without-blank-body-line",),
        on_response=refuses(body_has(rb">\r\n\r\n--")),
    ),
    # MB-METHOD-2: every method the endpoint does not support is 405, with an Allow naming
    # POST and, when OPTIONS gives the capabilities document, OPTIONS.
    P(
        "get-without-content-answered-400",
        "MB-METHOD-2 GET",
        ("method-not-allowed",),
        on_response=_get_refused_400,
    ),
    P(
        "allow-without-options",
        "MB-METHOD-2 OPTIONS in Allow",
        ("method-not-allowed",),
        on_response=_allow_post_only,
    ),
    # MB-METHOD-3: content on a GET is content however it is framed.
    P(
        "chunked-get-content-unseen",
        "MB-METHOD-3 chunked",
        ("collection-get-with-content",),
        on_request=_chunked_get_content_unseen,
    ),
    P(
        "batch-endpoint-get-content-answered",
        "MB-METHOD-3 batch endpoint",
        ("batch-endpoint-get-with-content",),
        on_response=_get_content_run,
    ),
    # MB-WIRE-2: media type and parameter names are case-insensitive; the type is exact.
    P(
        "media-type-case-sensitive",
        "MB-WIRE-2 case of the media type",
        ("accept-media-type-mixed-case", "accept-media-type-upper-case"),
        on_response=refuses(_ctype(r"^(?!multipart/mixed)(?i:multipart/mixed)"), 415, "MB-WIRE-2"),
    ),
    P(
        "media-type-prefix-match",
        "MB-WIRE-2 prefix of the media type",
        ("reject-media-type-mixed-prefix", "reject-media-type-mixed-suffix-subtype"),
        on_response=accepts(_ctype(r"^multipart/mixed[^;\s]")),
    ),
    P(
        "multipart-mixed-by-substring",
        "MB-WIRE-2 any multipart subtype containing mixed",
        ("reject-media-type-x-mixed-replace", "reject-media-type-x-mixed"),
        on_response=accepts(_ctype(r"^multipart/[^;\s]*mixed")),
    ),
    P(
        "any-multipart-taken",
        "MB-WIRE-2 any multipart subtype",
        (
            "reject-media-type-alternative",
            "reject-media-type-digest",
            "reject-media-type-parallel",
            "reject-media-type-related-type-mixed",
        ),
        on_response=accepts(_ctype(r"^multipart/(alternative|digest|parallel|related)")),
    ),
    P(
        "mixed-subtype-any-type",
        "MB-WIRE-2 subtype mixed under another type",
        ("reject-media-type-application-mixed",),
        on_response=accepts(_ctype(r"^application/mixed")),
    ),
    P(
        "boundary-parameter-name-case-sensitive",
        "MB-WIRE-2 case of the parameter name",
        ("accept-boundary-parameter-name-mixed-case", "accept-media-type-upper-case"),
        on_response=refuses(_ctype(r"(?-i:Boundary|BOUNDARY)=")),
    ),
    # MB-WIRE-4: exactly one boundary parameter, of bchars only.
    P(
        "repeated-boundary-first-wins",
        "MB-WIRE-4 repeated",
        (
            "reject-boundary-repeated",
            "reject-boundary-repeated-last-used",
            "reject-boundary-repeated-same-value",
            "reject-boundary-repeated-other-case",
            "reject-boundary-repeated-quoted",
        ),
        on_response=accepts(_ctype(r"(?i)boundary=.*;\s*boundary=")),
    ),
    P(
        "boundary-octets-unchecked",
        "MB-WIRE-4 HTAB or obs-text",
        ("reject-boundary-octet-htab", "reject-boundary-octet-obs-text"),
        on_response=accepts(_ctype(r'boundary="[^"]*[^\x20-\x7e"]')),
    ),
    # MB-WIRE-9: delimiter text that is not a delimiter line is preamble or epilogue.
    P(
        "boundary-in-preamble-refused",
        "MB-WIRE-9 dash-boundary mid-line in the preamble",
        (
            "accept-dash-boundary-mid-line-in-preamble",
            "accept-close-delimiter-mid-line-in-preamble",
            "accept-dash-boundary-after-bare-cr-in-preamble",
        ),
        on_response=refuses(body_has(rb"\A[^\r\n-][^\n]*--")),
    ),
    P(
        "epilogue-read-for-parts",
        "MB-WIRE-9 delimiter text in the epilogue",
        ("accept-delimiter-lines-in-epilogue", "accept-dash-boundary-mid-line-in-epilogue"),
        on_response=refuses(body_has(rb"[^-]--\r\n[^\r\n]*--[!-~]")),
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
    # MB-PROC-17 / MB-MULTI-1: field lines of one name are one list (RFC 9110 5.3).
    P(
        "batch-mode-first-line-only",
        "MB-PROC-17 the first Batch-Mode line only",
        ("batch-mode-read-as-list",),
        on_request=_one_line_of("Batch-Mode", 0),
    ),
    P(
        "batch-mode-last-line-only",
        "MB-PROC-17 the last Batch-Mode line only",
        ("batch-mode-read-as-list",),
        on_request=_one_line_of("Batch-Mode", -1),
    ),
    P(
        "accept-first-line-only",
        "MB-MULTI-1 the first Accept line only",
        ("accept-quality-values",),
        on_request=_one_line_of("Accept", 0),
    ),
    P(
        "accept-last-line-only",
        "MB-MULTI-1 the last Accept line only",
        ("accept-quality-values",),
        on_request=_one_line_of("Accept", -1),
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
