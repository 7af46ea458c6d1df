"""Decimal numerals read from a server's answers: a status code, a part index.

Theory of operation: a value the server writes is read as a number only when it is ASCII digits
(Python's `str.isdigit` also takes other scripts' digits and "²", which `int()` then refuses)
and short enough to name a status or a part; a longer numeral reads as no number, which the
caller judges as the wrong value it is, never as a crash of the suite (`int()` refuses
numerals of more than 4,300 digits).
"""

from __future__ import annotations

import re

__all__ = ["MAX_DIGITS", "decimal"]

#: ASCII decimal digits.
_DECIMAL = re.compile(r"[0-9]+")
#: The most digits a numeral is read to, leading zeros apart.
MAX_DIGITS = 18


def decimal(text: str | None) -> int | None:
    """`text` read as a decimal number of ASCII digits, or None (not one, or too long)."""
    if not text or not _DECIMAL.fullmatch(text):
        return None
    digits = text.lstrip("0") or "0"
    return int(digits) if len(digits) <= MAX_DIGITS else None
