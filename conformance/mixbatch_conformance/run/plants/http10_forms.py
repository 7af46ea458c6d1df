"""Planted violations of what a server writes by the request's HTTP version (spec 6.1, 4.4).

An HTTP/1.0 client takes no chunked coding, so a server that streams multipart/mixed can end
such an answer only by closing the connection. A competent implementer gives that client the
JSON form instead, one document with a Content-Length, whenever its Accept admits the JSON
form (no Accept included): a batch over HTTP/1.0 without Accept is then answered 207 JSON
where MB-MULTI-1 fixes multipart/mixed, and `*/*` or a tie the same. The plant shows the
reference server such a request with Accept naming the JSON form alone.

A server that answers HTTP/1.0 whole, with a Content-Length, may gather the streamed answer
as text (each chunk decoded as Latin-1) and turn it back into octets in UTF-8: every octet past
0x7F in a part body becomes two, and the part's Content-Length no longer counts its body.
"""

from __future__ import annotations

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import is_batch, split_quoted
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS", "quality"]

MULTIPART = "multipart/mixed"
XML = "application/xml"
JSON = "application/vnd.mixbatch.multistatus+json"


def quality(members: list[str], media: str) -> float:
    """The quality `members` (Accept's list members) give `media`: that of the most specific
    range that matches it (RFC 9110 §12.5.1), 0 when none does."""
    kind = media.split("/")[0]
    best, rank = 0.0, -1
    for member in members:
        params = split_quoted(member, ";", "pair")
        rng = params[0].strip(" \t").lower()
        if rng.count("/") != 1:
            continue
        t, s = rng.split("/")
        if rng == media:
            r = 2
        elif s == "*" and t == kind:
            r = 1
        elif rng == "*/*":
            r = 0
        else:
            continue
        q = 1.0
        for p in params[1:]:
            name, _, value = p.partition("=")
            if name.strip(" \t").lower() == "q":
                try:
                    q = float(value.strip(" \t"))
                except ValueError:
                    q = 0.0
        if r > rank:
            best, rank = q, r
    return best


def _json_for_http10(req: RelayRequest) -> None:
    """An HTTP/1.0 batch that would be answered in multipart/mixed and whose Accept admits the
    JSON form (an absent or empty Accept included) asks for the JSON form alone."""
    if not is_batch(req) or req.version != "1.0":
        return
    values = [v for n, v in req.headers if n.lower() == "accept"]
    members = [m for v in values for m in split_quoted(v, ",", "pair") if m.strip(" \t")]
    if members:
        mixed, xml, json_ = (quality(members, m) for m in (MULTIPART, XML, JSON))
        if mixed <= 0 or mixed < max(xml, json_) or json_ <= 0:
            return
    req.headers = [(n, v) for n, v in req.headers if n.lower() != "accept"]
    req.headers.append(("Accept", JSON))


def _http10_answer_recoded(req: RelayRequest, resp: RelayResponse) -> None:
    """An HTTP/1.0 batch's multipart answer gathered as Latin-1 text and written as UTF-8."""
    media = (resp.get("Content-Type") or "").lower()
    if is_batch(req) and req.version == "1.0" and media.startswith(MULTIPART):
        resp.body = resp.body.decode("latin-1").encode("utf-8")


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "http10-batch-answered-in-json-form",
        "MB-MULTI-1 a batch over HTTP/1.0 whose Accept admits the JSON form (none included) "
        "answered in the JSON form",
        ("http10-accept-chooses-as-over-http11",),
        on_request=_json_for_http10,
    ),
    Mutation(
        "http10-answer-recoded-as-utf8",
        "MB-WIRE-16 an HTTP/1.0 batch's part bodies re-encoded, octets past 0x7F doubled, so "
        "a part's Content-Length no longer counts its body",
        ("http10-batch-in-every-form",),
        on_response=_http10_answer_recoded,
    ),
)
