"""Planted violations by servers that read a singleton field as an RFC 9110 list (spec 3.1.1,
3.1.4, 3.2.1, 3.2.2).

The spec's grammar gives each of these fields one value, not a `#rule` list: `Http-Method =
method`, `Content-Id = "<" URI-reference ">"`, a part's `Content-Length` is `1*DIGIT`
(MB-WIRE-20, whose prose sets RFC 9110 §8.6's repeated list value aside inside a part) and the
batch `Content-Type` is `batch-content-type = "multipart/mixed" parameters`. A server whose
field reader splits every value at commas, drops the empty elements as RFC 9110 §5.6.1 tells a
list recipient to, and takes one member, runs what the spec answers 400 (or 415). The plants
model such readers:

- an Http-Method read as a list, its first member the method (MB-PART-2);
- an Http-Method read up to the first octet outside `tchar`, so `GET HEAD` and `GET;x=1` run
  as GET (MB-PART-2);
- a Content-Id read as a list, its first member the target (MB-PART-4);
- a part Content-Length read as a list of one repeated value (MB-WIRE-20);
- the batch Content-Type read as a list, its first member the media type, or its
  multipart/mixed member (MB-WIRE-4).

Each shows the reference server the request as the planted reader understands it.
"""

from __future__ import annotations

import re

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import part_field_read, split_quoted
from mixbatch_conformance.transport.relay import RelayRequest

__all__ = ["PLANTS", "list_members"]

#: The leading token of a value (RFC 9110 §5.6.2 tchar).
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")


def list_members(value: str) -> list[str]:
    """The non-empty members of `value` read as an RFC 9110 §5.6.1 list, commas inside
    quoted-strings kept."""
    return [m.strip(" \t") for m in split_quoted(value, ",", "pair") if m.strip(" \t")]


def _first_member(value: str) -> str:
    members = list_members(value)
    return members[0] if members else value


def _leading_token(value: str) -> str:
    m = _TOKEN.match(value.strip(" \t"))
    return m.group(0) if m else value


def _posted_multipart(req: RelayRequest) -> str | None:
    """The Content-Type of a POST naming multipart/mixed anywhere in it."""
    ctype = req.get("Content-Type")
    if req.method != "POST" or ctype is None or "multipart/mixed" not in ctype.lower():
        return None
    return ctype


def _set_content_type(req: RelayRequest, value: str) -> None:
    req.headers = [(n, v) for n, v in req.headers if n.lower() != "content-type"]
    req.headers.append(("Content-Type", value))


def _content_type_first_member(req: RelayRequest) -> None:
    ctype = _posted_multipart(req)
    if ctype is not None and "," in ctype:
        _set_content_type(req, _first_member(ctype))


def _content_type_multipart_member(req: RelayRequest) -> None:
    ctype = _posted_multipart(req)
    if ctype is None or "," not in ctype:
        return
    members = list_members(ctype)
    mixed = [m for m in members if m.lower().startswith("multipart/mixed")]
    if mixed:
        _set_content_type(req, mixed[0])


P = Mutation
PLANTS: tuple[Mutation, ...] = (
    P(
        "http-method-first-list-member",
        "MB-PART-2 an Http-Method read as an RFC 9110 list, its first member the method",
        (
            "reject-http-method-list",
            "reject-http-method-list-same-member",
            "reject-http-method-list-trailing-comma",
            "reject-http-method-list-leading-comma",
        ),
        on_request=part_field_read("Http-Method", _first_member),
    ),
    P(
        "http-method-leading-token",
        "MB-PART-2 an Http-Method read up to its first octet outside tchar",
        (
            "reject-http-method-list",
            "reject-http-method-list-same-member",
            "reject-http-method-list-trailing-comma",
            "reject-http-method-two-tokens",
            "reject-http-method-parameter",
        ),
        on_request=part_field_read("Http-Method", _leading_token),
    ),
    P(
        "content-id-first-list-member",
        "MB-PART-4 a Content-Id read as an RFC 9110 list, its first member the target",
        (
            "reject-content-id-list",
            "reject-content-id-list-same-member",
            "reject-content-id-list-trailing-comma",
            "reject-content-id-list-leading-comma",
        ),
        on_request=part_field_read("Content-Id", _first_member),
    ),
    P(
        "part-content-length-repeated-value-taken",
        "MB-WIRE-20 a part Content-Length read as an RFC 9110 list of one repeated value",
        (
            "reject-content-length-list",
            "reject-content-length-list-without-ows",
            "reject-content-length-list-trailing-comma",
            "reject-content-length-list-leading-comma",
        ),
        on_request=part_field_read("Content-Length", _first_member),
    ),
    P(
        "batch-content-type-first-list-member",
        "MB-WIRE-4 the batch Content-Type read as an RFC 9110 list, its first member taken",
        (
            "reject-media-type-list-after-batch-type",
            "reject-media-type-list-batch-type-twice",
            "reject-media-type-list-trailing-comma",
        ),
        on_request=_content_type_first_member,
    ),
    P(
        "batch-content-type-multipart-member",
        "MB-WIRE-4 the batch Content-Type read as an RFC 9110 list, its multipart/mixed member "
        "taken",
        (
            "reject-media-type-list-after-batch-type",
            "reject-media-type-list-batch-type-twice",
            "reject-media-type-list-trailing-comma",
            "reject-media-type-list-before-batch-type",
        ),
        on_request=_content_type_multipart_member,
    ),
)
