"""A batch the server must stop after its response began (spec 5.4: MB-STATUS-6, -12, -14).

Theory of operation: a black-box suite cannot make a server fail on purpose, but it can outlast
a limit the server declares. The target's `batch_timeout_ms` is its whole-batch time limit; the
check sends three parts: a quick one (k-1), one on the target's delay resource that outlasts the
limit (k), and a quick one after it. Spec 5.4 lists what a server that stops while part k runs
may answer, and the check accepts each of them, no more:

- parts 0 to k-1, then the abort part with `part_index` k;
- parts 0 to k, then the abort part with `part_index` k+1 (the server finished part k);
- either of these cut short without the close delimiter, "when the server cannot write the
  abort part".

Whatever the shape, the top-level status stays 200 because a part already ran (MB-STATUS-12),
part 0 keeps its own answer, and an abort part carries `Batch-Outcome: aborted`, no
`Http-Status-Code`, no `Content-Id`, a problem+json body whose `status` is 503 (the time budget's cause) and whose
`part_index` is its own position (MB-STATUS-14), and is followed by the close delimiter and
nothing else (MB-STATUS-6). `batch-abort-in-multistatus` asks for the same batch in the JSON
(or XML) form and holds the abort entry to MB-MULTI-12.

Without a declared limit and a delay resource, or when the delay would not fit the suite's
time per exchange, the checks are N/A. Each takes the declared limit plus a second, so they
are in the standard tier.
"""

from __future__ import annotations

import json
import re
from typing import Any

from mixbatch_conformance.checks._shared.outlast import (
    ABORT_INDEXES,
    FIRST_ABORT_INDEXES,
    outlasting_batch,
)
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import (
    broken_by,
    entries_from_json,
    entries_from_xml,
)
from mixbatch_conformance.core.validator import Envelope, Part, parse_media_type, read_multipart
from mixbatch_conformance.transport.http import Response

PROBLEM_JSON = "application/problem+json"
JSON_FORM = "application/vnd.mixbatch.multistatus+json"
#: An abort part's field line, found in what follows the last part read whole.
ABORTED_LINE = re.compile(rb"(?im)^batch-outcome:[ \t]*aborted[ \t]*\r?$")


def _problem(body: bytes) -> dict[str, Any] | None:
    try:
        doc = json.loads(body)
    except ValueError:
        return None
    return doc if isinstance(doc, dict) else None


def _expect_abort_problem(judge: Judge, doc: dict[str, Any] | None, position: int) -> None:
    judge.require_true(
        "abort part body",
        doc is not None,
        "not a JSON object",
        "a problem details JSON object",
        "MB-STATUS-6",
    )
    assert doc is not None
    # MB-STATUS-14: "a `status` member holding the 5xx status ... and a `part_index` member
    # equal to the index of the first part it does not answer".
    # Every abort judged here comes of a batch outlasting the declared time limit, and the
    # prose of MB-STATUS-14 fixes that cause's status: "The status is 503 when the server stops
    # because it is overloaded, shutting down or out of its time budget".
    judge.expect(
        "abort problem status (time budget spent)", doc.get("status"), {503}, "MB-STATUS-14"
    )
    judge.expect("abort problem part_index", doc.get("part_index"), {position}, "MB-STATUS-14")
    # MB-STATUS-14 prose: "its `requirement` member is optional; when present it names
    # MB-STATUS-6".
    judge.expect(
        "abort problem requirement", doc.get("requirement"), {None, "MB-STATUS-6"}, "MB-STATUS-6"
    )
    # MB-STATUS-14 prose: "`byte_offset` is absent" (the abort is no fault in the request).
    judge.expect("abort problem byte_offset", "byte_offset" in doc, {False}, "MB-STATUS-14")


def _read_stopped(judge: Judge, resp: Response) -> Envelope:
    """Read a batch response that may end early: every framing finding fails the check except
    the missing close delimiter, whose verdict depends on the shape (spec 5.4)."""
    judge.require("response media type", resp.media_type, {"multipart/mixed"}, "MB-MULTI-1")
    _, params = judge.media_type("response Content-Type", resp.get("Content-Type"), "MB-WIRE-3")
    env = read_multipart(resp.body, params.get("boundary", ""))
    for finding in env.findings:
        if finding.receiver == "MB-WIRE-13":
            continue
        judge.expect_true(
            "response framing",
            False,
            f"{finding.message} at octet {finding.offset}",
            "framing as the ABNF requires",
            finding.sender,
        )
    return env


def _end_of(env: Envelope) -> int:
    """The offset just past the last part read whole."""
    if not env.parts:
        return 0
    last = env.parts[-1]
    return last.body_offset + len(last.body)


def _is_aborted(part: Part) -> bool:
    return [v.strip() for v in part.get_all("Batch-Outcome")] == ["aborted"]


@checker(
    "batch-abort-after-timeout",
    ("MB-STATUS-6", "MB-STATUS-12", "MB-STATUS-14", "MB-WIRE-15"),
    "A batch that outlasts the server's declared time limit after its response began ends with an abort part at a part_index spec 5.4 allows, a problem+json body and the close delimiter, under a 200.",
    tier="standard",
    state=State.READ_ONLY,
)
def abort_after_timeout(ctx: Context, judge: Judge) -> None:
    _judge_stopped_batch(ctx, judge, outlasting_batch(ctx, judge), ABORT_INDEXES, "")
    # The slow part first: the server stops before it has answered any part, so the abort
    # names part 0 (MB-STATUS-14: "a `part_index` member equal to the index of the first part
    # it does not answer", 0 included), or part 1 if it finished the slow part.
    _judge_stopped_batch(
        ctx,
        judge,
        outlasting_batch(ctx, judge, slow_first=True),
        FIRST_ABORT_INDEXES,
        "slow part first: ",
    )


def _judge_stopped_batch(
    ctx: Context, judge: Judge, subs: list[SubRequest], indexes: frozenset[int], label: str
) -> None:
    resp = ctx.batch(judge, subs)
    if label and resp.status >= 500:
        # Whether a sub-request still running when the budget ran out "has run" (MB-STATUS-12)
        # is not settled by the spec, so a whole-batch 5xx is not judged here.
        judge.note(f"{label}answered {resp.status} before any response part")
        return
    judge.require(f"{label}top-level status after a part ran", resp.status, {200}, "MB-STATUS-12")
    env = _read_stopped(judge, resp)
    aborted = [p.index for p in env.parts if _is_aborted(p)]
    # MB-STATUS-6: "an abort never replaces a response part that was already written, and the
    # abort part, when written, is the last part".
    judge.require(
        f"{label}abort part position",
        aborted,
        [[len(env.parts) - 1], []],
        "MB-STATUS-6",
        allowed_text="at most one abort part, the last",
    )
    answered = len(env.parts) - len(aborted)
    if answered:
        judge.expect(f"{label}part 0 status", part_status(env, 0), {200}, "MB-STATUS-12")
    for part in env.parts:
        # MB-WIRE-15 (SHOULD): "give each part a `Content-Length` field stating the length of
        # its body", the abort part as much as the parts answered before it.
        judge.expect(
            f"{label}part {part.index} Content-Length{' (abort part)' if _is_aborted(part) else ''}",
            part.get_all("Content-Length"),
            [[str(len(part.body))]],
            "MB-WIRE-15",
        )
    for i in range(answered):
        judge.expect(
            f"{label}part {i} Content-Id",
            env.parts[i].get("Content-Id"),
            {subs[i].content_id},
            "MB-RESP-3",
        )
    if not aborted:
        # Spec 5.4: "any of the above cut short without the close delimiter, when the server
        # cannot write the abort part". One that wrote the abort part did not have to cut.
        judge.expect(
            f"{label}an abort part or a cut-short response", env.complete, {False}, "MB-STATUS-6"
        )
        judge.expect_true(
            f"{label}close delimiter after the abort part",
            not ABORTED_LINE.search(resp.body[_end_of(env) :]),
            "an abort part with no close delimiter after it",
            "the abort part, when written, followed by the close delimiter",
            "MB-STATUS-6",
        )
        judge.expect(f"{label}parts answered before the cut", answered, indexes, "MB-STATUS-6")
        judge.note(
            f"{label}the response ended without an abort part and without the close delimiter"
        )
        return
    judge.expect(f"{label}parts answered before the abort", answered, indexes, "MB-STATUS-6")
    last = env.parts[-1]
    judge.expect(
        f"{label}abort part Http-Status-Code", last.get_all("Http-Status-Code"), [[]], "MB-STATUS-6"
    )
    judge.expect(f"{label}abort part Content-Id", last.get_all("Content-Id"), [[]], "MB-STATUS-6")
    try:
        media, _ = parse_media_type(last.get("Content-Type") or "")
    except ValueError:
        media = ""
    judge.expect(f"{label}abort part media type", media, {PROBLEM_JSON}, "MB-STATUS-6")
    _expect_abort_problem(judge, _problem(last.body), answered)
    judge.expect(
        f"{label}close delimiter after the abort part", env.complete, {True}, "MB-STATUS-6"
    )


@checker(
    "batch-abort-in-multistatus",
    ("MB-MULTI-12", "MB-STATUS-14", "MB-STATUS-12"),
    "In the JSON or XML form an aborted batch, under the stop policy where offered, ends with an abort entry indexed by its part_index whose one header field is Content-Type.",
    tier="standard",
    state=State.READ_ONLY,
)
def abort_in_multistatus(ctx: Context, judge: Judge) -> None:
    if ctx.target.claims("json"):
        accept = JSON_FORM
    elif ctx.target.claims("xml"):
        accept = "application/xml"
    else:
        judge.not_applicable("the target claims neither the xml nor the json profile")
    # batch-abort-in-every-form asks for each form without a preference; this one asks under
    # the stop policy where the target offers it: no part fails, so the abort is the same one,
    # with the same part_index (MB-STATUS-14), whatever the policy.
    headers: tuple[tuple[str, str], ...] = (("Accept", accept),)
    if ctx.target.claims("error-policy"):
        headers += (("Prefer", "batch-on-error=stop"),)
    _judge_stopped_form(ctx, judge, outlasting_batch(ctx, judge), ABORT_INDEXES, headers, "")
    # The slow part first: the abort entry and its problem name part 0, or part 1 (MB-STATUS-14:
    # "a `part_index` member equal to the index of the first part it does not answer").
    subs = outlasting_batch(ctx, judge, slow_first=True)
    _judge_stopped_form(ctx, judge, subs, FIRST_ABORT_INDEXES, headers, "slow part first: ")


def _judge_stopped_form(
    ctx: Context,
    judge: Judge,
    subs: list[SubRequest],
    indexes: frozenset[int],
    headers: tuple[tuple[str, str], ...],
    label: str,
) -> None:
    accept = headers[0][1]
    reader = entries_from_json if accept == JSON_FORM else entries_from_xml
    resp = ctx.batch(judge, subs, headers=headers)
    if label and resp.status >= 500:
        # As in the multipart form: a whole-batch 5xx before any entry is not judged here.
        judge.note(f"{label}answered {resp.status} before any entry")
        return
    judge.require(f"{label}top-level status after a part ran", resp.status, {207}, "MB-STATUS-12")
    entries, problem = reader(resp.body)
    judge.require(
        f"{label}{accept} readable",
        problem,
        {None},
        broken_by(problem, "MB-MULTI-12"),
        allowed_text="readable",
    )
    aborted = [e for e in entries if e.outcome == "aborted"]
    judge.require(
        f"{label}abort entry",
        [e is entries[-1] for e in aborted],
        [[True]],
        "MB-MULTI-12",
        allowed_text="exactly one abort entry, the last",
    )
    entry = entries[-1]
    answered = len(entries) - 1
    judge.expect(f"{label}entries answered before the abort", answered, indexes, "MB-STATUS-6")
    doc = _problem(entry.body)
    _expect_abort_problem(judge, doc, answered)
    # MB-MULTI-12: "give the abort report the index of the first part it does not answer (the
    # problem document's `part_index`) as its part index, and MUST list `Content-Type` as its
    # one header field".
    judge.expect(f"{label}abort entry index", entry.index, {answered}, "MB-MULTI-12")
    judge.expect(
        f"{label}abort entry header fields",
        [(n.lower(), v.split(";")[0].strip().lower()) for n, v in entry.fields],
        [[("content-type", PROBLEM_JSON)]],
        "MB-MULTI-12",
    )


#: Each slow part waits this share of the declared limit: alone under it, together over it.
SHARE_OF_LIMIT = 0.6
#: The slow parts, each after a write that keeps it from running with the one before it.
SLOW_PARTS = 3
#: Seconds allowed beyond the slow parts' total wait, for a server that never aborts.
TOTAL_SLACK_S = 2.0


@checker(
    "batch-budget-spans-every-part",
    ("MB-SEC-1",),
    "A batch of slow parts each within the declared time limit but together beyond it, kept apart by writes so that none runs with another, is aborted: the limit is the batch's, not each part's.",
    tier="standard",
    state=State.READ_ONLY,
)
def budget_spans_every_part(ctx: Context, judge: Judge) -> None:
    limit_ms = ctx.target.batch_timeout_ms
    if limit_ms is None:
        judge.not_applicable("the target declares no whole-batch time limit (batch_timeout_ms)")
    delay_ms = int(limit_ms * SHARE_OF_LIMIT)
    if delay_ms / 1000 * SLOW_PARTS + TOTAL_SLACK_S > ctx.target.timeout:
        judge.not_applicable(f"{SLOW_PARTS} waits of {delay_ms} ms do not fit one exchange")
    slow = SubRequest("GET", ctx.path(ctx.resource(judge, "delay").replace("{ms}", str(delay_ms))))
    echo = ctx.path(ctx.resource(judge, "echo"))
    # MB-PROC-3: only "consecutive safe sub-requests" may run concurrently; "a write between
    # two reads is a barrier". A POST to the echo resource changes nothing (MB-TEST-2).
    barrier = SubRequest("POST", echo, (("Content-Type", "text/plain"),), b"barrier")
    subs = [
        slow,
        barrier,
        slow,
        barrier,
        slow,
        SubRequest("GET", ctx.path(ctx.resource(judge, "ok"))),
    ]
    resp = ctx.batch(judge, subs)
    if resp.status >= 500:
        # Stopped before the response began: that is an abort too (spec 5.4 lets a server
        # answer the whole batch when no part was written).
        judge.note(f"answered {resp.status} before any response part")
        return
    judge.require("top-level status", resp.status, {200}, "MB-STATUS-12")
    env = _read_stopped(judge, resp)
    stopped = any(_is_aborted(p) for p in env.parts) or not env.complete
    # MB-SEC-1: a server "SHOULD bound the wall-clock time ... it spends on one batch, and
    # abort ... a batch that exceeds its budget"; these parts wait SLOW_PARTS x SHARE_OF_LIMIT
    # of the declared limit one after another (MB-TEST-7: "no sooner than *ms* milliseconds").
    judge.expect_true(
        f"a batch waiting {SLOW_PARTS} x {delay_ms} ms against a limit of {limit_ms} ms",
        stopped,
        f"{len(env.parts)} parts answered, none aborted, the close delimiter written",
        "an abort part, or the response cut short",
        "MB-SEC-1",
    )
