"""Header fields of a part: the ordered list type and the field-line grammar.

RFC 9110 §5 defines, and this module enforces for every part header line (MB-PART-11):

    field-line   = field-name ":" OWS field-value OWS
    field-name   = token
    token        = 1*tchar
    tchar        = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." /
                   "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA
    field-value  = *field-content
    field-content = field-vchar [ 1*( SP / HTAB / field-vchar ) field-vchar ]
    field-vchar  = VCHAR / obs-text

A line that starts with SP or HTAB is obs-fold, which the spec forbids outright. Values are
decoded as ISO-8859-1 so that obs-text octets survive a round trip unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from typing import overload

__all__ = [
    "FIELD_BLOCK",
    "FIELD_LINE",
    "FIELD_PAIRS",
    "TOKEN",
    "FieldPair",
    "Fields",
    "is_field_value",
    "is_token",
]

FieldPair = tuple[str, str]

_TCHAR = rb"!#$%&'*+.^_`|~0-9A-Za-z-"
TOKEN = re.compile(rb"[" + _TCHAR + rb"]+")
_VALUE = rb"(?:[\x21-\x7e\x80-\xff](?:[\t\x20-\x7e\x80-\xff]*[\x21-\x7e\x80-\xff])?)?"
FIELD_LINE = re.compile(rb"([" + _TCHAR + rb"]+):[ \t]*(" + _VALUE + rb")[ \t]*")
_LINE = (
    r"[!#$%&'*+.^_`|~0-9A-Za-z-]+:[ \t]*"
    r"(?:[\x21-\x7e\x80-\xff](?:[\t\x20-\x7e\x80-\xff]*[\x21-\x7e\x80-\xff])?)?[ \t]*"
)
#: A whole header section (decoded as ISO-8859-1, without its blank line) checked in one C pass.
FIELD_BLOCK = re.compile(rf"(?:{_LINE}\r\n)*{_LINE}")
#: The (name, value) pairs of a section that FIELD_BLOCK accepted.
FIELD_PAIRS = re.compile(
    r"([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*"
    r"((?:[\x21-\x7e\x80-\xff](?:[\t\x20-\x7e\x80-\xff]*[\x21-\x7e\x80-\xff])?)?)[ \t]*(?:\r\n|\Z)"
)
_TOKEN_STR = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_VALUE_STR = re.compile(
    r"(?:[\x21-\x7e\x80-\xff](?:[\t\x20-\x7e\x80-\xff]*[\x21-\x7e\x80-\xff])?)?"
)


def is_token(text: str) -> bool:
    """True if ``text`` is an RFC 9110 token (method names and field names)."""
    return _TOKEN_STR.fullmatch(text) is not None


def is_field_value(text: str) -> bool:
    """True if ``text`` is a field-value without leading or trailing whitespace."""
    return _VALUE_STR.fullmatch(text) is not None


class Fields(Sequence[FieldPair]):
    """Header fields in the order received. Names keep their case; look-ups ignore it."""

    __slots__ = ("_pairs",)

    def __init__(self, pairs: Iterable[FieldPair] = ()) -> None:
        self._pairs: tuple[FieldPair, ...] = tuple(pairs)

    @overload
    def __getitem__(self, index: int) -> FieldPair: ...
    @overload
    def __getitem__(self, index: slice) -> Fields: ...
    def __getitem__(self, index: int | slice) -> FieldPair | Fields:
        if isinstance(index, slice):
            return Fields(self._pairs[index])
        return self._pairs[index]

    def __len__(self) -> int:
        return len(self._pairs)

    @property
    def pairs(self) -> tuple[FieldPair, ...]:
        """The (name, value) pairs as one tuple: hashed and compared in C, a cheap cache key."""
        return self._pairs

    def __iter__(self) -> Iterator[FieldPair]:
        return iter(self._pairs)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Fields):
            return self._pairs == other._pairs
        if isinstance(other, (tuple, list)):
            return list(self._pairs) == [tuple(p) for p in other]
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._pairs)

    def __repr__(self) -> str:
        return f"Fields({list(self._pairs)!r})"

    def get(self, name: str, default: str | None = None) -> str | None:
        """The first value of ``name`` (case-insensitive), or ``default``."""
        lname = name.lower()
        for key, value in self._pairs:
            if key.lower() == lname:
                return value
        return default

    def get_all(self, name: str) -> list[str]:
        """Every value of ``name`` (case-insensitive), in order."""
        lname = name.lower()
        return [value for key, value in self._pairs if key.lower() == lname]

    def without(self, *names: str) -> Fields:
        """A copy without any field named in ``names`` (case-insensitive)."""
        drop = {n.lower() for n in names}
        return Fields(p for p in self._pairs if p[0].lower() not in drop)


#: Fields that describe one hop or the framing of one message, never the resource: RFC 9110
#: §7.6.1 (Connection and the fields it names, Keep-Alive, Proxy-Connection, TE,
#: Transfer-Encoding, Upgrade) plus Content-Length, Trailer, Host and Expect. MB-RESP-4: a
#: response part carries the sub-response's fields "less hop-by-hop and framing fields".
HOP_BY_HOP_FIELDS = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-connection",
        "te",
        "transfer-encoding",
        "upgrade",
        "content-length",
        "trailer",
        "host",
        "expect",
    }
)
#: The part's own control fields, which a sub-response may not forge into its part.
PART_CONTROL_FIELDS = frozenset(
    {"content-id", "http-status-code", "batch-outcome", "http-method", "content-transfer-encoding"}
)


def end_to_end(pairs: Iterable[FieldPair], *, drop: Iterable[str] = ()) -> Fields:
    """``pairs`` without hop-by-hop and framing fields, the fields Connection names, and
    ``drop`` (names compared case-insensitively)."""
    pairs = list(pairs)
    lowered = [name.lower() for name, _value in pairs]
    named = {
        token.strip().lower()
        for lname, (_name, value) in zip(lowered, pairs, strict=True)
        if lname == "connection"
        for token in value.split(",")
    }
    extra = {name.lower() for name in drop}
    # The common case (no Connection field, nothing to drop) needs no new set.
    gone = HOP_BY_HOP_FIELDS | named | extra if named or extra else HOP_BY_HOP_FIELDS
    return Fields([p for lname, p in zip(lowered, pairs, strict=True) if lname not in gone])
