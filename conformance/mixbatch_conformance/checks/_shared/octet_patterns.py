"""Bodies whose octets never repeat a short period, so a chunk lost or doubled on the way
shows in the octets that come back.

Theory of operation: octet i of a pattern is ``(i * 7 + i // step) % modulus`` (plus an
offset). The sequence repeats with a period of ``step * modulus / gcd(7 * step + 1,
modulus)`` octets: far longer than any chunk a server or a hop buffers by, and short enough to
compute once. A body of any length is that period repeated and cut, so building a body of
megabytes costs a copy, not a Python step per octet.
"""

from __future__ import annotations

import functools
import math

__all__ = ["filler", "pattern"]


@functools.cache
def _period(step: int, modulus: int, offset: int) -> bytes:
    """One period of octets ``offset + (i * 7 + i // step) % modulus``."""
    length = step * modulus // math.gcd(7 * step + 1, modulus)
    return bytes(offset + ((i * 7 + i // step) % modulus) for i in range(length))


def _cut(period: bytes, n: int, start: int) -> bytes:
    first = start % len(period)
    return (period * ((first + n) // len(period) + 1))[first : first + n]


def pattern(n: int) -> bytes:
    """n octets of every value 0 to 255: octet i is ``(i * 7 + i // 251) % 256``."""
    return _cut(_period(251, 256, 0), n, 0)


def filler(n: int, start: int = 0) -> bytes:
    """n octets of printable ASCII (``!`` to ``~``), from octet `start` of the sequence
    ``0x21 + (i * 7 + i // 89) % 94``; a body built of several runs keeps one sequence when
    each run starts where the one before it ended."""
    return _cut(_period(89, 94, 0x21), n, start)
