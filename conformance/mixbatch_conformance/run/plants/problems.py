"""Planted violations of what a problem document says about an envelope fault: where it is
(MB-STATUS-4: part_index and byte_offset, 0 included) and which limit was exceeded
(MB-LIMIT-5). Each entry edits the reference server's problem documents one way; the last
ones write a refusal as plain text when the request's Accept does not name problem+json
(MB-STATUS-4 binds every 4xx and 5xx, whatever Accept asks for).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import RespEdit, boundary_of, edit_problem
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]


def _problem_edit(fn: Callable[[dict[str, Any]], None]) -> RespEdit:
    """A server whose problem documents `fn` edits."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        edit_problem(resp, fn)

    return edit


#: The target refusals a server with one "forbidden target" path names as MB-SUB-2.
_TARGET_REFUSALS = frozenset({"MB-SUB-3", "MB-SUB-4", "MB-SUB-8"})


def _target_refusals_named_sub_2(doc: dict[str, Any]) -> None:
    if doc.get("requirement") in _TARGET_REFUSALS:
        doc["requirement"] = "MB-SUB-2"


def _framing_refusals_named_status_2(doc: dict[str, Any]) -> None:
    """One requirement for every framing fault: the generic 400 of a malformed envelope."""
    if str(doc.get("requirement", "")).startswith("MB-WIRE-"):
        doc["requirement"] = "MB-STATUS-2"


def _omit_zero(member: str) -> Callable[[dict[str, Any]], None]:
    def fn(doc: dict[str, Any]) -> None:
        if doc.get(member) == 0:
            del doc[member]

    return fn


def _offset_at_crlf(doc: dict[str, Any]) -> None:
    """An offset counted from the CRLF before the faulty line, not from its first octet."""
    if isinstance(doc.get("byte_offset"), int) and doc["byte_offset"] >= 2:
        doc["byte_offset"] -= 2


def _count_parts_from_one(doc: dict[str, Any]) -> None:
    if isinstance(doc.get("part_index"), int):
        doc["part_index"] += 1


def _limit_fault_in_part_zero(doc: dict[str, Any]) -> None:
    """A limit fault always placed in the first part, whichever part broke the limit."""
    if doc.get("limit") and isinstance(doc.get("part_index"), int):
        doc["part_index"] = 0


def _fields_named_as_bytes(doc: dict[str, Any]) -> None:
    if doc.get("limit") == "max_part_fields":
        doc["limit"] = "max_part_header_bytes"


def _plain_when_not_asked(statuses: frozenset[int]) -> RespEdit:
    """A server that writes a refusal in `statuses` as text/plain unless Accept admits
    application/problem+json (or the request has no Accept)."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        accept = (req.get("Accept") or "").lower()
        if resp.status not in statuses or not accept or "problem+json" in accept:
            return
        if "*/*" in accept and "*/*;q=0" not in accept.replace(" ", ""):
            return
        resp.headers = [(n, v) for n, v in resp.headers if n.lower() != "content-type"]
        resp.headers.append(("Content-Type", "text/plain"))
        resp.body = b"not acceptable\n"

    return edit


def _offsets_from_first_delimiter(padding: bool) -> RespEdit:
    """A server that counts byte_offset from the first delimiter, the preamble dropped before
    it parses (`padding` False), or from a first delimiter line stripped of its transport
    padding (True)."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        boundary = boundary_of(req)
        if not boundary:
            return
        dash = b"--" + boundary.encode("latin-1")
        first = req.body.find(dash)
        if padding:
            end = req.body.find(b"\r\n", first)
            shift = len(req.body[first + len(dash) : end]) - len(
                req.body[first + len(dash) : end].rstrip(b" \t")
            )
        else:
            shift = first
        if first < 0 or shift <= 0:
            return

        def fn(doc: dict[str, Any]) -> None:
            if isinstance(doc.get("byte_offset"), int) and doc["byte_offset"] >= shift:
                doc["byte_offset"] -= shift

        _problem_edit(fn)(req, resp)

    return edit


def _coding_refused_as_text(drop_accept_encoding: bool) -> RespEdit:
    """A server that refuses a batch in a content coding it does not decode before its batch
    machinery sees it: 415 written as text/plain (`drop_accept_encoding` False), or as a
    problem document without the Accept-Encoding field (True)."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        if resp.status != 415 or not req.get("Content-Encoding"):
            return
        if drop_accept_encoding:
            resp.headers = [(n, v) for n, v in resp.headers if n.lower() != "accept-encoding"]
            return
        resp.headers = [(n, v) for n, v in resp.headers if n.lower() != "content-type"]
        resp.headers.append(("Content-Type", "text/plain; charset=utf-8"))
        resp.body = b"unsupported content coding\n"

    return edit


def _status_of_mode_problem_of_accept(req: RelayRequest, resp: RelayResponse) -> None:
    """A server that checks Batch-Mode first and Accept last, and answers with the first
    fault's status (501) and the last fault's problem document (MB-STATUS-9's 406)."""
    accept = (req.get("Accept") or "").lower()
    offered = ("multipart", "json", "xml", "*")
    if not req.get("Batch-Mode") or resp.status != 501 or not accept:
        return
    if not any(word in accept for word in offered):
        _problem_edit(lambda doc: doc.update(requirement="MB-STATUS-9"))(req, resp)


def _mode_status_for_limit_problem(req: RelayRequest, resp: RelayResponse) -> None:
    """A server that finds an unknown Batch-Mode and a part header line over a limit, and
    answers the mode's 501 with the limit's problem document."""
    long_line = any(len(line) > 1024 for line in req.body.split(b"\r\n"))
    if req.get("Batch-Mode") and resp.status == 501 and long_line:
        _problem_edit(
            lambda doc: doc.update(
                requirement="MB-STATUS-3", limit="max_part_header_bytes", part_index=0
            )
        )(req, resp)


def _located_when_not_in_content(doc: dict[str, Any]) -> None:
    """A problem for a fault outside the content that places it at the first part anyway."""
    if doc.get("status") in (406, 415, 501):
        doc.update(part_index=0, byte_offset=0)


#: The envelope cases whose fault spec 5.3 places at offset 0 or in part 0 or past it.
_AT_OFFSET_ZERO = ("reject-text-after-boundary", "reject-bare-lf-after-delimiter")
_IN_PART_ZERO = ("reject-http-method-missing", "reject-content-id-missing")
_PAST_OFFSET_ZERO = ("reject-text-after-later-boundary", "reject-second-part-malformed")

P = Mutation
PLANTS: tuple[Mutation, ...] = (
    # MB-STATUS-4: the problem document places the fault where spec 5.3 does.
    P(
        "byte-offset-zero-omitted",
        "MB-STATUS-4 byte_offset 0",
        _AT_OFFSET_ZERO,
        on_response=_problem_edit(_omit_zero("byte_offset")),
    ),
    P(
        "part-index-zero-omitted",
        "MB-STATUS-4 part_index 0",
        _IN_PART_ZERO + _AT_OFFSET_ZERO,
        on_response=_problem_edit(_omit_zero("part_index")),
    ),
    P(
        "byte-offset-at-crlf",
        "MB-STATUS-4 byte_offset convention",
        (*_PAST_OFFSET_ZERO, "vector-bare-lf-in-part-header"),
        on_response=_problem_edit(_offset_at_crlf),
    ),
    P(
        "part-index-from-one",
        "MB-STATUS-4 part_index from 0",
        ("reject-second-part-malformed", "vector-bare-lf-in-part-header"),
        on_response=_problem_edit(_count_parts_from_one),
    ),
    P(
        "limit-fault-in-part-zero",
        "MB-STATUS-4 part_index of a limit fault",
        ("limit-part-header-bytes-one-over-second-part",),
        on_response=_problem_edit(_limit_fault_in_part_zero),
    ),
    # MB-STATUS-4: "`byte_offset` (octets from the start of the request content)".
    P(
        "byte-offset-from-first-delimiter",
        "MB-STATUS-4 byte_offset after a preamble",
        ("vector-header-without-colon", "vector-missing-close-delimiter"),
        on_response=_offsets_from_first_delimiter(padding=False),
    ),
    P(
        "byte-offset-without-padding",
        "MB-STATUS-4 byte_offset after transport padding",
        ("vector-header-without-colon", "vector-missing-close-delimiter"),
        on_response=_offsets_from_first_delimiter(padding=True),
    ),
    # MB-LIMIT-5: a part over max_part_fields is 431 naming max_part_fields.
    P(
        "field-count-names-header-bytes",
        "MB-LIMIT-5 limit member",
        ("limit-part-fields-one-over",),
        on_response=_problem_edit(_fields_named_as_bytes),
    ),
    # MB-STATUS-13: with several faults, the problem describes the fault the status answers.
    P(
        "status-of-one-fault-problem-of-another",
        "MB-STATUS-13 status and problem of two faults",
        ("fault-pairs-problem-agrees",),
        on_response=_status_of_mode_problem_of_accept,
    ),
    P(
        "mode-status-with-limit-problem",
        "MB-STATUS-13 501 with a limit's problem",
        ("fault-pairs-problem-agrees",),
        on_response=_mode_status_for_limit_problem,
    ),
    P(
        "problem-located-outside-content",
        "MB-STATUS-13 location of a fault not in the content",
        ("fault-pairs-problem-agrees",),
        on_response=_problem_edit(_located_when_not_in_content),
    ),
    # MB-STATUS-4: every 4xx or 5xx to a batch request is a problem document.
    P(
        "not-acceptable-as-text",
        "MB-STATUS-4 406 written as text",
        ("refusals-are-problems-under-every-accept",),
        on_response=_plain_when_not_asked(frozenset({406})),
    ),
    P(
        "refusals-as-text-under-narrow-accept",
        "MB-STATUS-4 400, 413, 415, 431 and 501 as text when Accept does not admit problem+json",
        ("refusals-are-problems-under-every-accept",),
        on_response=_plain_when_not_asked(frozenset({400, 413, 415, 431, 501})),
    ),
    P(
        "content-coding-refused-as-text",
        "MB-STATUS-4 415 for a content coding written as text",
        ("refusals-are-problems-under-every-accept",),
        on_response=_coding_refused_as_text(drop_accept_encoding=False),
    ),
    # MB-INTER-6: the 415 for a content coding carries Accept-Encoding.
    P(
        "content-coding-415-without-accept-encoding",
        "MB-INTER-6 415 for a content coding without Accept-Encoding",
        ("refusals-are-problems-under-every-accept",),
        on_response=_coding_refused_as_text(drop_accept_encoding=True),
    ),
    # MB-STATUS-4: the requirement named is the one the request broke.
    P(
        "target-refusals-all-named-sub-2",
        "MB-STATUS-4 every refused target named MB-SUB-2",
        ("refusal-names-broken-requirement",),
        on_response=_problem_edit(_target_refusals_named_sub_2),
    ),
    P(
        "framing-refusals-all-named-status-2",
        "MB-STATUS-4 every framing fault named MB-STATUS-2",
        ("envelope-refusal-names-broken-requirement",),
        on_response=_problem_edit(_framing_refusals_named_status_2),
    ),
)
