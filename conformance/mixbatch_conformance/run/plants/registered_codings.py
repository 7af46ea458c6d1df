"""Planted servers that decode a registered content coding with the wrong decoder, or that name
a coding in their 415's Accept-Encoding and then do not decode it (MB-INTER-6).

The reference server decodes no coding and answers every one 415 with `Accept-Encoding:
identity`. The relay turns it into:

- a server that takes `compress` (and `x-compress`), the LZW coding of compress(1) (RFC 9110
  §8.4.1.1), for one of zlib's formats: its inflate fails on the content, answered 400 as
  content that does not decode, while its 415 names identity alone;
- the same server with compress and x-compress named in its 415, listed as decoded;
- a server whose 415 names aes128gcm and exi, codings it refuses 415 like any other;
- a server that decodes compress content and leaves the coding out of its 415.
"""

from __future__ import annotations

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import is_batch, problem
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS", "lzw_decompress"]

#: The names of the compress coding (RFC 9110 §8.4.1.1).
_COMPRESS = frozenset({"compress", "x-compress"})


def _codings(req: RelayRequest) -> list[str]:
    """The members of every Content-Encoding line of a batch, lower-case (none for others)."""
    if not is_batch(req):
        return []
    lines = [v for n, v in req.headers if n.lower() == "content-encoding"]
    return [m.strip(" \t").lower() for line in lines for m in line.split(",") if m.strip(" \t")]


def _set_accept_encoding(resp: RelayResponse, value: str) -> None:
    resp.headers = [(n, v) for n, v in resp.headers if n.lower() != "accept-encoding"]
    resp.headers.append(("Accept-Encoding", value))


def _compress_inflated(req: RelayRequest, resp: RelayResponse) -> None:
    """compress run through zlib's inflate: the 415 becomes a 400 "does not decode"."""
    if resp.status == 415 and _COMPRESS & set(_codings(req)):
        problem(resp, 400, "MB-STATUS-2")


def _compress_named_inflated(req: RelayRequest, resp: RelayResponse) -> None:
    """compress listed as decoded, and run through zlib's inflate."""
    _compress_inflated(req, resp)
    if resp.status == 415 and _codings(req):
        _set_accept_encoding(resp, "identity, compress, x-compress")


def _unmade_named(req: RelayRequest, resp: RelayResponse) -> None:
    """A 415 naming aes128gcm and exi, which the server refuses like every other coding."""
    if resp.status == 415 and _codings(req):
        _set_accept_encoding(resp, "identity, aes128gcm, exi")


def lzw_decompress(data: bytes) -> bytes | None:
    """compress(1) output decoded, or None where it is not (a clear code is taken for an error:
    the suite never writes one)."""
    if len(data) < 3 or data[:2] != b"\x1f\x9d" or not 9 <= data[2] & 0x1F <= 16:
        return None
    max_bits, block = data[2] & 0x1F, bool(data[2] & 0x80)
    table = [bytes((i,)) for i in range(256)] + ([b""] if block else [])
    bits = int.from_bytes(data[3:], "little")
    total = (len(data) - 3) * 8
    pos, width = 0, 9
    out = bytearray()
    prev: bytes | None = None
    while pos + width <= total:
        if prev is not None and len(table) > (1 << width) - 1 and width < max_bits:
            width += 1  # the codes of the old width were a whole number of groups of eight
            continue
        code = (bits >> pos) & ((1 << width) - 1)
        pos += width
        if block and code == 256:
            return None
        if code < len(table):
            entry = table[code]
        elif code == len(table) and prev is not None:
            entry = prev + prev[:1]
        else:
            return None
        if prev is not None and len(table) < 1 << max_bits:
            table.append(prev + entry[:1])
        out += entry
        prev = entry
    return bytes(out)


def _compress_decoded(req: RelayRequest) -> None:
    """A server that decodes compress batch content (its 415 for other codings as it was)."""
    codings = _codings(req)
    if len(codings) != 1 or codings[0] not in _COMPRESS:
        return
    decoded = lzw_decompress(req.body)
    if decoded is None:
        return
    req.body = decoded
    req.headers = [(n, v) for n, v in req.headers if n.lower() != "content-encoding"]


PLANTS: tuple[Mutation, ...] = (
    # MB-INTER-6: "A server that receives a batch request with a content coding it does not
    # support MUST answer 415 with an `Accept-Encoding` field naming the codings it does decode
    # (RFC 9110 §15.5.16), before any part runs."
    Mutation(
        "compress-inflated-unnamed",
        "MB-INTER-6 compress taken for a zlib format and answered 400, its 415 naming "
        "identity alone",
        ("registered-codings-decoded-or-refused",),
        on_response=_compress_inflated,
    ),
    Mutation(
        "compress-named-inflated",
        "MB-INTER-6 compress named in the 415 as decoded, its content answered 400",
        ("registered-codings-decoded-or-refused",),
        on_response=_compress_named_inflated,
    ),
    Mutation(
        "unmade-codings-named-refused",
        "MB-INTER-6 the 415 names aes128gcm and exi, which the server refuses 415",
        ("registered-codings-decoded-or-refused",),
        on_response=_unmade_named,
    ),
    Mutation(
        "compress-decoded-unnamed",
        "MB-INTER-6 compress decoded but left out of Accept-Encoding",
        ("decoded-codings-advertised", "registered-codings-decoded-or-refused"),
        on_request=_compress_decoded,
    ),
)
