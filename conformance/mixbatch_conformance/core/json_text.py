"""JSON texts read as RFC 8259 has them exchanged: UTF-8, with no byte order mark.

Python's `json.loads` given octets guesses their encoding and skips a UTF-8 byte order mark,
so a reader built on it takes what a strict peer refuses. RFC 8259 §8.1: "JSON text exchanged
between systems that are not part of a closed ecosystem MUST be encoded using UTF-8" and
"Implementations MUST NOT add a byte order mark (U+FEFF) to the beginning of a
networked-transmitted JSON text."
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["loads_json_text"]

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
    return json.loads(text)
