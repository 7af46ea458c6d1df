"""Coded content that decodes to a block repeated many times, made in milliseconds (gzip,
x-gzip and deflate; RFC 1952, RFC 1950, RFC 1951).

A case that sends content decoding to gigabytes cannot run the encoder over every decoded
octet. After a full flush a deflate stream holds no history (RFC 1951 §3.2: a back reference
reaches only into earlier octets, and zlib's Z_FULL_FLUSH forgets them), so the same input
block always codes to the same octets: the coded block is written `times` over, between the
coded head and tail. The checksums the wrappers end with are combined as zlib's
crc32_combine and adler32_combine do, by doubling, never by reading the decoded octets.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable

__all__ = ["REPEATABLE_CODINGS", "repeated_coded"]

#: The codings `repeated_coded` writes.
REPEATABLE_CODINGS = frozenset({"gzip", "x-gzip", "deflate"})
#: CRC-32's reversed polynomial (RFC 1952 §8).
_CRC_POLY = 0xEDB88320
#: Adler-32's modulus (RFC 1950 §9).
_ADLER_BASE = 65521
#: A gzip header: deflate, no flags, no time, no extra flags, an unknown system (RFC 1952 §2.3).
_GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
#: A zlib header: deflate with a 32 KiB window, best compression, check bits (RFC 1950 §2.2).
_ZLIB_HEADER = b"\x78\xda"


def _times(matrix: list[int], vector: int) -> int:
    out, row = 0, 0
    while vector:
        if vector & 1:
            out ^= matrix[row]
        vector >>= 1
        row += 1
    return out


def _square(matrix: list[int]) -> list[int]:
    return [_times(matrix, row) for row in matrix]


def crc32_combine(crc1: int, crc2: int, len2: int) -> int:
    """The CRC-32 of A then B from A's CRC, B's CRC and B's length (zlib's crc32_combine)."""
    if len2 <= 0:
        return crc1
    odd = [_CRC_POLY, *(1 << n for n in range(31))]
    even = _square(odd)
    odd = _square(even)
    while True:
        even = _square(odd)
        if len2 & 1:
            crc1 = _times(even, crc1)
        len2 >>= 1
        if not len2:
            break
        odd = _square(even)
        if len2 & 1:
            crc1 = _times(odd, crc1)
        len2 >>= 1
        if not len2:
            break
    return crc1 ^ crc2


def adler32_combine(adler1: int, adler2: int, len2: int) -> int:
    """The Adler-32 of A then B from A's, B's and B's length (zlib's adler32_combine)."""
    rem = len2 % _ADLER_BASE
    sum1 = adler1 & 0xFFFF
    sum2 = (rem * sum1) % _ADLER_BASE
    sum1 = (sum1 + (adler2 & 0xFFFF) + _ADLER_BASE - 1) % _ADLER_BASE
    sum2 = (sum2 + (adler1 >> 16) + (adler2 >> 16) + _ADLER_BASE - rem) % _ADLER_BASE
    return sum1 | (sum2 << 16)


def _repeated_check(
    join: Callable[[int, int, int], int], check: int, empty: int, length: int, times: int
) -> tuple[int, int]:
    """The checksum of a block (`check`, `length` octets) repeated `times` times, and its
    length, by doubling; `empty` is the checksum of no octets."""
    out, out_len = empty, 0
    power, power_len = check, length
    while times:
        if times & 1:
            out, out_len = join(out, power, power_len), out_len + power_len
        times >>= 1
        if times:
            power, power_len = join(power, power, power_len), 2 * power_len
    return out, out_len


def repeated_coded(coding: str, head: bytes, block: bytes, times: int, tail: bytes) -> bytes:
    """Content in `coding` (one of REPEATABLE_CODINGS) that decodes to `head`, then `block`
    `times` times, then `tail`; its coded length grows with `times` by the block's coded size
    (about a thousandth of a repetitive block's), and no decoded octet past one block is made."""
    if coding not in REPEATABLE_CODINGS:
        raise ValueError(f"{coding!r} is not written repeated")
    coder = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    first = coder.compress(head) + coder.flush(zlib.Z_FULL_FLUSH)
    coded = coder.compress(block) + coder.flush(zlib.Z_FULL_FLUSH)
    last = coder.compress(tail) + coder.flush(zlib.Z_FINISH)
    body = b"".join([first, coded * times, last])
    if coding == "deflate":
        blocks, _ = _repeated_check(adler32_combine, zlib.adler32(block), 1, len(block), times)
        check = adler32_combine(
            adler32_combine(zlib.adler32(head), blocks, len(block) * times),
            zlib.adler32(tail),
            len(tail),
        )
        return _ZLIB_HEADER + body + check.to_bytes(4, "big")
    blocks, _ = _repeated_check(crc32_combine, zlib.crc32(block), 0, len(block), times)
    crc = crc32_combine(
        crc32_combine(zlib.crc32(head), blocks, len(block) * times), zlib.crc32(tail), len(tail)
    )
    size = (len(head) + len(block) * times + len(tail)) & 0xFFFFFFFF
    return _GZIP_HEADER + body + crc.to_bytes(4, "little") + size.to_bytes(4, "little")
