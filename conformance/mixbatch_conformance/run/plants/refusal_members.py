"""Planted violations of what a refusal says and when a server refuses (spec 3.2.1, 3.2.2, 4,
5.3, 8.4, 9.1).

A server that upper-cases a part's method before its MB-SUB-3 test, so `trace` refuses the
whole batch where it is an unknown method answered in its part (MB-STATUS-5). A framework's
405, and its 400 for a GET with content, sent as text instead of a problem document naming
the method rule, or a problem naming the envelope rule (MB-STATUS-4). A URI parser that fails
on `a:b` and names MB-PART-4 for another scheme, and one that names MB-SUB-2 for every bad
target (MB-STATUS-4). A limit's 413 or 431 naming a framing rule, and one for too many parts
carrying no location, as if a count of parts were a limit on the whole batch (MB-STATUS-4).
Refusals of a
fault outside the content placed at part 0, octet 0 by default (MB-STATUS-4). A router that
takes `/batch/` for the batch endpoint while the nesting test compares the literal path
(MB-SUB-4).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import edit_problem, is_batch, problem, problem_doc
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: A part whose method is MB-SUB-3's in another case.
_OTHER_CASE_FORBIDDEN = re.compile(rb"(?im)^Http-Method:[ \t]*(trace|connect)[ \t]*\r?$")
#: A part whose target has a scheme with no `//` after it (`a:b`, `mailto:`).
_OPAQUE_SCHEME = re.compile(rb"(?im)^Content-Id:[ \t]*<(a:b|mailto:[^>]*)>")
#: The statuses of faults outside the content (method, Accept, Content-Type, Batch-Mode).
_UNLOCATED_STATUSES = frozenset({405, 406, 415, 501})


def _other_case_method_refused(requirement: str) -> Callable[[RelayRequest, RelayResponse], None]:
    """A lower-case trace or connect part refuses the batch as a forbidden method, the problem
    document naming `requirement`."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        found = _OTHER_CASE_FORBIDDEN.findall(req.body) if is_batch(req) else []
        if resp.status == 200 and any(m != m.upper() for m in found):
            problem(resp, 400, requirement)

    return edit


def _method_refusal_as_text(req: RelayRequest, resp: RelayResponse) -> None:
    """The framework's 405: a line of text, no problem document."""
    if resp.status == 405:
        resp.headers = [(n, v) for n, v in resp.headers if n.lower() != "content-type"]
        resp.headers.append(("Content-Type", "text/plain"))
        resp.body = b"Method Not Allowed"


def _get_content_names_envelope(req: RelayRequest, resp: RelayResponse) -> None:
    """The 400 to a GET with content names the envelope rule, not MB-METHOD-3."""
    if req.method == "GET" and resp.status == 400:
        edit_problem(resp, lambda doc: doc.update(requirement="MB-STATUS-2"))


def _opaque_scheme_named_malformed(req: RelayRequest, resp: RelayResponse) -> None:
    """A URI parser that fails on `a:b` or `mailto:`: another scheme named MB-PART-4."""
    if resp.status == 400 and _OPAQUE_SCHEME.search(req.body):
        edit_problem(resp, lambda doc: doc.update(requirement="MB-PART-4"))


def _malformed_target_named_other_origin(req: RelayRequest, resp: RelayResponse) -> None:
    """Every refused target named MB-SUB-2, a malformed one too."""

    def edit(doc: dict[str, Any]) -> None:
        if doc.get("requirement") == "MB-PART-4":
            doc["requirement"] = "MB-SUB-2"

    if resp.status == 400 and re.search(rb"(?im)^Content-Id:[ \t]*<", req.body):
        edit_problem(resp, edit)


def _limit_named_framing(req: RelayRequest, resp: RelayResponse) -> None:
    """A generic malformed-request path: a limit's 413 or 431 names MB-WIRE-17."""
    if resp.status in (413, 431):
        edit_problem(resp, lambda doc: doc.update(requirement="MB-WIRE-17"))


def _too_many_parts_unlocated(req: RelayRequest, resp: RelayResponse) -> None:
    """A 413 for too many parts with part_index and byte_offset null."""
    if resp.status == 413:
        doc = problem_doc(resp)
        if doc is not None and doc.get("limit") == "max_parts":
            edit_problem(resp, lambda d: d.update(part_index=None, byte_offset=None))


def _located_at_start(req: RelayRequest, resp: RelayResponse) -> None:
    """Every refusal carries part_index 0 and byte_offset 0 unless the parser set them."""
    if resp.status in _UNLOCATED_STATUSES:
        edit_problem(resp, lambda doc: doc.update(part_index=0, byte_offset=0))


def _trailing_slash_routed(req: RelayRequest) -> None:
    """The router takes `/batch/` for `/batch`; the nesting test in the batch code does not."""
    if req.method == "POST" and req.target.endswith("/") and len(req.target) > 1:
        req.target = req.target[:-1]


PLANTS: tuple[Mutation, ...] = (
    # Spec 3.2.1: another case "is answered in its part like any unknown method ...; it is
    # not an envelope error".
    Mutation(
        "other-case-forbidden-method-refused",
        "MB-SUB-3 a trace or connect part refusing the batch as TRACE or CONNECT would",
        ("forbidden-method-other-case-answered-in-part",),
        on_response=_other_case_method_refused("MB-SUB-3"),
    ),
    Mutation(
        "other-case-method-refused-as-malformed",
        "MB-STATUS-5 a trace or connect part refusing the batch as a malformed one",
        ("forbidden-method-other-case-answered-in-part",),
        on_response=_other_case_method_refused("MB-STATUS-2"),
    ),
    Mutation(
        "method-refusal-as-text",
        "MB-STATUS-4 a 405 from the batch endpoint with a text body, no problem document",
        ("method-refusal-names-requirement",),
        on_response=_method_refusal_as_text,
    ),
    Mutation(
        "get-content-refusal-names-envelope",
        "MB-STATUS-4 the 400 to a GET with content naming MB-STATUS-2, not MB-METHOD-3",
        ("method-refusal-names-requirement",),
        on_response=_get_content_names_envelope,
    ),
    Mutation(
        "opaque-scheme-named-malformed",
        "MB-STATUS-4 a target of another scheme without // (a:b, mailto:) named MB-PART-4",
        ("refusal-names-broken-requirement",),
        on_response=_opaque_scheme_named_malformed,
    ),
    Mutation(
        "malformed-target-named-other-origin",
        "MB-STATUS-4 a malformed Content-Id value named MB-SUB-2, like a target of another origin",
        ("refusal-names-broken-requirement",),
        on_response=_malformed_target_named_other_origin,
    ),
    Mutation(
        "limit-refusal-named-framing",
        "MB-STATUS-4 a 413 or 431 for an exceeded limit naming MB-WIRE-17",
        ("limit-parts-one-over", "limit-part-fields-one-over", "limit-part-header-bytes-one-over"),
        on_response=_limit_named_framing,
    ),
    Mutation(
        "too-many-parts-refusal-unlocated",
        "MB-STATUS-4 a 413 for too many parts with part_index and byte_offset null",
        ("limit-parts-one-over",),
        on_response=_too_many_parts_unlocated,
    ),
    Mutation(
        "unlocated-refusals-at-part-zero",
        "MB-STATUS-4 a 405, 406, 415 or 501 placing its fault at part 0, octet 0",
        ("unlocated-refusals-carry-no-location",),
        on_response=_located_at_start,
    ),
    Mutation(
        "trailing-slash-routed-not-nested",
        "MB-SUB-4 a part naming /batch/, which the router takes for /batch, run as a sub-request",
        ("nesting-routed-spellings-refused",),
        on_request=_trailing_slash_routed,
    ),
)
