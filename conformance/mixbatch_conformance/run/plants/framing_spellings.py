"""Planted readings of the batch request's framing and type fields that take one spelling of a
field line for the field (MB-STATUS-1: a well-formed batch is answered 200):

    framing-tab-rewritten-by-written-name   a front that turns the tab after a Content-Length
                                            or Transfer-Encoding value into a space, for a
                                            parser that refuses it, finds the field by its
                                            name as RFC 9112 writes it: the same field named
                                            in another case keeps its tab and is refused 400
    host-tab-refused                        a Host reader that trims spaces only: a tab before
                                            or after the authority is taken for part of it,
                                            and the batch refused 400 as one without a valid
                                            Host
    content-type-one-ows-octet-trimmed      a Content-Type reader that drops one octet of
                                            whitespace on each side of the value: with more,
                                            the media type is not multipart/mixed, answered 415
    chunk-size-lower-case-hex-only          a chunk reader that knows the hex digits a-f only:
                                            a chunk size written 1A is refused 400 (MB-INTER-5)
    last-chunk-read-as-zero-only            a chunk reader that finds the last chunk by its
                                            line being 0: a last chunk written 000 is refused
                                            400 as content that never ended (MB-INTER-5)

h11, in front of the relay, reads every one of these requests as RFC 9112 does, so each plant
reads the field lines, and the chunk sizes, as the client wrote them from the connection's tap
(`Behaviour.read_ahead`).
"""

from __future__ import annotations

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import (
    is_batch,
    refuses,
    written_chunk_sizes,
    written_fields,
)
from mixbatch_conformance.transport.relay import Behaviour, RelayRequest

__all__ = ["PLANTS"]

#: The field names the tab-rewriting front knows, each as RFC 9112 writes it.
_FRAMING = ("Content-Length", "Transfer-Encoding")
CATCHERS = ("batch-framing-fields-any-case-and-ows",)


def _framing_tab_kept(req: RelayRequest) -> bool:
    """A tab in the OWS of a framing field named otherwise than RFC 9112 writes it."""
    return is_batch(req) and any(
        name.decode("latin-1").lower() in (f.lower() for f in _FRAMING)
        and name.decode("latin-1") not in _FRAMING
        and b"\t" in before + after
        for name, before, _, after in written_fields(req)
    )


def _host_tab(req: RelayRequest) -> bool:
    return is_batch(req) and any(
        name.lower() == b"host" and b"\t" in before + after
        for name, before, _, after in written_fields(req)
    )


def _type_ows_over_one(req: RelayRequest) -> bool:
    return is_batch(req) and any(
        name.lower() == b"content-type" and (len(before) > 1 or len(after) > 1)
        for name, before, _, after in written_fields(req)
    )


def _upper_hex_size(req: RelayRequest) -> bool:
    return is_batch(req) and any(
        any(c in b"ABCDEF" for c in size) for size in written_chunk_sizes(req)
    )


def _last_chunk_zeros(req: RelayRequest) -> bool:
    sizes = written_chunk_sizes(req) if is_batch(req) else []
    return bool(sizes) and sizes[-1] != b"0"


#: The raw head is read from the connection's tap.
TAPPED = Behaviour(read_ahead=True)

PLANTS: tuple[Mutation, ...] = (
    # MB-STATUS-1: "A server MUST answer a well-formed batch that it processed with 200 (OK)";
    # RFC 9110 §5.1: "Field names are case-insensitive"; RFC 9112 §5: "field-line =
    # field-name ":" OWS field-value OWS", OWS = *( SP / HTAB ) (RFC 9110 §5.6.3).
    Mutation(
        "framing-tab-rewritten-by-written-name",
        "MB-STATUS-1 a tab after a framing field's value refused unless the field is named "
        "Content-Length or Transfer-Encoding exactly",
        CATCHERS,
        on_response=refuses(_framing_tab_kept, 400, "MB-STATUS-1"),
        behaviour=TAPPED,
    ),
    Mutation(
        "host-tab-refused",
        "MB-STATUS-1 a tab around the Host value taken for part of the authority, refused 400",
        CATCHERS,
        on_response=refuses(_host_tab, 400, "MB-STATUS-1"),
        behaviour=TAPPED,
    ),
    Mutation(
        "content-type-one-ows-octet-trimmed",
        "MB-STATUS-1 one octet of OWS trimmed on each side of the Content-Type value, so "
        "several read as part of the media type, answered 415",
        CATCHERS,
        on_response=refuses(_type_ows_over_one, 415, "MB-WIRE-2"),
        behaviour=TAPPED,
    ),
    # MB-INTER-5: "accept batch request content framed by the chunked transfer coding (RFC 9112
    # §7.1) and answer it as it answers the same content framed by `Content-Length`"; RFC 9112
    # §7.1: "chunk-size = 1*HEXDIG", "last-chunk = 1*("0") [ chunk-ext ] CRLF".
    Mutation(
        "chunk-size-lower-case-hex-only",
        "MB-INTER-5 a chunk size written in upper-case hex refused 400",
        ("chunk-size-spellings-answered-as-content-length",),
        on_response=refuses(_upper_hex_size, 400, "MB-INTER-5"),
        behaviour=TAPPED,
    ),
    Mutation(
        "last-chunk-read-as-zero-only",
        "MB-INTER-5 a last chunk written with several zeros refused 400 as content never ended",
        ("chunk-size-spellings-answered-as-content-length",),
        on_response=refuses(_last_chunk_zeros, 400, "MB-WIRE-13"),
        behaviour=TAPPED,
    ),
)
