"""Planted violations of RFC 9110 §13.2.2's order of evaluation (MB-PROC-9) and of what fails
a part under the stop policy and in an atomic batch (MB-PROC-6, MB-PROC-8).

    if-modified-since-beside-if-none-match   If-Modified-Since decides though If-None-Match is
                                             present (step 4 without its "else")
    if-unmodified-since-beside-if-match      If-Unmodified-Since decides though If-Match is
                                             present (step 2 without its "else")
    true-if-match-ends-evaluation            a true If-Match ends the evaluation: a false
                                             If-None-Match or If-Modified-Since beside it unread
    preconditions-evaluated-on-options       an OPTIONS part's conditional fields evaluated as
                                             a GET's are, not ignored (RFC 9110 §13.2.1)
    if-range-evaluated-as-precondition       If-Range put through the If-Match routine: a stale
                                             one answers 412, not the whole representation
    invalid-date-as-epoch                    a date field whose value is no HTTP-date read as
                                             the epoch, not ignored
    date-list-read-as-first-date             a date field holding a list of dates read as its
                                             first date, not ignored
    if-modified-since-on-put                 If-Modified-Since evaluated on a PUT: a member
                                             not modified since is answered 412
    if-none-match-strong-on-writes           If-None-Match compared strongly on unsafe methods,
                                             so the W/ form of the tag does not match a PUT
    if-match-star-matches-absent             If-Match: * taken as true whatever the target
                                             holds, so a PUT to an absent member creates it
    precondition-412-not-stopping            under stop, a part answered 412 for its own
                                             precondition taken as an answer, not a failure
    precondition-412-commits-atomic          an atomic batch whose part is answered 412 for
                                             its precondition run on and committed
    resource-statuses-not-stopping           under stop, a 409, 412, 422 or 503 from the
                                             resource taken as an answer, not a failure
    unknown-method-not-stopping              under stop, a part whose method no resource knows,
                                             answered 405 or 501, taken as not failing
    head-failure-not-stopping                under stop, a HEAD answered 404 (no content)
                                             taken as not failing
    stop-at-not-modified                     under stop, a part answered 3xx (304 among them)
                                             taken as failing: the parts after it skipped

The conditional ones edit the standalone requests and the parts alike, as a server that
evaluates the fields so everywhere; the stopping ones withhold the mode from the reference
server for the batches that would show it, and put back what it would have announced.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from email.utils import parsedate_to_datetime

from mixbatch_conformance.run.mutations import FieldList, Mutation
from mixbatch_conformance.run.plants._edits import (
    Part,
    boundary_of,
    field_of,
    header_has,
    is_batch,
    map_parts,
    parts_of,
    without_field,
)
from mixbatch_conformance.run.plants._preconditions import (
    CONDITIONAL_FIELDS,
    NO_MATCH,
    FieldsEdit,
    everywhere,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: The date preconditions, and the date an unreadable one is planted to mean.
DATE_FIELDS = frozenset({"if-modified-since", "if-unmodified-since"})
EPOCH = "Thu, 01 Jan 1970 00:00:00 GMT"
_STOP = header_has("Prefer", r"(?i)batch-on-error\s*=\s*\"?stop")
_ATOMIC = header_has("Batch-Mode", r"(?i)\batomic\b")
#: The preconditions that can fail a GET with 412 (RFC 9110 §13.1.1, §13.1.4).
_FAILING_FIELDS = ("if-match", "if-unmodified-since")
#: Marks a batch whose mode the relay withheld from the server: the field to put back.
_WITHHELD = "X-Plant-Mode-Withheld"


def _names(fields: FieldList) -> set[str]:
    return {n.lower() for n, _ in fields}


def _ims_beside_inm(method: str, fields: FieldList) -> FieldList:
    """If-Modified-Since evaluated beside If-None-Match: If-None-Match dropped, so the date
    decides alone."""
    if method in ("GET", "HEAD") and {"if-none-match", "if-modified-since"} <= _names(fields):
        return without_field(fields, "If-None-Match")
    return fields


def _ius_beside_im(method: str, fields: FieldList) -> FieldList:
    """If-Unmodified-Since evaluated beside If-Match: If-Match dropped, so the date decides."""
    if {"if-match", "if-unmodified-since"} <= _names(fields):
        return without_field(fields, "If-Match")
    return fields


def _true_if_match_ends(method: str, fields: FieldList) -> FieldList:
    """A true If-Match taken to end the evaluation (step 1 read as the last): If-None-Match
    and If-Modified-Since dropped beside it, so only a false If-Match still decides."""
    if "if-match" in _names(fields):
        return without_field(without_field(fields, "If-None-Match"), "If-Modified-Since")
    return fields


def _options_evaluated(parts: list[Part]) -> list[Part]:
    """An OPTIONS part with conditional fields run through the precondition routine a GET
    takes: sent on as a GET of its target, so its fields are evaluated."""
    out: list[Part] = []
    for fields, body in parts:
        method = (field_of(fields, "Http-Method") or "").strip()
        if method == "OPTIONS" and _names(fields) & CONDITIONAL_FIELDS:
            fields = [(n, "GET" if n.lower() == "http-method" else v) for n, v in fields]
        out.append((fields, body))
    return out


def _if_range_as_if_match(method: str, fields: FieldList) -> FieldList:
    """If-Range beside Range put through the If-Match routine: a stale one answers 412 where
    RFC 9110 §13.1.5 serves the whole representation."""
    if "range" not in _names(fields):
        return fields
    return [("If-Match" if n.lower() == "if-range" else n, v) for n, v in fields]


def _star_any_state(method: str, fields: FieldList) -> FieldList:
    """If-Match: * true whatever the target holds: on a PUT it is dropped, so a PUT to a
    member that does not exist runs."""
    if method == "PUT" and (field_of(fields, "If-Match") or "").strip() == "*":
        return without_field(fields, "If-Match")
    return fields


def _is_date(value: str) -> bool:
    try:
        return parsedate_to_datetime(value) is not None
    except (TypeError, ValueError, IndexError):
        return False


def _invalid_date_as_epoch(method: str, fields: FieldList) -> FieldList:
    """A date field that no date parser reads taken as the epoch."""
    return [(n, EPOCH if n.lower() in DATE_FIELDS and not _is_date(v) else v) for n, v in fields]


def _date_list_as_first(method: str, fields: FieldList) -> FieldList:
    """A date field holding a list of IMF-fixdates read as its first date, as a lenient date
    parser does (`Sun, 06 Nov 1994 08:49:37 GMT, Mon, ...` is no HTTP-date)."""
    out = []
    for n, v in fields:
        if n.lower() in DATE_FIELDS and v.count(" GMT") > 1:
            v = v[: v.index(" GMT") + len(" GMT")]
        out.append((n, v))
    return out


def _ims_on_put(method: str, fields: FieldList) -> FieldList:
    """If-Modified-Since evaluated on a PUT, and always found not modified since: 412."""
    if method == "PUT" and "if-modified-since" in _names(fields):
        return [*without_field(fields, "If-Modified-Since"), ("If-Match", NO_MATCH)]
    return fields


def _inm_strong_on_writes(method: str, fields: FieldList) -> FieldList:
    """If-None-Match compared strongly for a method other than GET and HEAD: a weak tag in it
    matches nothing, so it is as if absent."""
    if method in ("GET", "HEAD"):
        return fields
    return [(n, v) for n, v in fields if not (n.lower() == "if-none-match" and v.startswith("W/"))]


def _plant(name: str, breaks: str, catchers: tuple[str, ...], edit: FieldsEdit) -> Mutation:
    alone, parts = everywhere(edit)
    return Mutation(name, breaks, catchers, on_request=alone, on_request_parts=parts)


def _part_fields(req: RelayRequest) -> list[FieldList]:
    b = boundary_of(req)
    parts = parts_of(req.body, b) if b and is_batch(req) else None
    return [f for f, _ in parts or []]


def _carries_precondition(req: RelayRequest) -> bool:
    return any(_names(f) & set(_FAILING_FIELDS) for f in _part_fields(req))


_RESOURCE_FAILURE = re.compile(r"/status/(409|412|422|503)\b")


def _targets_resource_failure(req: RelayRequest) -> bool:
    return any(_RESOURCE_FAILURE.search(field_of(f, "Content-Id") or "") for f in _part_fields(req))


#: The methods the reference server's resources know; any other is unknown.
_KNOWN_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def _has_unknown_method(req: RelayRequest) -> bool:
    return any(
        (field_of(f, "Http-Method") or "GET") not in _KNOWN_METHODS for f in _part_fields(req)
    )


def _has_head(req: RelayRequest) -> bool:
    return any(field_of(f, "Http-Method") == "HEAD" for f in _part_fields(req))


def _withhold(field: str, pred: Callable[[RelayRequest], bool]) -> Callable[[RelayRequest], None]:
    """Send the batch without `field` when `pred` holds, so that it runs every part."""

    def edit(req: RelayRequest) -> None:
        if pred(req):
            req.headers = without_field(req.headers, field)
            req.headers.append((_WITHHELD, field))

    return edit


def _stop_still_applied(req: RelayRequest, resp: RelayResponse) -> None:
    """MB-PROC-6's Preference-Applied, as the server that honoured stop would send it."""
    if req.get(_WITHHELD) == "Prefer":
        resp.set("Preference-Applied", "batch-on-error=stop")


def _skipped_after_3xx(parts: list[Part]) -> list[Part]:
    out: list[Part] = []
    stopped = False
    for f, b in parts:
        if stopped:
            cid = field_of(f, "Content-Id")
            f = [("Content-Id", cid)] if cid is not None else []
            f.append(("Batch-Outcome", "skipped"))
            b = b""
        status = field_of(f, "Http-Status-Code") or ""
        stopped = stopped or (status.isdigit() and 300 <= int(status) < 400)
        out.append((f, b))
    return out


def _stop_at_3xx(req: RelayRequest, resp: RelayResponse) -> None:
    if _STOP(req):
        map_parts(_skipped_after_3xx)(req, resp)


COMBINATIONS = ("conditional-combinations",)
WRITES = ("conditional-rfc-writes",)
PLANTS: tuple[Mutation, ...] = (
    _plant(
        "if-modified-since-beside-if-none-match",
        "MB-PROC-9 If-Modified-Since evaluated though If-None-Match is present",
        COMBINATIONS,
        _ims_beside_inm,
    ),
    _plant(
        "if-unmodified-since-beside-if-match",
        "MB-PROC-9 If-Unmodified-Since evaluated though If-Match is present",
        COMBINATIONS + WRITES,
        _ius_beside_im,
    ),
    _plant(
        "true-if-match-ends-evaluation",
        "MB-PROC-9 a true If-Match ending the evaluation before If-None-Match is read",
        COMBINATIONS,
        _true_if_match_ends,
    ),
    Mutation(
        "preconditions-evaluated-on-options",
        "MB-PROC-9 conditional fields evaluated on an OPTIONS part",
        ("conditional-fields-ignored-on-options",),
        on_request_parts=_options_evaluated,
    ),
    _plant(
        "if-range-evaluated-as-precondition",
        "MB-PROC-9 a stale If-Range answered 412 instead of the whole representation",
        ("conditional-if-range-ignores-range-or-serves-it",),
        _if_range_as_if_match,
    ),
    _plant(
        "invalid-date-as-epoch",
        "MB-PROC-9 a date precondition that is no HTTP-date read as the epoch",
        COMBINATIONS,
        _invalid_date_as_epoch,
    ),
    _plant(
        "date-list-read-as-first-date",
        "MB-PROC-9 a date precondition holding a list of dates read as its first date",
        COMBINATIONS,
        _date_list_as_first,
    ),
    _plant(
        "if-modified-since-on-put",
        "MB-PROC-9 If-Modified-Since evaluated on a PUT",
        WRITES,
        _ims_on_put,
    ),
    _plant(
        "if-none-match-strong-on-writes",
        "MB-PROC-9 If-None-Match compared strongly on a PUT or DELETE",
        WRITES,
        _inm_strong_on_writes,
    ),
    _plant(
        "if-match-star-matches-absent",
        "MB-PROC-9 If-Match: * true for a target with no current representation",
        WRITES,
        _star_any_state,
    ),
    Mutation(
        "precondition-412-not-stopping",
        "MB-PROC-6 a part's own failed precondition not failing it",
        ("stop-at-failing-precondition",),
        on_request=_withhold("Prefer", lambda q: _STOP(q) and _carries_precondition(q)),
        on_response=_stop_still_applied,
    ),
    Mutation(
        "precondition-412-commits-atomic",
        "MB-PROC-8 a part's own failed precondition not failing an atomic batch",
        ("stop-at-failing-precondition",),
        on_request=_withhold("Batch-Mode", lambda q: _ATOMIC(q) and _carries_precondition(q)),
    ),
    Mutation(
        "resource-statuses-not-stopping",
        "MB-PROC-6 a resource's 409, 412, 422 or 503 not failing its part",
        ("error-policy-stop-resource-statuses",),
        on_request=_withhold("Prefer", lambda q: _STOP(q) and _targets_resource_failure(q)),
        on_response=_stop_still_applied,
    ),
    Mutation(
        "unknown-method-not-stopping",
        "MB-PROC-6 a part with a method no resource knows not failing",
        ("stop-at-unknown-method-and-head-failure",),
        on_request=_withhold("Prefer", lambda q: _STOP(q) and _has_unknown_method(q)),
        on_response=_stop_still_applied,
    ),
    Mutation(
        "head-failure-not-stopping",
        "MB-PROC-6 a HEAD answered 404 not failing",
        ("stop-at-unknown-method-and-head-failure",),
        on_request=_withhold("Prefer", lambda q: _STOP(q) and _has_head(q)),
        on_response=_stop_still_applied,
    ),
    Mutation(
        "stop-at-not-modified",
        "MB-PROC-6 a part answered 3xx taken as failing",
        ("error-policy-stop-resource-statuses", "stop-at-failing-precondition"),
        on_response=_stop_at_3xx,
    ),
)
