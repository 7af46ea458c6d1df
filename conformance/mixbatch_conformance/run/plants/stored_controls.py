"""A planted server whose HTTP reader takes any octet but CR and LF in a field value, and whose
batch writer trusts the fields a resource stored (MB-SEC-3):

    stored-nul-written-into-part   a member PUT alone under a media type holding NUL keeps that
                                   media type, and a GET or HEAD part of the member is written
                                   with it, NUL and all, in its Content-Type line

The relay's reader (h11) refuses NUL in a field value as RFC 9110 §5.5 allows, so the plant
takes each NUL the client sends for `STAND_IN` before the reader sees it, and reads the stand-in
in a sandbox member's media type as the NUL it was. The reference server takes the PUT under the
stand-in (an application/json type with a parameter); the relay remembers the media type by
member and writes it into each part that answers a GET or HEAD of the member 200.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from mixbatch_conformance.run.mutations import Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    SANDBOX_MEMBER,
    boundary_of,
    field_of,
    is_batch,
    parts_of,
    set_field,
)
from mixbatch_conformance.transport.relay import Behaviour, RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: The octet each NUL from the client is read as: obs-text, which h11 takes in a field value.
STAND_IN = b"\xff"
#: The media type each member was last written under alone, NUL restored: path -> media type.
_STORED: dict[str, str] = {}


def _nul_read_as_stand_in(data: bytes) -> bytes:
    return data.replace(b"\x00", STAND_IN)


def _stores(req: RelayRequest, resp: RelayResponse) -> None:
    path = urlsplit(req.target).path
    if not is_batch(req):
        if not SANDBOX_MEMBER.fullmatch(path) or not 200 <= resp.status < 300:
            return
        media = req.get("Content-Type") or ""
        if req.method == "PUT" and STAND_IN.decode("latin-1") in media:
            _STORED[path] = media.replace(STAND_IN.decode("latin-1"), "\x00")
        elif req.method in ("PUT", "DELETE"):
            _STORED.pop(path, None)
        return
    b = boundary_of(resp)
    parts = parts_of(resp.body, b) if b else None
    if b is None or parts is None:
        return
    out = []
    for fields, body in parts:
        cid = (field_of(fields, "Content-Id") or "").strip().removeprefix("<").removesuffix(">")
        stored = _STORED.get(urlsplit(cid).path)
        if stored is not None and field_of(fields, "Http-Status-Code") == "200":
            fields = set_field(fields, "Content-Type", stored)
        out.append((fields, body))
    resp.body = write_parts(out, b)


PLANTS: tuple[Mutation, ...] = (
    # MB-SEC-3: "A sender MUST NOT write a part header field whose name is not a `token` or
    # whose value contains CR, LF or NUL; it fails locally instead."
    Mutation(
        "stored-nul-written-into-part",
        "MB-SEC-3 a stored media type holding NUL written into a part's Content-Type line",
        ("stored-nul-kept-out-of-part-fields",),
        on_response=_stores,
        behaviour=Behaviour(client_octets=_nul_read_as_stand_in),
    ),
)
