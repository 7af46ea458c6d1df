"""Planted violations of how a server reads a Batch-Mode list and what its strong aggregate
ETag hashes (spec 7.7, 4.2).

Two mistakes of a server written carefully from the spec: one that runs only the exact value
`atomic` on one field line, so `atomic,`, `atomic, atomic` and two `atomic` lines are answered
501 though they list one mode it implements (MB-PROC-17, RFC 9110 §5.6.1); and one whose
strong aggregate ETag of a collection retrieval hashes the members' ids and ETags only, while
each part also carries the member's `Last-Modified`, so a member rewritten with the same
content changes the octets under the same tag (MB-METHOD-7). Two more read a lookalike value
as a mode: one cuts each element at `;`, so `atomic;strict` runs atomic, and one compares
modes without case, so `ATOMIC` does (MB-PROC-12). One more drops the empty elements of the
list and reads a field left with none (`Batch-Mode: ,`, or empty) as no Batch-Mode at all, so
the batch runs in no mode where MB-PROC-12 answers it 501.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

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


def _mode_read_loosely(*, cut_parameters: bool, fold_case: bool) -> Callable[[RelayRequest], None]:
    """A server that cuts each Batch-Mode element at `;` as it does a preference's parameters,
    or compares it with its modes in any case, so a lookalike value names a mode it runs."""

    def edit(req: RelayRequest) -> None:
        if not is_batch(req):
            return
        out: list[tuple[str, str]] = []
        for n, v in req.headers:
            if n.lower() == "batch-mode":
                if cut_parameters:
                    v = ",".join(e.split(";", 1)[0].strip() for e in v.split(","))
                if fold_case:
                    v = v.lower()
            out.append((n, v))
        req.headers = out

    return edit


def _empty_list_as_absent(req: RelayRequest) -> None:
    """A server that drops empty list elements and then treats a Batch-Mode with none left as
    absent: the reference server is shown the batch without the field."""
    lines = [v for n, v in req.headers if n.lower() == "batch-mode"]
    if not lines or not is_batch(req):
        return
    if any(e.strip(" \t") for v in lines for e in v.split(",")):
        return
    req.headers = [(n, v) for n, v in req.headers if n.lower() != "batch-mode"]


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
        "batch-mode-parameters-cut",
        "MB-PROC-12 a Batch-Mode element cut at ';' as a preference's parameters are",
        ("mode-lookalike-values-refused",),
        on_request=_mode_read_loosely(cut_parameters=True, fold_case=False),
    ),
    Mutation(
        "batch-mode-compared-without-case",
        "MB-PROC-12 a Batch-Mode value compared with the modes in any case",
        ("mode-lookalike-values-refused",),
        on_request=_mode_read_loosely(cut_parameters=False, fold_case=True),
    ),
    Mutation(
        "batch-mode-empty-list-as-absent",
        "MB-PROC-12 a Batch-Mode field holding no element run as if the field were absent",
        ("mode-lookalike-values-refused",),
        on_request=_empty_list_as_absent,
    ),
    Mutation(
        "aggregate-etag-over-member-tags-only",
        "MB-METHOD-7 strong aggregate ETag hashed from member ids and ETags, parts carrying Last-Modified",
        ("sandbox-collection-strong-etag-same-octets",),
        on_response=_tag_over_member_tags,
    ),
)
