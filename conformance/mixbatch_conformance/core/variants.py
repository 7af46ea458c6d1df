"""Request variants: one request rewritten in a form HTTP makes equivalent to the one written.

Theory of operation: a check writes its batch request one way, with the request-target in
origin-form, field names as the spec spells them, one space after each colon, Host first and
`Content-Length` framing. A server can handle exactly that spelling and break on another the
same rules allow, and such a fault shows only where the other spelling meets the rule it
breaks. So the suite sends a seeded share of its batch requests rewritten in one of these
forms, each one HTTP defines as the same request:

- `absolute-form`: the request-target as `scheme://authority/path?query` (RFC 9112 §3.2.2: "A
  server MUST accept the absolute-form in requests"; §3.3 builds the same target URI from it);
- `field-name-case`: every field name in lower or upper case (RFC 9110 §5.1: "Field names are
  case-insensitive");
- `field-order`: `Content-Length` first and `Host` last, every other field line keeping its
  place among the others (RFC 9110 §5.3: "The order in which field lines with differing field
  names are received in a section is not significant"; spec 3.2.4 compares sub-requests'
  fields as ordered lists, so the fields parts inherit keep their order);
- `whitespace`: no space, or a space and a tab, around each value (RFC 9112 §5.1: the
  optional whitespace before and after a field value is not part of it);
- `media-type-spelling`: the batch's `Content-Type` as `Multipart/Mixed;BOUNDARY="..."` (spec
  3.1.1: "Media type names and parameter names are case-insensitive (RFC 9110 §8.3.1)", and the
  boundary is a token or a quoted-string; RFC 9110 §5.6.6 lets OWS before the `;` go);
- `part-field-name-case`: every part's field names in lower or upper case, part by part (spec
  3.2.1: "Field names, by contrast, are case-insensitive"); the content keeps its length and
  every octet's offset, so a problem's `byte_offset` points where it did;
- `accept-multipart`: a batch POST without `Accept` given `Accept: multipart/mixed` (MB-MULTI-1:
  absent, or `multipart/mixed` ranked first, chooses the same representation);
- `http10`: a GET or HEAD sent as HTTP/1.0, Host kept (RFC 9110's semantics are the same in
  every version; only a request other than a batch goes so);
- `chunked`: a POST's content framed by the chunked transfer coding in place of
  `Content-Length` (MB-INTER-5: a server "MUST accept batch request content framed by the chunked transfer
  coding (RFC 9112 §7.1) and answer it as it answers the same content framed by
  `Content-Length`").

A request other than a batch goes only in the variants HTTP makes the same for every request
(`ANY_REQUEST_VARIANTS`). Only a request `connections.keeps` calls plainly framed is rewritten,
and only one whose Host field names the authority the rewrite was given: a request made odd
on purpose, or naming another host, says what it tests by its spelling and is sent as
written. `variant_for` picks the variant from the run's seed, a key (the check) and the
request's position, so that a check replayed sends the same octets. The module is pure: bytes in, bytes out.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from mixbatch_conformance.transport.connections import keeps

__all__ = [
    "ALONE_VARIANTS",
    "ANY_REQUEST_VARIANTS",
    "BATCH_VARIANTS",
    "MAX_CHUNKED_CONTENT",
    "PLAIN_SLOTS",
    "VARIANTS",
    "rewrite",
    "spellings",
    "variant_for",
]

#: The rewrites, in the order `variant_for` numbers them.
VARIANTS = (
    "absolute-form",
    "field-name-case",
    "field-order",
    "whitespace",
    "media-type-spelling",
    "part-field-name-case",
    "chunked",
    "accept-multipart",
    "http10",
)
#: The variants that are the same request whatever the request: a request other than a batch
#: goes only in these. The others speak of a batch's content, or of field order, which the
#: echo resource reports (MB-TEST-2: header fields "in the order received").
ANY_REQUEST_VARIANTS = ("absolute-form", "field-name-case", "whitespace")
#: The variants of a request other than a batch: those of any request, and HTTP/1.0 for a GET
#: or HEAD (RFC 9110's semantics do not depend on the version; a batch's answer does, since
#: HTTP/1.0 has no trailer section for Batch-Summary).
ALONE_VARIANTS = (*ANY_REQUEST_VARIANTS, "http10")
#: The variants of a batch request.
BATCH_VARIANTS = tuple(v for v in VARIANTS if v != "http10")
#: Of every len(VARIANTS) + PLAIN_SLOTS requests, about PLAIN_SLOTS go as written: half.
PLAIN_SLOTS = len(VARIANTS)
#: Content larger than this keeps its Content-Length: a limit check's early refusal is
#: judged on the framing it chose.
MAX_CHUNKED_CONTENT = 16 * 1024

_FIELD = re.compile(rb"([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*")
_NAME = re.compile(rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+(?=:)")
#: The batch media type as the suite writes it, its boundary of characters both a token's and a
#: boundary's (RFC 9110 §5.6.2, RFC 2046 §5.1.1): the only spelling the rewrites read, since one
#: whose boundary needs quoting is refused as written (MB-WIRE-3, MB-WIRE-4).
_PLAIN_BATCH_TYPE = re.compile(rb"multipart/mixed; boundary=([0-9A-Za-z'+_.-]{1,70})")
#: Fields `field-order` moves: those that frame the request. Every other field keeps its place
#: among the others, since spec 3.2.4 compares a sub-request's fields "as ordered lists of name
#: and value" and the inherited ones (MB-SUB-5) come from this section.
_FRAMING_FIELDS = (b"content-length", b"content-type", b"host")


@dataclass(frozen=True, slots=True)
class _Line:
    """One field line as written, with its name and value read."""

    raw: bytes
    name: bytes
    value: bytes

    @property
    def key(self) -> bytes:
        return self.name.lower()


def variant_for(seed: int, key: str, position: int) -> tuple[str, bool] | None:
    """The variant of the `position`-th request of `key` in a run with `seed`, and whether it
    is flipped (upper case for the case variants); None: as written."""
    digest = hashlib.sha256(f"{seed}\0{key}\0{position}".encode()).digest()
    slot = int.from_bytes(digest[:4], "big") % (len(VARIANTS) + PLAIN_SLOTS)
    return (VARIANTS[slot], bool(digest[4] & 1)) if slot < len(VARIANTS) else None


def rewrite(
    variant: str, request: bytes, scheme: str, authority: str, *, flip: bool = False
) -> bytes | None:
    """`request` in `variant`'s form, or None when the variant does not apply to it. `flip`
    chooses upper case over lower case for the case variants. Only what the variant names
    changes: every other line keeps its octets."""
    if not keeps(request):
        return None
    head, _, body = request.partition(b"\r\n\r\n")
    line, *raw_lines = head.split(b"\r\n")
    fields = [_read(f) for f in raw_lines]
    hosts = [f.value for f in fields if f.key == b"host"]
    if len(hosts) != 1 or hosts[0].lower() != authority.lower().encode("latin-1"):
        return None
    method, target, version = line.split(b" ")
    if not target.startswith(b"/"):
        return None
    if variant == "absolute-form":
        # The authority as the Host field spells it, which the target then replaces (RFC 9112
        # §3.2.2), so that what the server reports as the authority is the same octets.
        line = b" ".join((method, scheme.encode() + b"://" + hosts[0] + target, version))
    elif variant == "field-name-case":
        fields = [_recased(f, upper=flip) for f in fields]
    elif variant == "field-order":
        fields = _framing_moved(fields)
    elif variant == "whitespace":
        fields = [
            _Line(
                f.name + b":" + (f.value if i % 2 else b" \t" + f.value + b"\t "), f.name, f.value
            )
            for i, f in enumerate(fields)
        ]
    elif variant == "media-type-spelling":
        spelt = [_respelt(f) for f in fields]
        if spelt == fields:
            return None
        fields = spelt
    elif variant == "part-field-name-case":
        cased = _part_names_cased(fields, body, flip=flip)
        if cased is None:
            return None
        body = cased
    elif variant == "accept-multipart":
        # MB-MULTI-1: a server "MUST choose `multipart/mixed` when `Accept` is absent or
        # empty, or gives `multipart/mixed` a quality value at least as high as any other".
        if method != b"POST" or any(f.key == b"accept" for f in fields):
            return None
        fields.append(_Line(b"Accept: multipart/mixed", b"Accept", b"multipart/mixed"))
    elif variant == "http10":
        if method not in (b"GET", b"HEAD") or body:
            return None
        line = b" ".join((method, target, b"HTTP/1.0"))
    elif variant == "chunked":
        # MB-INTER-5 speaks of batch request content: a POST's. Content on another method
        # is refused by its head or its content, which framing may decide.
        if method != b"POST" or not body or len(body) > MAX_CHUNKED_CONTENT:
            return None
        fields = [f for f in fields if f.key != b"content-length"]
        fields.append(_Line(b"Transfer-Encoding: chunked", b"Transfer-Encoding", b"chunked"))
        body = _chunked(body)
    else:
        raise ValueError(f"unknown request variant {variant!r}")
    return b"\r\n".join((line, *(f.raw for f in fields))) + b"\r\n\r\n" + body


def spellings(variant: str, request: bytes, scheme: str, authority: str) -> dict[bytes, bool]:
    """Every distinct spelling of `request` in `variant` (both cases for the case variants),
    each with the `flip` that wrote it; empty when the variant does not apply."""
    out: dict[bytes, bool] = {}
    for flip in (False, True):
        rewritten = rewrite(variant, request, scheme, authority, flip=flip)
        if rewritten is not None:
            out.setdefault(rewritten, flip)
    return out


def _read(field_line: bytes) -> _Line:
    m = _FIELD.fullmatch(field_line)
    if m is None:  # keeps() admitted it, so it matches
        raise ValueError(f"not a field line: {field_line!r}")
    return _Line(field_line, m.group(1), m.group(2))


def _recased(f: _Line, *, upper: bool) -> _Line:
    name = f.name.upper() if upper else f.name.lower()
    return _Line(name + f.raw[len(f.name) :], name, f.value)


def _respelt(f: _Line) -> _Line:
    m = _PLAIN_BATCH_TYPE.fullmatch(f.value)
    if f.key != b"content-type" or m is None:
        return f
    value = b'Multipart/Mixed;BOUNDARY="' + m.group(1) + b'"'
    return _Line(f.name + b": " + value, f.name, value)


def _framing_moved(fields: list[_Line]) -> list[_Line]:
    """Content-Length first, then every other field in its order, then Content-Type, then Host
    (RFC 9110 §5.3: "The order in which field lines with differing field names are received in
    a section is not significant")."""
    first = [f for f in fields if f.key == b"content-length"]
    rest = [f for f in fields if f.key not in _FRAMING_FIELDS]
    last = [f for f in fields if f.key == b"content-type"] + [f for f in fields if f.key == b"host"]
    return first + rest + last


def _part_names_cased(fields: list[_Line], body: bytes, *, flip: bool) -> bytes | None:
    """`body` with the first part's field names in lower case (upper when `flip`), the
    second's in the other case, and so on, octet for octet as long; None when the content is
    not a plainly written batch."""
    types = [f.value for f in fields if f.key == b"content-type"]
    m = _PLAIN_BATCH_TYPE.fullmatch(types[0]) if len(types) == 1 else None
    if m is None:
        return None
    delimiter = b"\r\n--" + m.group(1)
    pieces = (b"\r\n" + body).split(delimiter)
    if pieces[0] != b"" or len(pieces) < 3:
        return None
    for i in range(1, len(pieces) - 1):
        if not pieces[i].startswith(b"\r\n"):
            return None
        if pieces[i].startswith(b"\r\n\r\n"):
            continue  # no header section: nothing to case
        head, sep, rest = pieces[i][2:].partition(b"\r\n\r\n")
        lines = [_cased(line, upper=(i % 2 == 0) != flip) for line in head.split(b"\r\n")]
        pieces[i] = b"\r\n" + b"\r\n".join(lines) + sep + rest
    cased = delimiter.join(pieces)[2:]
    return cased if cased != body and len(cased) == len(body) else None


def _cased(field_line: bytes, *, upper: bool) -> bytes:
    m = _NAME.match(field_line)
    if m is None:
        return field_line
    name = m.group(0).upper() if upper else m.group(0).lower()
    return name + field_line[m.end() :]


def _chunked(body: bytes) -> bytes:
    """`body` as three chunks or fewer and the last chunk (RFC 9112 §7.1)."""
    size = max(1, -(-len(body) // 3))
    out = bytearray()
    for start in range(0, len(body), size):
        chunk = body[start : start + size]
        out += f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
    return bytes(out + b"0\r\n\r\n")
