"""Planted violations of how a server reads a Batch-Mode list and what its strong aggregate
ETag hashes (spec 7.7, 4.2).

Two mistakes of a server written carefully from the spec: one that runs only the exact value
`atomic` on one field line, so `atomic,`, `atomic, atomic` and two `atomic` lines are answered
501 though they list one mode it implements (MB-PROC-17, RFC 9110 §5.6.1); and one whose
strong aggregate ETag of a collection retrieval hashes the members' ids and ETags only, while
each part also carries the member's `Last-Modified`, so a member rewritten with the same
content changes the octets under the same tag (MB-METHOD-7).
"""

from __future__ import annotations

import hashlib

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import boundary_of, field_of, is_batch, parts_of
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: A mode the reference server does not implement: what the planted server hears for any
#: Batch-Mode other than one mode alone on one field line.
UNREAD_LIST = "mb-plant-unread-list"


def _exact_mode_only(req: RelayRequest) -> None:
    """A server that compares Batch-Mode with one mode as a whole value: a list with an empty
    element, a repeated mode or a second field line is a mode it does not know (501)."""
    lines = [v for n, v in req.headers if n.lower() == "batch-mode"]
    if not lines or not is_batch(req):
        return
    if len(lines) == 1 and "," not in lines[0]:
        return
    req.headers = [(n, v) for n, v in req.headers if n.lower() != "batch-mode"]
    req.headers.append(("Batch-Mode", UNREAD_LIST))


def _tag_over_member_tags(req: RelayRequest, resp: RelayResponse) -> None:
    """A collection retrieval whose strong ETag is a hash of each part's Content-Id and ETag:
    it stays when a member's Last-Modified, which its part carries, moves."""
    b = boundary_of(resp)
    etag = resp.get("ETag") or ""
    if req.method != "GET" or resp.status != 200 or not b or not etag or etag.startswith("W/"):
        return
    parts = parts_of(resp.body, b)
    if parts is None:
        return
    digest = hashlib.sha256()
    for fields, _ in parts:
        digest.update(f"{field_of(fields, 'Content-Id')}\0{field_of(fields, 'ETag')}\n".encode())
    resp.set("ETag", f'"plant-{digest.hexdigest()[:24]}"')


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "batch-mode-list-forms-refused",
        "MB-PROC-17 a Batch-Mode list with an empty element, a repeated mode or two field lines answered 501",
        ("implemented-mode-list-forms-run-as-plain",),
        on_request=_exact_mode_only,
    ),
    Mutation(
        "aggregate-etag-over-member-tags-only",
        "MB-METHOD-7 strong aggregate ETag hashed from member ids and ETags, parts carrying Last-Modified",
        ("sandbox-collection-strong-etag-same-octets",),
        on_response=_tag_over_member_tags,
    ),
)
