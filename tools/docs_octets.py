"""A text codec that shows any octets, so the docs can include binary test vectors.

Theory of operation: the spec includes its vectors with pymdownx.snippets, which opens every
snippet in text mode with one configured encoding. Most vectors are UTF-8 text, but
`binary-body-all-octets.request.http` carries all 256 octet values, so strict UTF-8 stops the
build. This module registers the codec `mixbatch-display`: valid UTF-8 decodes as usual, and
every octet that is not valid UTF-8, and every C0 control other than HTAB, LF and CR (and DEL),
is shown as a visible `\\xNN` escape. The text is for reading, never for sending: the
authoritative bytes stay in spec/examples/. The docs' mkdocs.yml names the codec as the
snippets encoding; the docs hook calls `register()` before the first page is read.

Encoding (text to bytes) is plain UTF-8; the docs never write through this codec.
"""

from __future__ import annotations

import codecs
import re

__all__ = ["CODEC_NAME", "register", "show_octets"]

CODEC_NAME = "mixbatch-display"
# C0 controls except HTAB, LF and CR, and DEL: they are valid UTF-8 but invisible or harmful in
# HTML (a NUL is replaced by U+FFFD in a browser), so the reader sees their value instead.
_INVISIBLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def show_octets(data: bytes) -> str:
    """Decode `data` for display: UTF-8 where valid, `\\xNN` for anything else or invisible."""
    text = data.decode("utf-8", "backslashreplace")
    return _INVISIBLE.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


class _IncrementalDecoder(codecs.BufferedIncrementalDecoder):
    """Buffers a trailing incomplete UTF-8 sequence until the next chunk or the final call."""

    def _buffer_decode(self, data: bytes, errors: str, final: bool) -> tuple[str, int]:
        # Hold back at most three octets that may start a multi-octet sequence cut by the chunk.
        keep = 0
        if not final:
            for back in range(1, min(3, len(data)) + 1):
                octet = data[-back]
                if octet & 0xC0 == 0x80:
                    continue  # a continuation octet: look further back for the lead octet
                if octet >= 0xC0:
                    need = 2 if octet < 0xE0 else 3 if octet < 0xF0 else 4
                    keep = back if need > back else 0
                break
        usable = data[: len(data) - keep]
        return show_octets(bytes(usable)), len(usable)


def _encode(text: str, errors: str = "strict") -> tuple[bytes, int]:
    return text.encode("utf-8", errors), len(text)


def _decode(data: bytes, errors: str = "strict") -> tuple[str, int]:
    return show_octets(bytes(data)), len(data)


def _search(name: str) -> codecs.CodecInfo | None:
    if name.replace("_", "-") != CODEC_NAME:
        return None
    return codecs.CodecInfo(
        name=CODEC_NAME,
        encode=_encode,
        decode=_decode,
        incrementaldecoder=_IncrementalDecoder,
    )


_registered = False


def register() -> None:
    """Make `mixbatch-display` known to `open()` and `codecs.lookup` (idempotent)."""
    global _registered
    if not _registered:
        codecs.register(_search)
        _registered = True
