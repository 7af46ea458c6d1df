"""Base64 read as RFC 4648 §4 has a sender write it: the alphabet, `=` padding, no line
breaks, and the pad bits zero.

`base64.b64decode(..., validate=True)` refuses characters outside the alphabet, but it also
takes `QR==` for the octet `A`, whose encoding is `QQ==`: RFC 4648 §3.5, "These pad bits MUST
be set to zero by conforming encoders". Each octet string has one encoding; a text that is
not it was written by no conforming encoder, and two decoders may read it differently.
"""

from __future__ import annotations

import base64
import binascii

__all__ = ["decode_base64"]


def decode_base64(text: str) -> bytes:
    """The octets `text` encodes; ValueError (with the reason) unless it is their one RFC 4648
    §4 encoding."""
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"not base64 without line breaks ({exc})") from None
    if base64.b64encode(data).decode("ascii") != text:
        raise ValueError("not the octets' base64: its pad bits are not zero (RFC 4648 §3.5)")
    return data
