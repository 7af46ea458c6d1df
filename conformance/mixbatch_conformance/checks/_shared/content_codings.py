"""Content codings the checks send and read (spec 10.1, MB-INTER-6).

`accepted_codings` reads an `Accept-Encoding` field as RFC 9110 §12.5.3 writes it: a list of
codings, each with an optional weight, where `q=0` names a coding as not acceptable.
`ENCODERS` makes the codings the suite can write valid content in: gzip and deflate with the
standard library, compress with the suite's own LZW encoder, and br and zstd only where the
environment already has a module that writes them (the suite depends on neither).
"""

from __future__ import annotations

import gzip
import importlib
import re
import zlib
from collections.abc import Callable, Iterable
from typing import Any

from mixbatch_conformance.checks._shared.lzw import lzw_compress
from mixbatch_conformance.core.validator import list_members
from mixbatch_conformance.transport.http import Response

__all__ = [
    "ENCODERS",
    "REGISTERED_CODINGS",
    "UNKNOWN_CODING",
    "accepted_codings",
    "encoded_as_read",
    "names_coding",
    "spellings",
]

#: A content coding no server supports (RFC 9110 §8.4.1: codings are registered tokens, and
#: this one is not).
UNKNOWN_CODING = "x-mb-suite-unknown-coding"
#: The HTTP Content Coding Registry (RFC 9110 §16.6.1, §18.6): every name a content coding is
#: registered under, aliases included.
REGISTERED_CODINGS: tuple[str, ...] = (
    "aes128gcm",
    "br",
    "compress",
    "dcb",
    "dcz",
    "deflate",
    "exi",
    "gzip",
    "identity",
    "pack200-gzip",
    "x-compress",
    "x-gzip",
    "zstd",
)
#: Names a recipient takes for one coding: RFC 9110 §8.4.1.1 "A recipient SHOULD consider
#: "x-compress" to be equivalent to "compress"", §8.4.1.3 the same of "x-gzip" and "gzip".
EQUIVALENT: dict[str, frozenset[str]] = {
    "compress": frozenset({"compress", "x-compress"}),
    "x-compress": frozenset({"compress", "x-compress"}),
    "gzip": frozenset({"gzip", "x-gzip"}),
    "x-gzip": frozenset({"gzip", "x-gzip"}),
}


def _made_elsewhere() -> dict[str, Callable[[bytes], bytes]]:
    """br (RFC 7932) and zstd (RFC 8878), where a module that writes them is installed."""
    made: dict[str, Callable[[bytes], bytes]] = {}
    try:
        brotli = importlib.import_module("brotli")
    except ImportError:
        pass
    else:
        made["br"] = brotli.compress
    try:
        zstandard = importlib.import_module("zstandard")
    except ImportError:
        pass
    else:
        made["zstd"] = zstandard.ZstdCompressor().compress
    return made


#: Content codings the suite makes valid content in (RFC 9110 §8.4.1: gzip and x-gzip are the
#: gzip format, deflate the zlib format, compress and x-compress the output of compress(1)).
ENCODERS: dict[str, Callable[[bytes], bytes]] = {
    "gzip": gzip.compress,
    "x-gzip": gzip.compress,
    "deflate": zlib.compress,
    "compress": lzw_compress,
    "x-compress": lzw_compress,
    **_made_elsewhere(),
}


#: zlib's wbits for the codings it writes (RFC 9110 §8.4.1: gzip and x-gzip are the gzip format,
#: deflate the zlib format).
_ZLIB_WBITS = {"gzip": 31, "x-gzip": 31, "deflate": 15}
#: The brotli quality content is written in as it is read: a ratio near the best, in a fraction
#: of the time the best quality takes.
_BROTLI_QUALITY = 5


def _streamer(coding: str) -> tuple[Callable[[bytes], bytes], Callable[[], bytes]] | None:
    """(compress a piece, finish) for `coding`, or None where no incremental encoder is at hand."""
    wbits = _ZLIB_WBITS.get(coding)
    if wbits is not None:
        z = zlib.compressobj(9, zlib.DEFLATED, wbits)
        return z.compress, z.flush
    module: Any
    if coding == "br":
        try:
            module = importlib.import_module("brotli")
        except ImportError:
            return None
        b = module.Compressor(quality=_BROTLI_QUALITY)
        return b.process, b.finish
    if coding == "zstd":
        try:
            module = importlib.import_module("zstandard")
        except ImportError:
            return None
        zs = module.ZstdCompressor().compressobj()
        return zs.compress, zs.flush
    return None


def encoded_as_read(coding: str, pieces: Iterable[bytes]) -> bytes | None:
    """The content the octets of `pieces` (in order) make, in `coding`, written piece by piece
    so that the decoded octets are never held together; None for a coding the suite writes
    only whole (compress) or not at all."""
    streamer = _streamer(coding)
    if streamer is None:
        return None
    compress, finish = streamer
    out = [compress(piece) for piece in pieces]
    out.append(finish())
    return b"".join(out)


def spellings(coding: str) -> frozenset[str]:
    """The names under which a list names `coding` (itself and its equivalent, lower-case)."""
    name = coding.lower()
    return EQUIVALENT.get(name, frozenset({name}))


def names_coding(named: set[str], coding: str) -> bool:
    """Whether codings `named` (lower-case, from `accepted_codings`) name `coding`: by its name,
    by its equivalent, or by `*` (RFC 9110 §12.5.3: "any available content-coding")."""
    return bool(named & (spellings(coding) | {"*"}))


#: RFC 9110 §12.5.3: Accept-Encoding = #( codings [ weight ] ), codings = content-coding /
#: "identity" / "*"; §12.4.2: weight = OWS ";" OWS "q=" qvalue, qvalue = ( "0" [ "." 0*3DIGIT ] )
#: / ( "1" [ "." 0*3("0") ] ). A member with anything else after its coding names no coding.
MEMBER = re.compile(
    r"([!#$%&'*+\-.^_`|~0-9A-Za-z]+)(?:[ \t]*;[ \t]*[qQ]=(0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?))?"
)


def accepted_codings(resp: Response) -> list[str]:
    """The codings the response's Accept-Encoding names, lower-cased, in order, without those
    weighted q=0 (RFC 9110 §12.5.3) and without members that break the field's grammar."""
    names: list[str] = []
    for member in list_members(resp.get_all("Accept-Encoding")):
        m = MEMBER.fullmatch(member)
        if m is not None and (m.group(2) is None or float(m.group(2)) != 0):
            names.append(m.group(1).lower())
    return names
