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
- `field-order`: the field lines in reverse order, lines of one name kept in their order
  (RFC 9110 §5.3: "The order in which field lines with differing field names are received in a
  section is not significant");
- `whitespace`: no space, or a space and a tab, around each value (RFC 9112 §5.1: the
  optional whitespace before and after a field value is not part of it);
- `media-type-spelling`: the batch's `Content-Type` as `Multipart/Mixed;BOUNDARY="..."` (spec
  3.1.1: "Media type names and parameter names are case-insensitive (RFC 9110 §8.3.1)", and the
  boundary is a token or a quoted-string; RFC 9110 §5.6.6 lets OWS before the `;` go);
- `part-field-name-case`: every part's field names in lower or upper case, part by part (spec
  3.2.1: "Field names, by contrast, are case-insensitive"); the content keeps its length and
  every octet's offset, so a problem's `byte_offset` points where it did;
- `chunked`: a POST's content framed by the chunked transfer coding in place of
  `Content-Length` (MB-INTER-5: a server "MUST accept batch request content framed by the chunked transfer
  coding (RFC 9112 §7.1) and answer it as it answers the same content framed by
  `Content-Length`").

Only a request `connections.keeps` calls plainly framed is rewritten, and only one whose Host
field names the authority the rewrite was given: a request made odd on purpose, or naming
another host, says what it tests by its spelling and is sent as written. `variant_for` picks
the variant from the run's seed, a key (the check) and the request's position, so that a
check replayed sends the same octets. The module is pure: bytes in, bytes out.
"""

from __future__ import annotations

import hashlib
import re

from mixbatch_conformance.transport.connections import keeps

__all__ = ["MAX_CHUNKED_CONTENT", "PLAIN_SLOTS", "VARIANTS", "rewrite", "variant_for"]

#: The rewrites, in the order `variant_for` numbers them.
VARIANTS = (
    "absolute-form",
    "field-name-case",
    "field-order",
    "whitespace",
    "media-type-spelling",
    "part-field-name-case",
    "chunked",
)
#: Of every len(VARIANTS) + PLAIN_SLOTS requests, about PLAIN_SLOTS go as written: half.
PLAIN_SLOTS = len(VARIANTS)
#: Content larger than this keeps its Content-Length: a limit check's early refusal is
#: judged on the framing it chose.
MAX_CHUNKED_CONTENT = 16 * 1024

_FIELD = re.compile(rb"([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*")
_NAME = re.compile(rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+(?=:)")
#: The batch media type as the suite writes it: the only spelling `media-type-spelling` rewrites.
_PLAIN_BATCH_TYPE = re.compile(rb"multipart/mixed; boundary=([0-9A-Za-z'()+_,./:=?-]{1,70})")


def variant_for(seed: int, key: str, position: int) -> str | None:
    """The variant of the `position`-th request of `key` in a run with `seed` (None: as written)."""
    digest = hashlib.sha256(f"{seed}\0{key}\0{position}".encode()).digest()
    slot = int.from_bytes(digest[:4], "big") % (len(VARIANTS) + PLAIN_SLOTS)
    return VARIANTS[slot] if slot < len(VARIANTS) else None


def rewrite(variant: str, request: bytes, scheme: str, authority: str) -> bytes | None:
    """`request` in `variant`'s form, or None when the variant does not apply to it."""
    if not keeps(request):
        return None
    head, _, body = request.partition(b"\r\n\r\n")
    line, *lines = head.split(b"\r\n")
    fields = [_split(f) for f in lines]
    hosts = [v for n, v in fields if n.lower() == b"host"]
    if len(hosts) != 1 or hosts[0].lower() != authority.lower().encode("latin-1"):
        return None
    method, target, version = line.split(b" ")
    if not target.startswith(b"/"):
        return None
    if variant == "absolute-form":
        line = b" ".join((method, f"{scheme}://{authority}".encode("latin-1") + target, version))
    elif variant == "field-name-case":
        upper = len(head) % 2 == 1
        fields = [(n.upper() if upper else n.lower(), v) for n, v in fields]
    elif variant == "field-order":
        fields = _reversed_by_name(fields)
    elif variant == "whitespace":
        lines = [
            n + b":" + (v if i % 2 else b" \t" + v + b"\t ") for i, (n, v) in enumerate(fields)
        ]
        return _join(line, lines, body)
    elif variant == "media-type-spelling":
        spelt = [_respelt(n, v) for n, v in fields]
        if spelt == fields:
            return None
        fields = spelt
    elif variant == "part-field-name-case":
        cased = _part_names_cased(fields, body)
        if cased is None:
            return None
        body = cased
    elif variant == "chunked":
        # MB-INTER-5 speaks of batch request content: a POST's. Content on another method
        # is refused by its head or its content, which framing may decide.
        if method != b"POST" or not body or len(body) > MAX_CHUNKED_CONTENT:
            return None
        fields = [(n, v) for n, v in fields if n.lower() != b"content-length"]
        fields.append((b"Transfer-Encoding", b"chunked"))
        body = _chunked(body)
    else:
        raise ValueError(f"unknown request variant {variant!r}")
    return _join(line, [n + b": " + v for n, v in fields], body)


def _split(field_line: bytes) -> tuple[bytes, bytes]:
    m = _FIELD.fullmatch(field_line)
    if m is None:  # keeps() admitted it, so it matches
        raise ValueError(f"not a field line: {field_line!r}")
    return m.group(1), m.group(2)


def _respelt(name: bytes, value: bytes) -> tuple[bytes, bytes]:
    m = _PLAIN_BATCH_TYPE.fullmatch(value)
    if name.lower() != b"content-type" or m is None:
        return name, value
    return name, b'Multipart/Mixed;BOUNDARY="' + m.group(1) + b'"'


def _part_names_cased(fields: list[tuple[bytes, bytes]], body: bytes) -> bytes | None:
    """`body` with the first part's field names in lower case, the second's in upper, and so on,
    octet for octet as long; None when the content is not a plainly written batch."""
    types = [v for n, v in fields if n.lower() == b"content-type"]
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
        head, sep, rest = pieces[i][2:].partition(b"\r\n\r\n")
        lines = [_cased(line, upper=i % 2 == 0) for line in head.split(b"\r\n")]
        pieces[i] = b"\r\n" + b"\r\n".join(lines) + sep + rest
    cased = delimiter.join(pieces)[2:]
    return cased if cased != body and len(cased) == len(body) else None


def _cased(field_line: bytes, *, upper: bool) -> bytes:
    m = _NAME.match(field_line)
    if m is None:
        return field_line
    name = m.group(0).upper() if upper else m.group(0).lower()
    return name + field_line[m.end() :]


def _reversed_by_name(fields: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """Field lines in reverse order of first appearance, lines of one name kept together in
    their order (combining them is what RFC 9110 §5.3 allows a recipient to do)."""
    names: list[bytes] = []
    for n, _ in fields:
        if n.lower() not in names:
            names.append(n.lower())
    return [(n, v) for name in reversed(names) for n, v in fields if n.lower() == name]


def _chunked(body: bytes) -> bytes:
    """`body` as three chunks or fewer and the last chunk (RFC 9112 §7.1)."""
    size = max(1, -(-len(body) // 3))
    out = bytearray()
    for start in range(0, len(body), size):
        chunk = body[start : start + size]
        out += f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
    return bytes(out + b"0\r\n\r\n")


def _join(line: bytes, lines: list[bytes], body: bytes) -> bytes:
    return b"\r\n".join((line, *lines)) + b"\r\n\r\n" + body
