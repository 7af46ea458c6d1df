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
  `Content-Length`");
- `list-lines`: each field of `LIST_FIELDS` whose line holds two or more members split into one
  field line per member, in order, where the line was (RFC 9110 §5.3: "A recipient MAY combine
  multiple field lines within a field section that have the same field name into one field line,
  without changing the semantics of the message, by appending each subsequent field line value
  to the initial field line value in order, separated by a comma (",") and optional whitespace";
  the split is that combination undone, so both spellings are the same field). A member ends
  only at a comma outside a quoted-string (RFC 9110 §5.6.4), or for an entity-tag outside its
  quotes (§8.8.3), so `Prefer: x="a,b"` and `If-Match: "a,b"` are one member each;
- `list-spelling`: the same fields' lines with an empty element before the first member and
  after the last and optional whitespace varied around each comma, as in `Accept: , a ,b ,`
  (RFC 9110 §5.6.1.2: "a recipient MUST accept lists that satisfy the following syntax:
  `#element => [ element ] *( OWS "," OWS [ element ] )`", and "MUST parse and ignore a
  reasonable number of empty list elements"; MB-PROC-17 reads `Batch-Mode` so);
- `parameter-spelling`: the batch's `Content-Type` as `multipart/mixed ;; boundary=B ;`, and
  each media range of `Accept` with whitespace before its first `;`, two empty parameters and,
  when it has no weight, a trailing `;` (spec 3.1.1: "An empty parameter is no fault:
  `parameters = *( OWS ";" OWS [ parameter ] )`, so `multipart/mixed;;boundary=b1` and a
  trailing `;` are valid"; RFC 9110 §12.5.1 builds a media range from `type "/" subtype
  parameters` and puts its `weight = OWS ";" OWS "q=" qvalue` last, so no `;` follows a
  weight).

The three that respell values touch only the request's own header section, never a batch's
content, so every `byte_offset` stays where it was. A value that is not a plain list (an empty
element, a quote left open, `*` in `If-Match`) or a media range whose parameters already hold an
empty one was written so on purpose and keeps its octets; a request with nothing to respell
goes as written.

A request other than a batch goes only in the variants HTTP makes the same for every request
(`ANY_REQUEST_VARIANTS`): the echo resource reports the field lines it received (MB-TEST-2) and
checks compare those octet for octet (spec 3.2.4), so a variant that changes lines or values
(`field-order`, `VALUE_VARIANTS`) goes only on a batch, whose own header fields no part sees
(MB-SUB-6). Only a request `connections.keeps` calls plainly framed is rewritten,
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
    "LIST_FIELDS",
    "MAX_CHUNKED_CONTENT",
    "PLAIN_SLOTS",
    "VALUE_VARIANTS",
    "VARIANTS",
    "field_view",
    "list_members",
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
    "list-lines",
    "list-spelling",
    "parameter-spelling",
)
#: The variants that respell field values of the request's own header section.
VALUE_VARIANTS = ("list-lines", "list-spelling", "parameter-spelling")
#: The variants that are the same request whatever the request: a request other than a batch
#: goes only in these. The others speak of a batch's content, or of field order, lines and
#: values, which the echo resource reports as received (MB-TEST-2: header fields "in the order
#: received") and checks compare octet for octet (spec 3.2.4).
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

#: The request fields the suite sends whose value is a list (RFC 9110 §5.6.1's `#` rule), by
#: their grammar: `Accept`, `Accept-Charset`, `Accept-Encoding`, `Accept-Language` (RFC 9110
#: §12.5), `Cache-Control` (RFC 9111 §5.2), `Content-Encoding` (RFC 9110 §8.4), `If-Match` and
#: `If-None-Match` (RFC 9110 §13.1.1, §13.1.2), `Prefer` (RFC 7240 §2) and `Batch-Mode` (spec
#: section 9: `1#mode-value`). Left out: fields that are no list (`Content-Type`, `Host`,
#: `Content-Length`, dates, `Authorization`, `Cookie`, `Range`), the connection and framing
#: fields, which a plainly framed request does not carry (transport.connections.keeps), and
#: lists whose members may hold a comma outside a quoted-string (`Via`'s comments, `Link`'s
#: URI references).
LIST_FIELDS = frozenset(
    {
        b"accept",
        b"accept-charset",
        b"accept-encoding",
        b"accept-language",
        b"batch-mode",
        b"cache-control",
        b"content-encoding",
        b"if-match",
        b"if-none-match",
        b"prefer",
    }
)
#: The list fields whose members are entity-tags: an opaque-tag is quoted but knows no
#: quoted-pair, so a backslash in it is an octet like any other (RFC 9110 §8.8.3).
_TAG_FIELDS = frozenset({b"if-match", b"if-none-match"})
#: One entity-tag (RFC 9110 §8.8.3): what a member of `_TAG_FIELDS` must be to be respelt (the
#: other form of those fields, `*`, is no list).
_ENTITY_TAG = re.compile(rb'(?:W/)?"[\x21\x23-\x7e\x80-\xff]*"')
#: A media range's type and subtype (RFC 9110 §12.5.1), before its parameters.
_MEDIA_RANGE = re.compile(rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+/[!#$%&'*+.^_`|~0-9A-Za-z-]+")
#: A weight's name: the parameter that ends a media range (RFC 9110 §12.4.2).
_WEIGHT = re.compile(rb"[qQ]=")
#: The whitespace of OWS (RFC 9110 §5.6.3).
_OWS = b" \t"
#: The separators `list-spelling` writes between members, in turn: OWS before, after and on
#: both sides of the comma.
_LIST_SEPARATORS = (b" ,", b",\t", b" , ")

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
    elif variant in VALUE_VARIANTS:
        respelt = _values_respelt(variant, fields)
        if respelt is None:
            return None
        fields = respelt
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


def list_members(value: bytes, *, tags: bool = False) -> list[bytes] | None:
    """The elements of a list field's value (RFC 9110 §5.6.1), OWS around each removed, empty
    ones kept as b""; None when a quoted-string is left open. A comma inside a quoted-string
    separates nothing (RFC 9110 §5.6.4); with `tags`, a quote is an entity-tag's, which has no
    quoted-pair (RFC 9110 §8.8.3)."""
    return _pieces(value, 0x2C, tags=tags)


def _pieces(value: bytes, separator: int, *, tags: bool = False) -> list[bytes] | None:
    """`value` split at each `separator` outside a quoted-string, OWS around each piece
    removed; None when a quoted-string is left open."""
    pieces: list[bytes] = []
    start, quoted, escaped = 0, False, False
    for i, c in enumerate(value):
        if escaped:
            escaped = False
        elif quoted and c == 0x5C and not tags:
            escaped = True
        elif c == 0x22:
            quoted = not quoted
        elif c == separator and not quoted:
            pieces.append(value[start:i].strip(_OWS))
            start = i + 1
    if quoted or escaped:
        return None
    pieces.append(value[start:].strip(_OWS))
    return pieces


def field_view(name: bytes, values: list[bytes]) -> tuple[bytes, ...]:
    """The field `name` whose lines carry `values`, as the value variants leave it unchanged:
    for a field of `LIST_FIELDS`, its members with the lines combined in order (RFC 9110 §5.3)
    and the empty elements and the OWS around each left out (§5.6.1.2), and for `Accept` and
    `Content-Type` each media type with the OWS around its `;` and its empty parameters left
    out (§5.6.6); any other field, or a list with a quote left open, its values as they are."""
    key = name.lower()
    if key not in LIST_FIELDS and key != b"content-type":
        return tuple(values)
    tags = key in _TAG_FIELDS
    members = list_members(b",".join(values), tags=tags) if key in LIST_FIELDS else values
    if members is None:
        return tuple(values)
    if key in (b"accept", b"content-type"):
        members = [_parameters_dropped(m) for m in members]
    return tuple(m for m in members if m)


def _parameters_dropped(media_type: bytes) -> bytes:
    """`media_type` with the OWS around each `;` and its empty parameters left out."""
    pieces = _pieces(media_type, 0x3B)
    if pieces is None:
        return media_type
    return b";".join(p for i, p in enumerate(pieces) if p or i == 0)


def _plain_members(f: _Line) -> list[bytes] | None:
    """The members of `f` when it is a field of `LIST_FIELDS` written as a plain list: no
    empty element, no quote left open, and for `If-Match` and `If-None-Match` entity-tags
    only; None otherwise."""
    if f.key not in LIST_FIELDS:
        return None
    tags = f.key in _TAG_FIELDS
    members = list_members(f.value, tags=tags)
    if not members or not all(members):
        return None
    if tags and not all(_ENTITY_TAG.fullmatch(m) for m in members):
        return None
    return members


def _values_respelt(variant: str, fields: list[_Line]) -> list[_Line] | None:
    """`fields` with the values `variant` respells respelt, or None when none is."""
    out: list[_Line] = []
    for f in fields:
        if variant == "list-lines":
            out += _split(f)
        elif variant == "list-spelling":
            out.append(_list_spelt(f))
        else:
            out.append(_parameters_spelt(f))
    return out if out != fields else None


def _value(f: _Line, value: bytes) -> _Line:
    return _Line(f.name + b": " + value, f.name, value)


def _split(f: _Line) -> list[_Line]:
    """One field line per member of a plain list of two or more, in order (RFC 9110 §5.3)."""
    members = _plain_members(f)
    if members is None or len(members) < 2:
        return [f]
    return [_value(f, m) for m in members]


def _list_spelt(f: _Line) -> _Line:
    """A plain list with an empty element at each end and OWS varied around the commas
    (RFC 9110 §5.6.1.2)."""
    members = _plain_members(f)
    if members is None:
        return f
    value = b", " + members[0]
    for i, m in enumerate(members[1:]):
        value += _LIST_SEPARATORS[i % len(_LIST_SEPARATORS)] + m
    return _value(f, value + b" ,")


def _parameters_spelt(f: _Line) -> _Line:
    """The batch media type as `multipart/mixed ;; boundary=B ;`, and each plain media range
    of a plain `Accept` with OWS before its first `;`, two empty parameters, and a trailing
    `;` unless it ends in a weight (spec 3.1.1, RFC 9110 §5.6.6, §12.5.1)."""
    if f.key == b"content-type":
        m = _PLAIN_BATCH_TYPE.fullmatch(f.value)
        if m is None:
            return f
        return _value(f, b"multipart/mixed ;; boundary=" + m.group(1) + b" ;")
    members = _plain_members(f) if f.key == b"accept" else None
    if members is None:
        return f
    spelt = [_range_spelt(m) for m in members]
    return _value(f, b", ".join(spelt)) if spelt != members else f


def _range_spelt(member: bytes) -> bytes:
    """One media range respelt, or as written when it is not `type/subtype` followed by
    parameters none of which is empty, a weight only last."""
    pieces = _pieces(member, 0x3B)
    if pieces is None or not _MEDIA_RANGE.fullmatch(pieces[0]):
        return member
    params = pieces[1:]
    if not all(params) or any(_WEIGHT.match(p) for p in params[:-1]):
        return member
    weighted = bool(params) and _WEIGHT.match(params[-1]) is not None
    spelt = pieces[0] + b" ;;" + b"".join(b"; " + p for p in params)
    return spelt if weighted else spelt + b";"


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
