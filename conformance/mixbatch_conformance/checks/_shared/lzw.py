"""The `compress` content coding: the output of the UNIX compress program (RFC 9110 §8.4.1.1,
"adaptive Lempel-Ziv-Welch (LZW)"), which no standard library module writes.

The format (the `.Z` files of compress(1), read by `gzip -d` and `uncompress`): the magic
octets 0x1F 0x9D, a flags octet (0x80 "block mode", where code 256 would clear the table, and
the largest code width in its low five bits), then LZW codes packed least significant bit
first. Codes start 9 bits wide and the first code the table assigns is 257. Once the next code
to be assigned no longer fits the width, the width grows by one bit; the table stops growing at
2**16 codes, and this encoder never clears it. compress(1) pads the codes of one width to a
whole group of eight codes before a wider one; without a clear the count of codes of each
width (2**(width - 1)) is a whole number of groups, so no padding is ever due.
"""

from __future__ import annotations

__all__ = ["lzw_compress"]

#: The magic octets of compress(1) output.
MAGIC = b"\x1f\x9d"
#: The largest code width written (the largest every reader takes).
MAX_BITS = 16
#: The flags octet: block mode, and codes up to MAX_BITS wide.
FLAGS = 0x80 | MAX_BITS
#: The width of the first codes, and the first code the table assigns (256 is CLEAR).
INIT_BITS = 9
FIRST = 257


def lzw_compress(data: bytes) -> bytes:
    """`data` in the compress coding (compress(1) output, `-b 16`)."""
    out = bytearray(MAGIC + bytes((FLAGS,)))
    acc = 0  # bits not yet written, least significant first
    nacc = 0
    width = INIT_BITS
    table: dict[tuple[int, int], int] = {}
    free = FIRST

    def emit(code: int) -> None:
        nonlocal acc, nacc, width
        acc |= code << nacc
        nacc += width
        while nacc >= 8:
            out.append(acc & 0xFF)
            acc >>= 8
            nacc -= 8
        # compress(1) widens once the next free code, not yet assigned (its reader assigns it
        # only on reading the next code), no longer fits.
        if free >= 1 << width and width < MAX_BITS:
            width += 1

    if not data:
        return bytes(out)
    prefix = data[0]
    for octet in data[1:]:
        code = table.get((prefix, octet))
        if code is not None:
            prefix = code
            continue
        emit(prefix)
        if free < 1 << MAX_BITS:
            table[(prefix, octet)] = free
            free += 1
        prefix = octet
    emit(prefix)
    if nacc:
        out.append(acc & 0xFF)
    return bytes(out)
