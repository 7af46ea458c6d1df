"""Named limits of the mixbatch codec.

Every bound the parser enforces lives here, with the reason for its default, so that the spec's
limit table, the capabilities document and the error messages all read from one place
(MB-LIMIT-1: "A server enforces and publishes limits on part count, batch octets, part octets
and part header octets"; MB-LIMIT-5 adds the field lines of a part header section). Overflowing a
limit is a ``LimitExceeded`` error that maps to 413, or to 431 for a part header section (its
octets or its field lines).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "MAX_BATCH_BYTES",
    "MAX_BOUNDARY_LENGTH",
    "MAX_PARTS",
    "MAX_PART_BYTES",
    "MAX_PART_FIELDS",
    "MAX_PART_HEADER_BYTES",
    "MIN_RECOMMENDED_BOUNDARY_LENGTH",
    "Limits",
    "numeral_over",
    "shown_numeral",
]

#: The thesis' largest measured batch (ch. 6: 10,000 requests); larger batches should be split.
MAX_PARTS = 10_000
#: The per-request header budget most HTTP servers apply (8 KiB), applied to each part.
MAX_PART_HEADER_BYTES = 8_192
#: Apache httpd's LimitRequestFields default: field lines per part. It bounds the per-field cost,
#: which a dense header section of empty fields (``a:``) would otherwise multiply (MB-LIMIT-5).
MAX_PART_FIELDS = 100
#: Large enough for a 1 MB payload sixteen times over; bigger bodies belong in their own request.
MAX_PART_BYTES = 16 * 1024 * 1024
#: 10,000 parts of the thesis' 1 kB payload with headers fit several times over.
MAX_BATCH_BYTES = 64 * 1024 * 1024
#: RFC 2046 §5.1.1: "boundary := 0*69<bchars> bcharsnospace", at most 70 characters.
MAX_BOUNDARY_LENGTH = 70
#: MB-WIRE-5: at least 16 characters of [A-Za-z0-9_-] make an accidental collision negligible.
MIN_RECOMMENDED_BOUNDARY_LENGTH = 16


@dataclass(frozen=True, slots=True)
class Limits:
    """The bounds one parser enforces. Every field must be a positive integer."""

    max_parts: int = MAX_PARTS
    max_part_header_bytes: int = MAX_PART_HEADER_BYTES
    max_part_fields: int = MAX_PART_FIELDS
    max_part_bytes: int = MAX_PART_BYTES
    max_batch_bytes: int = MAX_BATCH_BYTES

    def __post_init__(self) -> None:
        for name in (
            "max_parts",
            "max_part_header_bytes",
            "max_part_fields",
            "max_part_bytes",
            "max_batch_bytes",
        ):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"Limits.{name} must be a positive integer, got {value!r}")

    def as_document(self) -> dict[str, int]:
        """The ``limits`` member of the capabilities document (spec §9)."""
        return {
            "max_parts": self.max_parts,
            "max_batch_bytes": self.max_batch_bytes,
            "max_part_bytes": self.max_part_bytes,
            "max_part_header_bytes": self.max_part_header_bytes,
            # MB-LIMIT-5: the field-line limit is published with the others.
            "max_part_fields": self.max_part_fields,
        }


#: The most digits of a declared length an error message quotes.
SHOWN_DIGITS = 20


def _significant(numeral: str) -> str:
    return numeral.lstrip("0") or "0"


def numeral_over(numeral: str, limit: int) -> bool:
    """Whether a numeral of ASCII digits declares more than ``limit``. It is read by its digits
    first: one with more digits than the limit, leading zeros apart, is over it without being
    converted (``int()`` refuses numerals of thousands of digits)."""
    digits = _significant(numeral)
    return len(digits) > len(str(limit)) or int(digits) > limit


def shown_numeral(numeral: str) -> str:
    """A numeral as an error message quotes it: its number, or how many digits it has."""
    digits = _significant(numeral)
    return digits if len(digits) <= SHOWN_DIGITS else f"of {len(digits)} digits"
