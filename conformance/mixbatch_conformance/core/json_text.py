"""JSON texts read as RFC 8259 has them exchanged: UTF-8, with no byte order mark.

Python's `json.loads` given octets guesses their encoding and skips a UTF-8 byte order mark,
so a reader built on it takes what a strict peer refuses. RFC 8259 §8.1: "JSON text exchanged
between systems that are not part of a closed ecosystem MUST be encoded using UTF-8" and
"Implementations MUST NOT add a byte order mark (U+FEFF) to the beginning of a
networked-transmitted JSON text."

An object that names one member twice with two different values has no one meaning: RFC 8259
§4, "When the names within an object are not unique, the behavior of software that receives
such an object is unpredictable", and JSON Schema (draft 2020-12, §4.2.3) leaves such a
document's validation undefined. Python keeps the last value, another reader the first, so
such a text is refused rather than read one way. A name repeated with the same value means the
same to every reader (the names "SHOULD be unique", a recommendation), and is read.
"""

from __future__ import annotations

import json
from typing import Any, TypeGuard

__all__ = ["is_json_integer", "loads_json_text", "same_json_value"]

BOM = b"\xef\xbb\xbf"


def loads_json_text(data: bytes) -> Any:
    """`data` parsed as a networked JSON text; ValueError (with the reason) when it starts
    with a byte order mark, is not UTF-8, or is not JSON."""
    if data.startswith(BOM):
        raise ValueError("begins with a byte order mark, which RFC 8259 §8.1 forbids")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 (RFC 8259 §8.1): {exc}") from None
    return json.loads(text, object_pairs_hook=_members)


def _members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's members; ValueError when one name is given two different values."""
    out: dict[str, Any] = {}
    for name, value in pairs:
        if name in out and not same_json_value(out[name], value):
            raise ValueError(
                f"member {name!r} given twice, as {out[name]!r} and {value!r} (RFC 8259 §4: "
                "such an object is read unpredictably)"
            )
        out[name] = value
    return out


def same_json_value(a: Any, b: Any) -> bool:
    """Whether two JSON values are equal as JSON values: `true` is not the number 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_json_value(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json_value(a[k], b[k]) for k in a)
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    return type(a) is type(b) and a == b


def is_json_integer(value: Any) -> TypeGuard[int | float]:
    """Whether `value` is an integer as JSON Schema's `integer` type has it: a number with no
    fractional part (100.0 as well as 100), never `true` or `false`, which Python counts as
    the ints 1 and 0."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
