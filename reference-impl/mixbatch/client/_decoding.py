"""Removing content codings from a batch response before it is parsed (MB-INTER-2).

MB-INTER-2: "A client MUST remove any content coding (RFC 9110 §8.4) from a batch response before
parsing it as multipart/mixed." Codings are listed in the order they were applied
(RFC 9110 §8.4), so they are undone in reverse. ``gzip``/``x-gzip`` and ``deflate`` are decoded
incrementally with ``zlib``, chunk by chunk, so a compressed response streams like a plain one;
a gzip stream may hold several members, one after another (RFC 1952 §2.2), while octets after
the end of a deflate stream are an error. ``identity`` is nothing. Any other coding is refused: parsing coded octets as multipart would
only produce nonsense errors.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

from ._errors import BatchProtocolError

__all__ = ["ACCEPT_ENCODING", "ContentDecoder"]

#: The Accept-Encoding the client sends with a batch request.
ACCEPT_ENCODING = "gzip, deflate"

_GZIP_WBITS = 16 + zlib.MAX_WBITS
_ZLIB_WBITS = zlib.MAX_WBITS


class _Inflater:
    def __init__(self, coding: str) -> None:
        self._coding = coding
        self._gzip = coding in ("gzip", "x-gzip")
        self._first = True
        self._z = zlib.decompressobj(_GZIP_WBITS if self._gzip else _ZLIB_WBITS)

    def decode(self, data: bytes) -> bytes:
        out: list[bytes] = []
        while data:
            if self._z.eof:
                if not self._gzip:
                    raise self._error("octets follow the end of the deflate stream")
                if not data.strip(b"\x00"):
                    break  # zero padding after a member, which gzip(1) ignores too
                # RFC 1952 §2.2: "A gzip file consists of a series of members"; each member
                # is a whole gzip stream, so the next one gets a fresh decompressor.
                self._z = zlib.decompressobj(_GZIP_WBITS)
            if self._first and not self._gzip:
                self._first = False
                # RFC 9110 §8.4.1.2: deflate is zlib-wrapped, but some servers send raw deflate.
                if data[0] & 0x0F != 8:
                    self._z = zlib.decompressobj(-zlib.MAX_WBITS)
            try:
                out.append(self._z.decompress(data))
            except zlib.error as exc:
                raise self._error(str(exc)) from exc
            data = self._z.unused_data if self._z.eof else b""
        return b"".join(out)

    def _error(self, reason: str) -> BatchProtocolError:
        return BatchProtocolError(
            f"the {self._coding} content coding cannot be decoded: {reason}",
            requirement="MB-INTER-2",
        )

    def flush(self) -> bytes:
        return self._z.flush()


class ContentDecoder:
    """Undo the codings named in the response's Content-Encoding field values.

    Feed the content through ``decode`` piece by piece, then call ``flush`` once at its end. A
    coding other than gzip, x-gzip, deflate or identity raises ``BatchProtocolError``
    (MB-INTER-2) when the decoder is built, before any octet is parsed.
    """

    def __init__(self, content_encoding: Sequence[str]) -> None:
        codings = [
            token.strip().lower()
            for value in content_encoding
            for token in value.split(",")
            if token.strip() and token.strip().lower() != "identity"
        ]
        unknown = [c for c in codings if c not in ("gzip", "x-gzip", "deflate")]
        if unknown:
            raise BatchProtocolError(
                f"the batch response has a content coding this client cannot remove: {unknown}",
                requirement="MB-INTER-2",
            )
        # Applied first means listed first; decode in reverse.
        self._stages = [_Inflater(c) for c in reversed(codings)]

    def decode(self, data: bytes) -> bytes:
        for stage in self._stages:
            data = stage.decode(data)
        return data

    def flush(self) -> bytes:
        data = b""
        for stage in self._stages:
            data = stage.decode(data) + stage.flush() if data else stage.flush()
        return data
