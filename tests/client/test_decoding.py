"""Removing content codings from a batch response before it is parsed (MB-INTER-2)."""

from __future__ import annotations

import gzip
import zlib

import pytest

from mixbatch.client._decoding import ContentDecoder
from mixbatch.client._errors import BatchProtocolError

CONTENT = b"--b\r\nHttp-Status-Code: 200\r\n\r\n" + bytes(range(256)) * 40 + b"\r\n--b--\r\n"


def _raw_deflate(data: bytes) -> bytes:
    compressor = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    return compressor.compress(data) + compressor.flush()


def _decode(codings: list[str], coded: bytes, step: int | None = None) -> bytes:
    decoder = ContentDecoder(codings)
    step = step or len(coded) or 1
    out = [decoder.decode(coded[i : i + step]) for i in range(0, len(coded), step)]
    return b"".join(out) + decoder.flush()


def test_content_without_a_coding_passes_through_unchanged() -> None:
    assert _decode([], CONTENT) == CONTENT
    assert _decode(["identity"], CONTENT) == CONTENT


@pytest.mark.parametrize("coding", ["gzip", "x-gzip", "GZip"])
def test_gzip_is_removed_whole_and_byte_by_byte(coding: str) -> None:
    coded = gzip.compress(CONTENT)
    assert _decode([coding], coded) == CONTENT
    assert _decode([coding], coded, step=1) == CONTENT


def test_deflate_is_removed_zlib_wrapped_or_raw() -> None:
    assert _decode(["deflate"], zlib.compress(CONTENT), step=7) == CONTENT
    assert _decode(["deflate"], _raw_deflate(CONTENT), step=7) == CONTENT


def test_stacked_codings_are_removed_in_reverse_order() -> None:
    coded = gzip.compress(zlib.compress(CONTENT))  # deflate applied first, then gzip
    assert _decode(["deflate, gzip"], coded, step=5) == CONTENT
    assert _decode(["deflate", "gzip"], coded) == CONTENT
    assert _decode(["identity, deflate", "gzip"], coded) == CONTENT


def test_a_gzip_stream_of_several_members_is_removed_whole() -> None:
    # RFC 1952 §2.2: "A gzip file consists of a series of members".
    coded = gzip.compress(CONTENT[:100]) + gzip.compress(CONTENT[100:])
    assert _decode(["gzip"], coded) == CONTENT
    assert _decode(["gzip"], coded, step=3) == CONTENT
    assert _decode(["gzip"], coded + b"\x00" * 8) == CONTENT  # zero padding, as gzip(1) allows


def test_data_after_the_end_of_a_deflate_stream_is_refused() -> None:
    with pytest.raises(BatchProtocolError) as caught:
        _decode(["deflate"], zlib.compress(CONTENT) + b"trailing")
    assert caught.value.requirement == "MB-INTER-2"


@pytest.mark.parametrize("coding", ["br", "compress", "zstd"])
def test_a_coding_the_client_cannot_remove_is_refused_before_parsing(coding: str) -> None:
    with pytest.raises(BatchProtocolError) as caught:
        ContentDecoder(["gzip", coding])
    assert caught.value.requirement == "MB-INTER-2"
    assert coding in str(caught.value)


def test_corrupt_coded_content_is_a_protocol_error_naming_the_coding() -> None:
    with pytest.raises(BatchProtocolError) as caught:
        _decode(["gzip"], b"\x1f\x8b\x08\x00garbage-not-deflate" * 4)
    assert caught.value.requirement == "MB-INTER-2"
    assert "gzip" in str(caught.value)
