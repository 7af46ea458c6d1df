"""Batch content framed as chunked transfer coding (RFC 9112 §7.1), for checks that send the
same content framed by Content-Length and chunked: a limit or a validation binds the content
whatever frames it.
"""

from __future__ import annotations

__all__ = ["CHUNK_OCTETS", "chunked_content"]

#: The chunk size: several chunks for every content but the smallest.
CHUNK_OCTETS = 64 * 1024


def chunked_content(body: bytes, size: int = CHUNK_OCTETS) -> tuple[bytes, int]:
    """`body` as chunks of `size` octets and the last chunk, with the number of data chunks."""
    chunks = [body[i : i + size] for i in range(0, len(body), size)]
    framed = b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in chunks) + b"0\r\n\r\n"
    return framed, len(chunks)
