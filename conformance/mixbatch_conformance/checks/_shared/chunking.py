"""Batch content framed as chunked transfer coding (RFC 9112 §7.1), for checks that send the
same content framed by Content-Length and chunked: a limit or a validation binds the content
whatever frames it.

`CHUNKED_FRAMINGS` are the ways a small content may be chunked that MB-INTER-5 has a server
accept as it accepts the content framed by Content-Length: plain chunks, chunks carrying chunk
extensions (RFC 9112 §7.1.1), and a last chunk followed by a trailer section (§7.1.2);
`small_chunked` writes a content in one of them; `broken_chunked` writes it in each framing
that breaks RFC 9112 §7.1's grammar, which MB-INTER-5 has a server answer 400 when it answers.
`framing_answer` reduces an answer to what
must not depend on the framing: its status, and the parts of a processed batch or the members of
a problem that locate a refusal.
"""

from __future__ import annotations

from mixbatch_conformance.core.context import problem_of
from mixbatch_conformance.core.validator import loose_boundary, read_multipart
from mixbatch_conformance.transport.http import Response

__all__ = [
    "CHUNKED_FRAMINGS",
    "CHUNK_OCTETS",
    "LAST_CHUNK",
    "PROBLEM_MEMBERS",
    "SMALL_CHUNK_OCTETS",
    "broken_chunked",
    "chunked_content",
    "framing_answer",
    "small_chunked",
]

#: The chunk size: several chunks for every content but the smallest.
CHUNK_OCTETS = 64 * 1024
#: Octets per data chunk of the small chunked batches: several chunks for one small batch.
SMALL_CHUNK_OCTETS = 16
#: Ways to frame a small batch chunked: (what, extension of each data chunk, extension of the
#: last chunk, trailer field lines). MB-INTER-5 has a server accept each (RFC 9112 §7.1).
CHUNKED_FRAMINGS: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    ("chunked", "", "", ()),
    ("chunked with chunk extensions", ";mb-ext=1", ';mb-last="a b"', ()),
    ("chunked with a trailer section", "", "", ("X-Mb-Suite-Sum: 1",)),
)


def chunked_content(body: bytes, size: int = CHUNK_OCTETS) -> tuple[bytes, int]:
    """`body` as chunks of `size` octets and the last chunk, with the number of data chunks."""
    chunks = [body[i : i + size] for i in range(0, len(body), size)]
    framed = b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in chunks) + b"0\r\n\r\n"
    return framed, len(chunks)


def small_chunked(body: bytes, ext: str, last_ext: str, trailer: tuple[str, ...]) -> bytes:
    """`body` as chunks of `SMALL_CHUNK_OCTETS` with `ext` on each, the last chunk with
    `last_ext`, and the `trailer` field lines."""
    step = SMALL_CHUNK_OCTETS
    chunks = [body[i : i + step] for i in range(0, len(body), step)]
    e, last = ext.encode("latin-1"), last_ext.encode("latin-1")
    data = b"".join(b"%x%s\r\n%s\r\n" % (len(c), e, c) for c in chunks)
    lines = b"".join(line.encode("latin-1") + b"\r\n" for line in trailer)
    return data + b"0" + last + b"\r\n" + lines + b"\r\n"


#: The problem members that locate a refusal, compared between framings of one content.
#: The last chunk and the empty line that ends the chunked content (no trailer section).
LAST_CHUNK = b"0\r\n\r\n"


def broken_chunked(body: bytes) -> list[tuple[str, bytes]]:
    """(what is broken, the chunked content) for each broken framing of `body`, sent as one data
    chunk and the last chunk: a chunk-size that is not `1*HEXDIG` (RFC 9112 §7.1), or chunk data
    followed by other octets than CRLF."""
    n = len(body)
    return [
        ("a chunk-size that is not hex", b"zz\r\n" + body + b"\r\n" + LAST_CHUNK),
        ("a chunk-size with a 0x prefix", b"0x%x\r\n" % n + body + b"\r\n" + LAST_CHUNK),
        ("a chunk-size with a + sign", b"+%x\r\n" % n + body + b"\r\n" + LAST_CHUNK),
        ("an empty chunk-size line", b"\r\n" + body + b"\r\n" + LAST_CHUNK),
        # A reader that skips empty lines before a chunk-size, as RFC 9112 §2.2 lets one skip
        # them before a request line, takes the size after them for the chunk's.
        ("an empty line before the chunk-size", b"\r\n%x\r\n" % n + body + b"\r\n" + LAST_CHUNK),
        ("an empty line before the last chunk", b"%x\r\n" % n + body + b"\r\n\r\n" + LAST_CHUNK),
        (
            "chunk data four octets longer than its chunk-size",
            b"%x\r\n" % (n - 4) + body + b"\r\n" + LAST_CHUNK,
        ),
        ("chunk data followed by XX, not CRLF", b"%x\r\n" % n + body + b"XX" + LAST_CHUNK),
        # A reader that takes the CRLF after chunk data with the line reader it uses for the
        # header section, which may accept a bare LF there (RFC 9112 §2.2), takes it here too.
        ("chunk data followed by a bare LF", b"%x\r\n" % n + body + b"\n" + LAST_CHUNK),
        # One octet of the two wrong: a reader that refuses only when neither is right takes
        # these for the CRLF.
        ("chunk data followed by X and LF", b"%x\r\n" % n + body + b"X\n" + LAST_CHUNK),
        ("chunk data followed by CR and X", b"%x\r\n" % n + body + b"\rX" + LAST_CHUNK),
    ]


PROBLEM_MEMBERS = ("requirement", "part_index", "byte_offset")


def framing_answer(resp: Response) -> tuple[object, ...]:
    """The status, and the (Content-Id, Http-Status-Code) of each part of a multipart answer or
    the `PROBLEM_MEMBERS` of a problem."""
    if resp.status < 400 and resp.media_type == "multipart/mixed":
        env = read_multipart(resp.body, loose_boundary(resp.get("Content-Type") or ""))
        return (resp.status, [(p.get("Content-Id"), p.get("Http-Status-Code")) for p in env.parts])
    doc = problem_of(resp) or {}
    return (resp.status, *(doc.get(m) for m in PROBLEM_MEMBERS))
