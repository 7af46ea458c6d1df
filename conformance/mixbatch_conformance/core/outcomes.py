"""Shared predicates: what the spec allows for a rejected batch and for a processed one.

Theory of operation: most checks end in one of two shapes. A rejected batch must carry a
status from an allowed set and, for 4xx rejections, an application/problem+json body whose
`status` member matches and whose `requirement` member, when present, is a real ID
(MB-STATUS-4; which ID a server names is its choice, so the suite does not insist on one).
A processed batch must be 200 multipart/mixed, readable by the strict validator, with one
part per request part in order (MB-RESP-1), each with a valid Http-Status-Code (MB-RESP-2)
and the request's Content-Id echoed octet for octet (MB-RESP-3). Where a check knows where
spec 5.3's convention places the fault, `expect_located` judges the `part_index` and
`byte_offset` members exactly, 0 included, and says which of them the server left out. A
refusal that is a 503 carries Retry-After (MB-LIMIT-6).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from mixbatch_conformance.core.context import Context, problem_of
from mixbatch_conformance.core.http_dates import is_imf_fixdate
from mixbatch_conformance.core.json_text import is_json_integer
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.numerals import decimal
from mixbatch_conformance.core.requirements import load_index
from mixbatch_conformance.core.validator import (
    Envelope,
    names_media_type,
    response_part_findings,
)
from mixbatch_conformance.transport.http import Response

__all__ = [
    "DELAY_SECONDS",
    "LOCATION_MEMBERS",
    "POLICY_REFUSALS",
    "expect_located",
    "expect_processed",
    "expect_rejected",
    "expect_retry_after",
    "part_status",
    "unjudged_if_policy_refusal",
]


#: The faults MB-STATUS-2 lists as a malformed envelope, answered 400: framing, part header
#: syntax, a missing or invalid Http-Method or Content-Id, a forbidden field, a rejected
#: target, a nested batch.
MALFORMED_ENVELOPE = frozenset(
    {
        *(f"MB-WIRE-{n}" for n in (8, 13, 17, 18, 19, 20)),
        *(f"MB-PART-{n}" for n in (2, 4, 10, 11)),
        *(f"MB-SUB-{n}" for n in (2, 4, 8)),
    }
)

#: Answers that no fault of the request causes (spec 5.3, under MB-STATUS-4: "503 because the
#: server is busy or stopping, ... 401, 403 or 429 from the server's own policies"): a batch so
#: answered says nothing of how its parts are processed. The 500 the same sentence names ("because
#: the batch machinery failed") is left out: a batch whose parts the server answers alone that
#: makes its machinery fail is judged, as `read_batch` judges a 500 everywhere.
POLICY_REFUSALS = frozenset({401, 403, 429, 503})


def unjudged_if_policy_refusal(judge: Judge, resp: Response, what: str) -> None:
    """N/A when `what`, a well-formed batch the suite wrote, met a refusal no fault of the
    request causes, or a 413 or 431 naming a limit (spec 9.1: "A server may choose other
    values"; the limit checks judge whether the limit was the published one). Any other answer
    is left to the caller's `read_batch`, which holds it to MB-STATUS-1's 200: a batch of parts
    the server answers alone has no fault for a 4xx to name, so such a refusal is judged, never
    passed over."""
    if resp.status in POLICY_REFUSALS:
        judge.not_applicable(f"{what} was answered {resp.status}, a refusal no fault of it causes")
    doc = problem_of(resp) if resp.status in (413, 431) else None
    limit = doc.get("limit") if doc else None
    if isinstance(limit, str) and limit:
        judge.not_applicable(f"{what} was refused {resp.status} over the limit {limit}")


#: RFC 9110 section 10.2.3: Retry-After = HTTP-date / delay-seconds, delay-seconds = 1*DIGIT
#: (ASCII digits: RFC 5234's DIGIT is %x30-39); the HTTP-date as a sender writes it, an
#: IMF-fixdate (core.http_dates).
DELAY_SECONDS = re.compile(r"[0-9]+")


def retry_after_s(resp: Response) -> float:
    """The seconds `resp`'s Retry-After asks for when it is delay-seconds (0 otherwise, an
    HTTP-date or no field included)."""
    retry = (resp.get("Retry-After") or "").strip(" \t")
    return float(retry) if DELAY_SECONDS.fullmatch(retry) else 0.0


def expect_retry_after(judge: Judge, resp: Response, label: str = "Retry-After on the 503") -> None:
    """A 503 for a batch the server is too busy for carries a well-formed Retry-After."""
    retry = (resp.get("Retry-After") or "").strip(" \t")
    # MB-LIMIT-6: a batch the server is too busy for gets "503 (Service Unavailable) and a
    # `Retry-After` field" (RFC 9110 10.2.3: delay-seconds or an HTTP-date).
    judge.expect_true(
        label,
        DELAY_SECONDS.fullmatch(retry) is not None or is_imf_fixdate(retry),
        repr(retry) if retry else "no Retry-After",
        "delay-seconds or an HTTP-date",
        "MB-LIMIT-6",
    )


def expect_rejected(
    judge: Judge,
    resp: Response,
    statuses: Collection[int],
    requirement: str,
    *,
    problem: bool = True,
    accept_post: bool = False,
) -> None:
    """The response is one of `statuses`, carrying problem details when asked."""
    ok = judge.expect("top-level status", resp.status, set(statuses), requirement)
    if not ok:
        if set(statuses) == {400} and requirement in MALFORMED_ENVELOPE and resp.status >= 400:
            # MB-STATUS-2: "A server MUST answer a batch request whose envelope is malformed
            # (framing, part header syntax, missing or invalid `Http-Method` or `Content-Id`, a
            # forbidden field, a rejected target, a nested batch) with 400": a refusal with
            # another status breaks the status rule as well as the fault's own.
            judge.expect(
                "top-level status of a malformed envelope", resp.status, {400}, "MB-STATUS-2"
            )
        return
    if accept_post:
        values = resp.get_all("Accept-Post")
        # MB-WIRE-2: "415 (Unsupported Media Type) and an `Accept-Post: multipart/mixed` field":
        # a list member that is multipart/mixed, not a substring of another type.
        judge.expect_true(
            "Accept-Post names multipart/mixed",
            names_media_type(values, "multipart/mixed"),
            f"Accept-Post: {values!r}",
            "Accept-Post with a member that is multipart/mixed",
            "MB-WIRE-2",
        )
    if resp.status == 503:
        expect_retry_after(judge, resp)
    if problem:
        doc = problem_of(resp)
        judge.require_true(
            "problem+json body",
            doc is not None,
            f"Content-Type {resp.get('Content-Type')!r}, {len(resp.body)} octets",
            "a JSON object as application/problem+json",
            "MB-STATUS-4",
        )
        assert doc is not None
        judge.expect("problem status member", doc.get("status"), {resp.status}, "MB-STATUS-4")
        named = doc.get("requirement")
        # MB-STATUS-4: "with a `requirement` member naming the ID of the requirement the request
        # broke, when it broke one"; an answer no fault of the request caused (5xx, 401, 403,
        # 429) "may leave `requirement` out".
        optional = resp.status >= 500 or resp.status in (401, 403, 429)
        judge.expect_true(
            "problem names a requirement ID",
            (named is None and optional) or (isinstance(named, str) and named in load_index()),
            f"requirement member {named!r}",
            "an ID from spec/requirements.json" + (" or none" if optional else ""),
            "MB-STATUS-4",
        )


#: The problem members that say where a fault is (MB-STATUS-4).
LOCATION_MEMBERS = ("part_index", "byte_offset")


def _is_count(value: object) -> bool:
    """A JSON integer as the problem schema's "integer" has it (100.0 as well as 100, never
    `true`)."""
    return is_json_integer(value)


def expect_located(
    judge: Judge, resp: Response, part_index: int | None, byte_offset: int
) -> list[str]:
    """The problem document places the fault at `part_index` and `byte_offset`, each member
    judged when present (a JSON integer, 0 included); returns the members it leaves out. A
    `part_index` of None is not judged: the part a fault belongs to is not always fixed.

    MB-STATUS-4: "with `part_index` (from 0) and `byte_offset` (octets from the start of the
    request content) members when the server knows them"; spec 5.3 fixes the values ("a fault
    on a delimiter line: the offset of the line's first `-`", ...)."""
    doc = problem_of(resp)
    if doc is None:
        return []
    missing = []
    for member, expected in zip(LOCATION_MEMBERS, (part_index, byte_offset), strict=True):
        if expected is None:
            continue
        value = doc.get(member)
        if value is None:
            missing.append(member)
            continue
        judge.expect_true(
            f"problem {member}",
            _is_count(value) and value == expected,
            repr(value),
            f"the integer {expected}",
            "MB-STATUS-4",
        )
    return missing


def part_status(env: Envelope, i: int) -> int | None:
    value = env.parts[i].get("Http-Status-Code") if i < len(env.parts) else None
    return decimal(value)


def expect_processed(
    ctx: Context,
    judge: Judge,
    resp: Response,
    content_ids: Sequence[str],
    part_statuses: Sequence[Collection[int] | None] = (),
    requirement: str = "MB-PART-8",
    count_requirement: str = "MB-RESP-1",
) -> Envelope:
    """The response is a valid 200 multipart batch answering `content_ids` in order.

    The part count is judged under `count_requirement`: MB-RESP-1 (one response part per
    request part) unless what decides how many parts the request holds is another rule, such
    as MB-WIRE-9 for content whose preamble holds a part's look."""
    env = ctx.read_batch(judge, resp)
    judge.require("part count", len(env.parts), {len(content_ids)}, count_requirement)
    for i, (part, cid) in enumerate(zip(env.parts, content_ids, strict=True)):
        findings = response_part_findings(part, cid)
        for f in findings:
            judge.expect_true(f"part {i} header fields", False, f.message, "valid", f.sender)
        if not findings:
            judge.expect("part order (Content-Id echo)", part.get("Content-Id"), {cid}, "MB-RESP-3")
        if i < len(part_statuses) and part_statuses[i] is not None:
            allowed = part_statuses[i]
            assert allowed is not None
            judge.expect(f"part {i} status", part_status(env, i), set(allowed), requirement)
    return env
