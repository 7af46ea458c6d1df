"""Coded content of a repeated block decodes to exactly what it says, checksums included."""

from __future__ import annotations

import gzip
import random
import zlib

import pytest

from mixbatch_conformance.checks._shared.repeated_codings import (
    adler32_combine,
    crc32_combine,
    repeated_coded,
)


def test_combined_checksums_equal_the_checksums_of_the_joined_octets() -> None:
    rng = random.Random(7)
    for _ in range(200):
        a, b = rng.randbytes(rng.randint(0, 70)), rng.randbytes(rng.randint(0, 70))
        assert crc32_combine(zlib.crc32(a), zlib.crc32(b), len(b)) == zlib.crc32(a + b)
        assert adler32_combine(zlib.adler32(a), zlib.adler32(b), len(b)) == zlib.adler32(a + b)


@pytest.mark.parametrize("coding", ["gzip", "x-gzip", "deflate"])
@pytest.mark.parametrize("times", [0, 1, 2, 3, 7, 100])
def test_repeated_content_decodes_whole_and_checks(coding: str, times: int) -> None:
    head, block, tail = b"head\r\n", b"a line of text\r\n" * 40, b"--b--\r\n"
    coded = repeated_coded(coding, head, block, times, tail)
    decoded = zlib.decompress(coded) if coding == "deflate" else gzip.decompress(coded)
    assert decoded == head + block * times + tail


def test_a_coding_it_cannot_repeat_is_refused() -> None:
    with pytest.raises(ValueError, match="br"):
        repeated_coded("br", b"", b"x", 2, b"")
