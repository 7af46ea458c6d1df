"""Planted violations of how a server reads a batch in a transfer coding or a content coding.

Covers MB-INTER-5 (chunked content answered as the same content framed by Content-Length, its
limits counting content octets) and MB-INTER-6 (a content coding the server does not decode is
refused before any part runs). The relay reads a chunked request whole and forwards it framed
by Content-Length, keeping the chunk lengths the client sent (`RelayRequest.chunks`), so each
plant acts on the request as the client framed it.
"""

from __future__ import annotations

from collections.abc import Callable

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import in_mode_or_form, is_batch, problem, refuses
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: The reference server's max_batch_bytes, which the chunk-size plant counts against.
REFERENCE_MAX_BATCH_BYTES = 64 * 1024 * 1024


def _chunked(req: RelayRequest) -> bool:
    return is_batch(req) and "chunked" in (req.get("Transfer-Encoding") or "").lower()


def _first_chunk_only(req: RelayRequest) -> None:
    """A server that takes the first chunk for the whole content."""
    if _chunked(req) and len(req.chunks) > 1:
        req.body = req.body[: req.chunks[0]]


def _framing_octets(req: RelayRequest) -> int:
    """The octets of the chunk-size lines and chunk CRLFs the client sent, last chunk included."""
    lines = sum(len(b"%x\r\n\r\n" % n) for n in req.chunks)
    return lines + len(b"0\r\n\r\n")


def _counts_chunk_lines(req: RelayRequest) -> bool:
    total = len(req.body) + _framing_octets(req)
    return _chunked(req) and total > REFERENCE_MAX_BATCH_BYTES


def _coding(req: RelayRequest) -> str | None:
    return req.get("Content-Encoding") if is_batch(req) else None


def _decode_anyway(req: RelayRequest) -> None:
    """A server that runs the parts of a batch in a coding it does not know (read as identity),
    then answers 415 for the coding."""
    if _coding(req) is not None:
        req.headers = [(n, v) for n, v in req.headers if n.lower() != "content-encoding"]
        req.headers.append(("X-Planted-Coding", "ignored"))


def _late_415(req: RelayRequest, resp: RelayResponse) -> None:
    if req.get("X-Planted-Coding") is not None:
        problem(resp, 415, "MB-WIRE-2")
        resp.headers.append(("Accept-Encoding", "identity"))


def _names_coding(extra: str) -> Callable[[RelayRequest, RelayResponse], None]:
    """A server whose 415 for a content coding names `extra` too, a coding it does not decode."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        if _coding(req) is not None and resp.status == 415:
            resp.headers = [(n, v) for n, v in resp.headers if n.lower() != "accept-encoding"]
            resp.headers.append(("Accept-Encoding", f"identity, {extra}"))

    return edit


#: MIME transfer encodings that leave the octets as they are (RFC 2045 §6.1).
_MIME_UNENCODED = frozenset({"binary", "8bit", "7bit"})
#: Names like no coding, and codings of other registries, a server might skip.
_LOOKALIKES = frozenset({*_MIME_UNENCODED, "quoted-printable", "base64", "chunked", "x-identity"})


def _members(value: str) -> list[str]:
    return [m.strip(" \t") for m in value.split(",") if m.strip(" \t")]


def _skips_codings(
    skipped: Callable[[str], bool], when: Callable[[RelayRequest], bool] = is_batch
) -> Callable[[RelayRequest], None]:
    """A server that takes each Content-Encoding member `skipped` selects for no coding: the
    field is dropped when every member is one of those or identity, so the batch runs."""

    def edit(req: RelayRequest) -> None:
        if _coding(req) is None or not when(req):
            return
        lines = [v for n, v in req.headers if n.lower() == "content-encoding"]
        members = [m for line in lines for m in _members(line)]
        if members and all(m.lower() == "identity" or skipped(m) for m in members):
            req.headers = [(n, v) for n, v in req.headers if n.lower() != "content-encoding"]

    return edit


def _identity_with_parameters(member: str) -> bool:
    """identity read past a parameter or quotes: `identity; q=1`, `"identity"`."""
    return member.split(";")[0].strip(' \t"').lower() == "identity"


P = Mutation
PLANTS: tuple[Mutation, ...] = (
    # MB-INTER-5: chunked batch content is accepted and answered as Content-Length content.
    P(
        "chunked-batch-refused-411",
        "MB-INTER-5 chunked content refused with 411",
        ("chunked-batch-answered-as-content-length",),
        on_response=refuses(_chunked, 411, "MB-INTER-5"),
    ),
    P(
        "chunked-batch-refused-400",
        "MB-INTER-5 chunked content refused as malformed",
        ("chunked-batch-answered-as-content-length",),
        on_response=refuses(_chunked, 400, "MB-STATUS-2"),
    ),
    P(
        "chunked-batch-first-chunk-only",
        "MB-INTER-5 only the first chunk read",
        ("chunked-batch-answered-as-content-length",),
        on_request=_first_chunk_only,
    ),
    P(
        "chunked-batch-limit-counts-chunk-lines",
        "MB-INTER-5 chunk-size lines counted into max_batch_bytes",
        ("limit-batch-bytes-at-limit-chunked",),
        on_response=refuses(_counts_chunk_lines, 413, "MB-STATUS-3"),
    ),
    # MB-INTER-6: a batch in an unsupported content coding is refused before any part runs.
    P(
        "content-coded-batch-runs-before-415",
        "MB-INTER-6 parts run before the 415",
        ("content-coded-batch-runs-nothing",),
        on_request=_decode_anyway,
        on_response=_late_415,
    ),
    P(
        "content-coding-415-names-gzip-undecoded",
        "MB-INTER-6 the 415 names gzip, which the server refuses",
        ("registered-codings-decoded-or-refused",),
        on_response=_names_coding("gzip"),
    ),
    P(
        "content-coding-415-names-no-coding",
        "MB-INTER-6 the 415 names a coding that does not exist",
        ("registered-codings-decoded-or-refused",),
        on_response=_names_coding("identityx"),
    ),
    P(
        "mime-unencoded-names-as-identity",
        "MB-INTER-6 binary, 8bit and 7bit taken for identity",
        ("content-coding-lookalikes-refused",),
        on_request=_skips_codings(lambda m: m.lower() in _MIME_UNENCODED),
    ),
    P(
        "transfer-coding-name-as-identity",
        "MB-INTER-6 chunked in Content-Encoding taken for the transfer coding, already undone",
        ("content-coding-lookalikes-refused",),
        on_request=_skips_codings(lambda m: m.lower() == "chunked"),
    ),
    P(
        "identity-parameters-ignored",
        "MB-INTER-6 identity with a parameter or in quotes read as identity",
        ("content-coding-lookalikes-refused",),
        on_request=_skips_codings(_identity_with_parameters),
    ),
    P(
        "coding-lookalikes-skipped-in-modes",
        "MB-INTER-6 coding lookalikes taken for identity in the 207 forms and modes",
        ("content-coding-lookalikes-refused",),
        on_request=_skips_codings(lambda m: m.lower() in _LOOKALIKES, in_mode_or_form),
    ),
)
