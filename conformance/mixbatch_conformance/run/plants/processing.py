"""Planted violations of the processing model.

Covers MB-PROC-* (with the abort's MB-STATUS-14 and the sandbox read-back of MB-TEST-4, which
the processing checks catch): a server that runs a part before validating, runs parts out of
order, mishandles a preference, a mode or a conditional part, or aborts otherwise than the
spec says.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from mixbatch_conformance.run.mutations import Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    Part,
    boundary_of,
    field_of,
    header_has,
    is_batch,
    map_capabilities,
    map_json,
    map_parts,
    parts_of,
    problem,
    set_field,
    set_request_field,
    target_has,
    without_field,
)
from mixbatch_conformance.run.plants._preconditions import CONDITIONAL_FIELDS
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

_MALFORMED = "X-Plant-Malformed"


def _run_before_validating(req: RelayRequest) -> None:
    """Forward only the well-formed parts of a batch with a part lacking Http-Method, so they
    run; the answer is then the 400 the whole batch calls for."""
    b = boundary_of(req)
    parts = parts_of(req.body, b) if b and is_batch(req) else None
    if not parts or b is None:
        return
    good = [(f, body) for f, body in parts if field_of(f, "Http-Method")]
    if good and len(good) < len(parts):
        req.body = write_parts(good, b)
        req.headers.append((_MALFORMED, "1"))


def _answer_malformed(req: RelayRequest, resp: RelayResponse) -> None:
    if req.get(_MALFORMED):
        problem(resp, 400, "MB-PART-2")


def _reverse_request(req: RelayRequest) -> None:
    b = boundary_of(req)
    parts = parts_of(req.body, b) if b and is_batch(req) else None
    if parts and len(parts) > 1 and b is not None:
        req.body = write_parts(parts[::-1], b)


def _reverse_answer(req: RelayRequest, resp: RelayResponse) -> None:
    b = boundary_of(resp)
    parts = parts_of(resp.body, b) if b and is_batch(req) else None
    if parts and len(parts) > 1 and b is not None:
        resp.body = write_parts(parts[::-1], b)


def _no_prefer(req: RelayRequest) -> bool:
    return is_batch(req) and req.get("Prefer") is None


def _prefer_matches(pattern: str) -> Callable[[RelayRequest], bool]:
    rx = re.compile(pattern)
    return lambda req: is_batch(req) and bool(rx.search(req.get("Prefer") or ""))


_ATOMIC = header_has("Batch-Mode", "atomic")
_REFERENCES = header_has("Batch-Mode", "references")


def _atomic_run_when_several(req: RelayRequest) -> None:
    """An atomic batch of several parts run as a plain one (its Batch-Mode dropped), as a
    server that refuses the mode only where a batch of one part would need no rollback."""
    b = boundary_of(req)
    parts = parts_of(req.body, b) if b and _ATOMIC(req) else None
    if parts is not None and len(parts) > 1:
        req.headers = without_field(req.headers, "Batch-Mode")


def _atomic_refused(req: RelayRequest, resp: RelayResponse) -> None:
    """The 501 of MB-PROC-7 for an atomic batch the planted server did not run."""
    if is_batch(req) and _ATOMIC(req):
        problem(resp, 501, "MB-PROC-7")
    map_capabilities(_without_profile("atomic"))(req, resp)


def _references_refused_as_substitution(req: RelayRequest, resp: RelayResponse) -> None:
    """The references mode not offered, its 501 naming the rule of how references are
    substituted (MB-PROC-18) rather than one the request broke."""
    if is_batch(req) and _REFERENCES(req):
        problem(resp, 501, "MB-PROC-18")
    map_capabilities(_without_profile("references"))(req, resp)


def _without_profile(name: str) -> Callable[[dict[str, object]], None]:
    """A capabilities document that does not offer profile `name`."""

    def edit(doc: dict[str, object]) -> None:
        profiles = doc.get("profiles")
        if isinstance(profiles, list):
            doc["profiles"] = [p for p in profiles if p != name]

    return edit


def _etag_weakened(parts: list[Part]) -> list[Part]:
    return [
        (set_field(f, "ETag", "W/" + (field_of(f, "ETag") or "")) if field_of(f, "ETag") else f, b)
        for f, b in parts
    ]


def _strip_unsafe_conditionals(parts: list[Part]) -> list[Part]:
    """A server that evaluates preconditions for GET and HEAD parts only."""
    return [
        (
            f
            if field_of(f, "Http-Method") in ("GET", "HEAD")
            else [(n, v) for n, v in f if n.lower() not in CONDITIONAL_FIELDS],
            b,
        )
        for f, b in parts
    ]


def _first_prefer_line(req: RelayRequest) -> None:
    lines = [v for n, v in req.headers if n.lower() == "prefer"]
    if len(lines) > 1:
        req.headers = [(n, v) for n, v in req.headers if n.lower() != "prefer"] + [
            ("Prefer", lines[0])
        ]


#: The reference server's own books; the sandbox members the suite creates come after them.
_STOP_DROPPED = "X-Plant-Stop-Dropped"


def _stop_not_at_400(req: RelayRequest) -> None:
    """A server that counts a part as failing only above 400: a batch under stop whose first
    failure is a 400 runs on, as if no preference had come (the marker tells the answer)."""
    if _prefer_matches(r"(?i)stop")(req) and re.search(rb"/status/400\b", req.body):
        req.headers = [(n, v) for n, v in req.headers if n.lower() != "prefer"]
        req.headers.append((_STOP_DROPPED, "1"))


def _stop_still_applied(req: RelayRequest, resp: RelayResponse) -> None:
    if req.get(_STOP_DROPPED):
        resp.set("Preference-Applied", "batch-on-error=stop")


#: Marks a request whose stop preference the relay withheld from the server.
_STOP_WITHHELD = "X-Plant-Stop-Withheld"


def _stop_withheld(req: RelayRequest) -> None:
    """A server that runs every part and only reports those after a failure as skipped: the
    server sees no preference (so every part runs), the answer is rewritten afterwards."""
    if _prefer_matches(r"(?i)stop")(req):
        req.headers = [(n, v) for n, v in req.headers if n.lower() != "prefer"]
        req.headers.append((_STOP_WITHHELD, "1"))


def _reported_skipped(parts: list[Part]) -> list[Part]:
    out: list[Part] = []
    failed = False
    for f, b in parts:
        if failed:
            f = [*without_field(f, "Http-Status-Code"), ("Batch-Outcome", "skipped")]
            f = [(n, v) for n, v in f if n.lower() in ("content-id", "batch-outcome")]
            b = b""
        status = field_of(f, "Http-Status-Code") or ""
        failed = failed or (status.isdigit() and int(status) >= 400)
        out.append((f, b))
    return out


def _skipped_after_running(req: RelayRequest, resp: RelayResponse) -> None:
    if req.get(_STOP_WITHHELD):
        map_parts(_reported_skipped)(req, resp)
        resp.set("Preference-Applied", "batch-on-error=stop")


def _last_modified_utc(parts: list[Part]) -> list[Part]:
    """Last-Modified re-written with the zone name UTC instead of GMT."""
    return [
        (set_field(f, "Last-Modified", v.replace(" GMT", " UTC")), b)
        if (v := field_of(f, "Last-Modified"))
        else (f, b)
        for f, b in parts
    ]


def _json_last_modified_utc(doc: dict[str, Any]) -> None:
    for entry in doc.get("responses") or []:
        for pair in entry.get("headers") or []:
            if str(pair[0]).lower() == "last-modified":
                pair[1] = str(pair[1]).replace(" GMT", " UTC")


def _abort_problem_status(status: int) -> Callable[[bytes], bytes]:
    """An abort problem document whose `status` member is `status`."""

    def edit(body: bytes) -> bytes:
        doc = json.loads(body)
        doc["status"] = status
        return json.dumps(doc).encode()

    return edit


def _abort_problem_everywhere(
    problem_edit: Callable[[bytes], bytes],
) -> Callable[[RelayRequest, RelayResponse], None]:
    """A server whose abort problem is edited by `problem_edit` in the multipart and JSON forms."""

    def parts(items: list[Part]) -> list[Part]:
        out = []
        for f, b in items:
            if field_of(f, "Batch-Outcome") == "aborted":
                b = problem_edit(b)
                f = set_field(f, "Content-Length", str(len(b)))
            out.append((f, b))
        return out

    def entries(doc: dict[str, Any]) -> None:
        for item in doc.get("responses") or []:
            if item.get("outcome") == "aborted" and isinstance(item.get("body"), str):
                item["body"] = problem_edit(item["body"].encode()).decode()

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        b = boundary_of(resp)
        found = parts_of(resp.body, b) if b and is_batch(req) else None
        if found is not None and b is not None:
            resp.body = write_parts(parts(found), b)
        map_json(entries)(req, resp)

    return edit


def _abort_with_byte_offset(body: bytes) -> bytes:
    doc = json.loads(body)
    doc["byte_offset"] = 0
    return json.dumps(doc).encode()


def _abort_index_zero_omitted(body: bytes) -> bytes:
    """An abort problem that carries part_index only above 0, a zero taken for "unset"."""
    doc = json.loads(body)
    if doc.get("part_index") == 0:
        del doc["part_index"]
    return json.dumps(doc).encode()


def _applied_only_when_skipping(req: RelayRequest, resp: RelayResponse) -> None:
    """Preference-Applied sent only when the stop policy skipped a part."""
    if is_batch(req) and b"skipped" not in resp.body:
        resp.set("Preference-Applied", None)


#: A Prefer field holding batch-on-error with no value at all.
_BARE_PREFER = r"(?i)^\s*batch-on-error\s*$"


def _unknown_policy_resets(req: RelayRequest) -> None:
    """A server that takes the last batch-on-error it reads and treats a value it does not know
    as continue: stop followed by an unrecognised value runs under continue."""
    values = re.findall(
        r"(?i)batch-on-error\s*=\s*\"?([^\s,;\"]*)",
        ",".join(v for n, v in req.headers if n.lower() == "prefer"),
    )
    if is_batch(req) and values and values[-1].lower() not in ("stop", "continue"):
        req.headers = [(n, v) for n, v in req.headers if n.lower() != "prefer"]


#: The conditional fields a resource acts on, whose repeated field lines form one list.
_LIST_CONDITIONALS = ("if-none-match", "if-match")


def _last_line_wins(parts: list[Part]) -> list[Part]:
    """A part's field lines put on the sub-request one by one with set, not add: of a
    conditional field on several lines only the last reaches the resource."""
    out: list[Part] = []
    for fields, body in parts:
        last = {n.lower(): i for i, (n, _) in enumerate(fields)}
        kept = [
            (n, v)
            for i, (n, v) in enumerate(fields)
            if n.lower() not in _LIST_CONDITIONALS or last[n.lower()] == i
        ]
        out.append((kept, body))
    return out


#: 2^53 + 1 and the double nearest it: as long as each other, so no length changes.
_BEYOND_DOUBLE = (b"9007199254740993", b"9007199254740992")


def _json_numbers_as_doubles(req: RelayRequest, resp: RelayResponse) -> None:
    """A sandbox that decodes a member into doubles and encodes it again."""
    resp.body = resp.body.replace(*_BEYOND_DOUBLE)


def _stop_after_server_error(parts: list[Part]) -> list[Part]:
    """A server that takes a part answered 5xx to mean it is failing, and skips the rest."""
    out: list[Part] = []
    failing = False
    for f, b in parts:
        if failing and field_of(f, "Batch-Outcome") is None:
            f = [*without_field(f, "Http-Status-Code"), ("Batch-Outcome", "skipped")]
            b = b""
            f = set_field(f, "Content-Length", "0")
        status = field_of(f, "Http-Status-Code") or ""
        failing = failing or status.startswith("5")
        out.append((f, b))
    return out


P = Mutation
PLANTS: tuple[Mutation, ...] = (
    # MB-PROC-1: nothing runs before the whole envelope is validated.
    P(
        "part-runs-before-validation",
        "MB-PROC-1",
        ("malformed-batch-runs-nothing",),
        on_request=_run_before_validating,
        on_response=_answer_malformed,
    ),
    # MB-PROC-2: the effect of running the parts in request order.
    P(
        "parts-run-in-reverse",
        "MB-PROC-2",
        ("safe-parts-see-earlier-writes",),
        on_request=_reverse_request,
        on_response=_reverse_answer,
    ),
    # MB-PROC-5: continue without a preference.
    P(
        "stop-by-default",
        "MB-PROC-5",
        ("error-policy-default-continue",),
        on_request=set_request_field("Prefer", "batch-on-error=stop", _no_prefer),
    ),
    P(
        "stop-after-server-error",
        "MB-PROC-5 a part answered 5xx",
        ("error-policy-default-continue",),
        on_response=map_parts(_stop_after_server_error),
    ),
    P(
        "continue-taken-as-stop",
        "MB-PROC-5 batch-on-error=continue as stop",
        ("error-policy-default-continue",),
        on_request=set_request_field(
            "Prefer", "batch-on-error=stop", _prefer_matches(r'(?i)batch-on-error="?continue')
        ),
    ),
    P(
        "stop-by-default-for-xml",
        "MB-PROC-5 in the XML form",
        ("error-policy-default-continue",),
        on_request=set_request_field(
            "Prefer",
            "batch-on-error=stop",
            lambda r: _no_prefer(r) and "xml" in (r.get("Accept") or ""),
        ),
    ),
    # MB-PROC-6: skip after the first failure and echo Preference-Applied.
    P(
        "preference-applied-dropped",
        "MB-PROC-6 Preference-Applied",
        ("error-policy-stop",),
        on_response=lambda q, r: r.set("Preference-Applied", None),
    ),
    P(
        "preference-applied-multipart-only",
        "MB-PROC-6 Preference-Applied in the 207 forms",
        ("error-policy-stop",),
        on_response=lambda q, r: r.set("Preference-Applied", None) if r.status == 207 else None,
    ),
    P(
        "skipped-parts-run",
        "MB-PROC-6 parts after the failure run, then are reported skipped",
        ("error-policy-skipped-parts-do-not-run",),
        on_request=_stop_withheld,
        on_response=_skipped_after_running,
    ),
    P(
        "stop-only-above-400",
        "MB-PROC-6 a 400 not failing",
        ("error-policy-stop-failing-edges",),
        on_request=_stop_not_at_400,
        on_response=_stop_still_applied,
    ),
    P(
        "stop-ignored-among-preferences",
        "MB-PROC-6 several preferences",
        ("prefer-several-preferences",),
        on_request=set_request_field("Prefer", None, _prefer_matches(r",")),
    ),
    P(
        "stop-among-preferences-ignored-for-207",
        "MB-PROC-6 several preferences in the 207 forms",
        ("prefer-several-preferences",),
        on_request=set_request_field(
            "Prefer",
            None,
            lambda r: _prefer_matches(r",")(r) and "json" in (r.get("Accept") or ""),
        ),
    ),
    P(
        "only-first-prefer-line-read",
        "MB-PROC-6 Prefer field lines",
        ("prefer-several-preferences",),
        on_request=_first_prefer_line,
    ),
    # MB-STATUS-4: the 501 for a mode not offered names MB-PROC-7, MB-PROC-12 or MB-PROC-17.
    P(
        "references-refusal-names-substitution-rule",
        "MB-STATUS-4 the 501 for the references mode not offered naming MB-PROC-18",
        ("envelope-refusal-names-broken-requirement",),
        on_response=_references_refused_as_substitution,
    ),
    # MB-PROC-7: Batch-Mode: atomic without the atomic profile is 501.
    P(
        "atomic-mode-ignored",
        "MB-PROC-7",
        ("atomic-unsupported",),
        on_request=set_request_field("Batch-Mode", None, header_has("Batch-Mode", "atomic")),
        on_response=map_capabilities(_without_profile("atomic")),
    ),
    P(
        "atomic-mode-refused-for-one-part-only",
        "MB-PROC-7 Batch-Mode: atomic refused for a batch of one part, a batch of several run",
        ("atomic-unsupported",),
        on_request=_atomic_run_when_several,
        on_response=_atomic_refused,
    ),
    # MB-PROC-9: conditionals in parts as alone.
    P(
        "if-match-ignored",
        "MB-PROC-9 If-Match",
        ("conditional-parts",),
        on_request_parts=lambda p: [
            ([(n, v) for n, v in f if n.lower() != "if-match"], b) for f, b in p
        ],
    ),
    P(
        "if-unmodified-since-ignored",
        "MB-PROC-9 If-Unmodified-Since",
        ("conditional-combinations",),
        on_request_parts=lambda p: [
            ([(n, v) for n, v in f if n.lower() != "if-unmodified-since"], b) for f, b in p
        ],
    ),
    P(
        "if-modified-since-outranks-if-none-match",
        "MB-PROC-9 precedence",
        ("conditional-combinations",),
        on_request_parts=lambda p: [
            (
                [
                    (n, v)
                    for n, v in f
                    if not (n.lower() == "if-none-match" and field_of(f, "If-Modified-Since"))
                ],
                b,
            )
            for f, b in p
        ],
    ),
    P(
        "conditionals-ignored-on-unsafe-methods",
        "MB-PROC-9 unsafe methods",
        ("conditional-unsafe-parts",),
        on_request_parts=_strip_unsafe_conditionals,
    ),
    # MB-PROC-10: ETag passed through unchanged.
    P("part-etag-weakened", "MB-PROC-10", ("conditional-parts",), on_response_parts=_etag_weakened),
    P(
        "part-last-modified-utc",
        "MB-PROC-10 Last-Modified",
        ("conditional-parts",),
        on_response_parts=_last_modified_utc,
    ),
    P(
        "json-last-modified-utc",
        "MB-PROC-10 Last-Modified in JSON",
        ("conditional-parts",),
        on_response=map_json(_json_last_modified_utc),
    ),
    # MB-PROC-11: an unknown value is absent.
    P(
        "unknown-policy-resets-stop",
        "MB-PROC-11 an unrecognised value after stop taken as continue",
        ("prefer-stop-then-unknown-value",),
        on_request=_unknown_policy_resets,
    ),
    # MB-PROC-9: every field line of a conditional field is evaluated.
    P(
        "part-conditional-last-line-wins",
        "MB-PROC-9 a conditional on several lines",
        ("conditional-fields-on-several-lines",),
        on_request_parts=_last_line_wins,
    ),
    # MB-TEST-4: a member reads back with the values written.
    P(
        "sandbox-json-numbers-as-doubles",
        "MB-TEST-4 an integer beyond a double",
        ("sandbox-json-values-read-back",),
        on_response=_json_numbers_as_doubles,
    ),
    P(
        "bare-preference-means-stop",
        "MB-PROC-11 a bare batch-on-error as stop",
        ("prefer-unknown-value",),
        on_request=set_request_field(
            "Prefer", "batch-on-error=stop", _prefer_matches(_BARE_PREFER)
        ),
    ),
    # MB-STATUS-14: the abort of a spent time budget carries 503.
    P(
        "timeout-abort-status-504",
        "MB-STATUS-14 a spent time budget as 504",
        (
            "batch-abort-after-timeout",
            "batch-abort-in-multistatus",
            "batch-abort-in-every-form",
            "atomic-abort-rolls-back",
        ),
        on_response=_abort_problem_everywhere(_abort_problem_status(504)),
    ),
    P(
        "abort-problem-byte-offset",
        "MB-STATUS-14 a byte_offset on the abort problem",
        ("batch-abort-after-timeout", "batch-abort-in-every-form"),
        on_response=_abort_problem_everywhere(_abort_with_byte_offset),
    ),
    P(
        "abort-part-index-zero-omitted",
        "MB-STATUS-14 part_index 0 on the abort problem",
        ("batch-abort-after-timeout", "batch-abort-in-multistatus"),
        on_response=_abort_problem_everywhere(_abort_index_zero_omitted),
    ),
    # MB-PROC-6: Preference-Applied whether or not a part failed; MB-PROC-13: BWS around "=".
    P(
        "stop-applied-only-when-skipping",
        "MB-PROC-6 Preference-Applied only when a part was skipped",
        ("error-policy-stop-failing-edges",),
        on_response=_applied_only_when_skipping,
    ),
    P(
        "prefer-bws-unread",
        "MB-PROC-13 batch-on-error with BWS around =",
        ("prefer-several-preferences",),
        on_request=set_request_field("Prefer", None, _prefer_matches(r"batch-on-error\s+=")),
    ),
    P(
        "unknown-preference-means-stop",
        "MB-PROC-11 as stop",
        ("prefer-unknown-value",),
        on_request=set_request_field("Prefer", "batch-on-error=stop", _prefer_matches(r"bogus")),
    ),
    P(
        "unknown-preference-applied",
        "MB-PROC-11 Preference-Applied",
        ("prefer-unknown-value",),
        on_response=lambda q, r: (
            r.set("Preference-Applied", q.get("Prefer"))
            if "bogus" in (q.get("Prefer") or "")
            else None
        ),
    ),
    # MB-PROC-12: an unknown Batch-Mode is 501.
    P(
        "unknown-mode-ignored",
        "MB-PROC-12",
        ("batch-mode-unknown",),
        on_request=set_request_field("Batch-Mode", None, header_has("Batch-Mode", "no-such")),
    ),
    # MB-PROC-13: any case and quoted values; lower-case unquoted Preference-Applied.
    P(
        "quoted-stop-not-recognised",
        "MB-PROC-13 spelling",
        ("error-policy-stop-any-spelling",),
        on_request=set_request_field("Prefer", None, _prefer_matches(r'"|[A-Z]')),
    ),
    P(
        "preference-applied-quoted",
        "MB-PROC-13 echo form",
        ("error-policy-stop-any-spelling",),
        on_response=lambda q, r: (
            r.set("Preference-Applied", 'batch-on-error="stop"')
            if r.get("Preference-Applied")
            else None
        ),
    ),
)

_ = (target_has,)
