"""Planted writers of the 207 forms that judge a body's UTF-8 validity by part of its octets
(MB-MULTI-7, MB-MULTI-5).

Each plant runs over the octet store of `member_octets` (a sandbox that keeps content of any
media type over the reference's JSON sandbox), so that a body the suite chooses reaches a part,
and changes only how the store writes such a body into a 207 form:

    json-text-test-on-first-512        the JSON form's member chosen by the first 512 octets,
                                       the window content sniffing reads; a body invalid later
                                       goes in `body`, its invalid octets replaced by U+FFFD
    json-text-test-on-first-4-kib      the same, by the first 4,096 octets (a page)
    json-text-test-on-first-64-kib     the same, by the first 65,536 octets (a read buffer)
    json-text-test-on-head-and-tail    the same, by the first and the last 512 octets
    json-text-test-by-chunks           validity judged in 512-octet chunks, each on its own, so
                                       a valid character across a chunk edge sends valid text
                                       to `body_base64`
    json-text-cut-end-unflushed        an incremental decoder never told the body ended: a
                                       sequence cut short at the last octet is held back, and
                                       the rest goes in `body` without it
    xml-body-sniffed-as-text           the XML form's body judged text by its first 512 octets
                                       and put through a replacing decoder before base64
"""

from __future__ import annotations

import codecs

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants.member_octets import (
    XML,
    JsonText,
    OctetStore,
    Transform,
    utf8_text,
)

__all__ = ["PLANTS"]

CHECK = "multistatus-body-members-whole-body"
#: The window content sniffing reads (http.DetectContentType, WHATWG MIME Sniffing).
SNIFF = 512


def _valid(octets: bytes) -> bool:
    return utf8_text(octets) is not None


def _replaced(octets: bytes) -> str:
    return octets.decode("utf-8", errors="replace")


def _on_first(n: int) -> JsonText:
    """Text when the first `n` octets are valid UTF-8."""
    return lambda octets: _replaced(octets) if _valid(octets[:n]) else None


def _on_head_and_tail(octets: bytes) -> str | None:
    """Text when the first and the last SNIFF octets are valid UTF-8 (the last read from the
    first character that starts in them)."""
    tail = octets[-SNIFF:].lstrip(bytes(range(0x80, 0xC0)))
    return _replaced(octets) if _valid(octets[:SNIFF]) and _valid(tail) else None


def _by_chunks(octets: bytes) -> str | None:
    """Text when each SNIFF-octet chunk is valid UTF-8 on its own."""
    chunks = [octets[i : i + SNIFF] for i in range(0, len(octets), SNIFF)]
    return utf8_text(octets) if all(map(_valid, chunks)) else None


def _unflushed(octets: bytes) -> str | None:
    """Text as an incremental decoder gives it before it is told the input ended."""
    try:
        return codecs.getincrementaldecoder("utf-8")().decode(octets, final=False)
    except UnicodeDecodeError:
        return None


def _xml_sniffed(ctype: str, octets: bytes, where: str) -> tuple[str, bytes]:
    if where != XML or not _valid(octets[:SNIFF]):
        return ctype, octets
    return ctype, _replaced(octets).encode("utf-8")


def _plant(
    name: str, breaks: str, *, json_text: JsonText = utf8_text, write: Transform | None = None
) -> Mutation:
    store = OctetStore(json_text=json_text) if write is None else OctetStore(write=write)
    return Mutation(
        name,
        breaks,
        (CHECK,),
        caught_by=("FAIL",),
        on_request=store.request,
        on_response=store.response,
    )


PLANTS: tuple[Mutation, ...] = (
    _plant(
        "json-text-test-on-first-512",
        "MB-MULTI-7 the JSON form's body member chosen by the first 512 octets of the body",
        json_text=_on_first(SNIFF),
    ),
    _plant(
        "json-text-test-on-first-4-kib",
        "MB-MULTI-7 the JSON form's body member chosen by the first 4,096 octets of the body",
        json_text=_on_first(4096),
    ),
    _plant(
        "json-text-test-on-first-64-kib",
        "MB-MULTI-7 the JSON form's body member chosen by the first 65,536 octets of the body",
        json_text=_on_first(65536),
    ),
    _plant(
        "json-text-test-on-head-and-tail",
        "MB-MULTI-7 the JSON form's body member chosen by the first and last 512 octets",
        json_text=_on_head_and_tail,
    ),
    _plant(
        "json-text-test-by-chunks",
        "MB-MULTI-7 the JSON form's body member chosen by 512-octet chunks each on its own",
        json_text=_by_chunks,
    ),
    _plant(
        "json-text-cut-end-unflushed",
        "MB-MULTI-7 the JSON form's body taken as text with a sequence cut short at its end held back",
        json_text=_unflushed,
    ),
    _plant(
        "xml-body-sniffed-as-text",
        "MB-MULTI-5 the XML form's body judged text by its first 512 octets and decoded replacing",
        write=_xml_sniffed,
    ),
)
