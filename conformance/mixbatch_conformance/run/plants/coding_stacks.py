"""Planted readings of the lists that name a batch's codings: its content codings stacked
(MB-INTER-6) and its transfer coding named in another case (MB-INTER-5).

The reference server decodes no content coding and answers every one 415 with
`Accept-Encoding: identity`. The relay turns it into a server that decodes gzip, x-gzip and
deflate and names them in its 415, and that:

- removes the codings of a stack in the order `Content-Encoding` lists them, not in reverse
  (RFC 9110 §8.4: they are listed in the order applied), so `gzip, deflate` runs gzip's decoder
  on deflate's output and is answered 400 as content that does not decode;
- decodes one coding alone and refuses a stack of codings it decodes with 415;
- takes a coding listed twice for one listed once, and removes it once;
- decodes gzip content as one member, so content written as several gzip members (RFC 1952
  §2.2) loses all but the first and is answered as a batch cut short.

h11, in front of the relay, reads a transfer coding's name in any case (and hands it on in
lower case); the relay, reading the field lines as the client wrote them from the connection's
tap (`Behaviour.read_ahead`), turns the reference server into one that compares the name
`chunked` case-sensitively, and refuses `Transfer-Encoding: Chunked` 400 as a final coding
other than chunked, or 501 as a transfer coding it does not know.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Callable

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import is_batch, problem, refuses, written_fields
from mixbatch_conformance.transport.relay import Behaviour, RelayRequest, RelayResponse

__all__ = ["CASE_PLANTS", "MEMBER_PLANTS", "PLANTS", "STACK_PLANTS"]

#: The codings the planted server decodes, and how.
_DECODERS: dict[str, Callable[[bytes], bytes]] = {
    "gzip": gzip.decompress,
    "x-gzip": gzip.decompress,
    "deflate": zlib.decompress,
}
#: Its 415's Accept-Encoding.
_NAMED = "identity, gzip, deflate"
STACK_CATCHERS = ("content-coding-stacks-decoded-in-reverse",)
CASE_CATCHERS = ("chunked-coding-name-any-case",)
MEMBER_CATCHERS = ("gzip-content-of-several-members-decoded",)


def _codings(req: RelayRequest) -> list[str]:
    """The members of every Content-Encoding line of a batch, lower-case, identity left out
    (none for other requests)."""
    if not is_batch(req):
        return []
    lines = [v for n, v in req.headers if n.lower() == "content-encoding"]
    members = [m.strip(" \t").lower() for line in lines for m in line.split(",")]
    return [m for m in members if m and m != "identity"]


def _decoded(req: RelayRequest, codings: list[str]) -> None:
    """The batch content with `codings` removed in the order given, its Content-Encoding
    dropped; left as it was where a decoder fails."""
    content = req.body
    for coding in codings:
        try:
            content = _DECODERS[coding](content)
        except (OSError, EOFError, zlib.error):
            return
    req.body = content
    req.headers = [(n, v) for n, v in req.headers if n.lower() != "content-encoding"]


def _in_listed_order(req: RelayRequest) -> None:
    """A server that undoes the codings from the first listed to the last."""
    codings = _codings(req)
    if codings and all(c in _DECODERS for c in codings):
        _decoded(req, codings)


def _one_coding_only(req: RelayRequest) -> None:
    """A server that decodes a batch in one coding, and takes a stack for one it does not know."""
    codings = _codings(req)
    if len(codings) == 1 and codings[0] in _DECODERS:
        _decoded(req, codings)


def _first_gzip_member(req: RelayRequest) -> None:
    """A server that decodes a batch in gzip with a decoder that stops after one member."""
    if _codings(req) != ["gzip"]:
        return
    try:
        req.body = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(req.body)
    except zlib.error:
        return
    req.headers = [(n, v) for n, v in req.headers if n.lower() != "content-encoding"]


def _listed_twice_once(req: RelayRequest) -> None:
    """A server that removes the codings listed, in reverse, each named coding once."""
    codings = _codings(req)
    if codings and all(c in _DECODERS for c in codings):
        _decoded(req, list(dict.fromkeys(reversed(codings))))


def _undecoded_400(req: RelayRequest, resp: RelayResponse) -> None:
    """A 415 left for codings the server decodes is its decoder failing: 400; any other 415 for
    a coding names the codings decoded."""
    codings = _codings(req)
    if resp.status != 415 or not codings:
        return
    if all(c in _DECODERS for c in codings):
        problem(resp, 400, "MB-STATUS-2")
        return
    _names_decoded(req, resp)


def _names_decoded(req: RelayRequest, resp: RelayResponse) -> None:
    if resp.status == 415 and _codings(req):
        resp.headers = [(n, v) for n, v in resp.headers if n.lower() != "accept-encoding"]
        resp.headers.append(("Accept-Encoding", _NAMED))


def _chunked_otherwise_spelt(req: RelayRequest) -> bool:
    """A batch whose Transfer-Encoding, as the client wrote it, names chunked in a case other
    than lower case."""
    if not is_batch(req):
        return False
    values = [v for n, _, v, _ in written_fields(req) if n.lower() == b"transfer-encoding"]
    members = [m.strip(b" \t") for v in values for m in v.split(b",")]
    return any(m.lower() == b"chunked" and m != b"chunked" for m in members)


#: The raw head is read from the connection's tap.
TAPPED = Behaviour(read_ahead=True)


STACK_PLANTS: tuple[Mutation, ...] = (
    # MB-INTER-6: "a server that decodes each coding listed removes them in the reverse of that
    # order, the last listed first, and answers the batch as it answers the same content
    # unencoded ... it answers 415 only where a coding listed is one it does not decode."
    Mutation(
        "content-codings-removed-in-listed-order",
        "MB-INTER-6 stacked content codings removed in the order listed, not in reverse, "
        "answered 400 as content that does not decode",
        STACK_CATCHERS,
        on_request=_in_listed_order,
        on_response=_undecoded_400,
    ),
    Mutation(
        "content-coding-listed-twice-removed-once",
        "MB-INTER-6 a content coding listed twice removed once, the batch answered 400 as "
        "content that does not decode",
        STACK_CATCHERS,
        on_request=_listed_twice_once,
        on_response=_undecoded_400,
    ),
    Mutation(
        "content-coding-stack-refused-415",
        "MB-INTER-6 a stack of codings each decoded alone refused 415 as a coding not supported",
        STACK_CATCHERS,
        on_request=_one_coding_only,
        on_response=_names_decoded,
    ),
)
CASE_PLANTS: tuple[Mutation, ...] = (
    # MB-INTER-5: "A server MUST accept batch request content framed by the chunked transfer
    # coding (RFC 9112 §7.1) and answer it as it answers the same content framed by
    # `Content-Length`"; RFC 9112 §7: "All transfer-coding names are case-insensitive".
    Mutation(
        "chunked-name-case-refused-400",
        "MB-INTER-5 Transfer-Encoding: Chunked refused 400 as a final coding other than chunked",
        CASE_CATCHERS,
        on_response=refuses(_chunked_otherwise_spelt, 400, "MB-STATUS-2"),
        behaviour=TAPPED,
    ),
    Mutation(
        "chunked-name-case-refused-501",
        "MB-INTER-5 Transfer-Encoding: CHUNKED refused 501 as a transfer coding not known",
        CASE_CATCHERS,
        on_response=refuses(_chunked_otherwise_spelt, 501, "MB-INTER-5"),
        behaviour=TAPPED,
    ),
)
MEMBER_PLANTS: tuple[Mutation, ...] = (
    # MB-INTER-6: a server that decodes a coding answers the batch "as it answers the same
    # content unencoded"; RFC 1952 §2.2: "A gzip file consists of a series of 'members'".
    Mutation(
        "gzip-decoded-to-its-first-member",
        "MB-INTER-6 a batch in gzip decoded to its first member only",
        MEMBER_CATCHERS,
        on_request=_first_gzip_member,
        on_response=_names_decoded,
    ),
)
PLANTS = STACK_PLANTS + CASE_PLANTS + MEMBER_PLANTS
