"""A batch the server must stop after its response began (spec 5.4: MB-STATUS-6, -12, -14).

Theory of operation: a black-box suite cannot make a server fail on purpose, but it can outlast
a limit the server declares. The target's `batch_timeout_ms` is its whole-batch time limit; the
check sends three parts: a quick one (k-1), one on the target's delay resource that outlasts the
limit (k), and a quick one after it; with it, at once, the slow part first (k = 0) and the slow
part last (no part left after k, where a server that writes the abort part only when a later
part is due writes none). Spec 5.4 lists what a server that stops while part k runs may answer,
and the check accepts each of them, no more:

- parts 0 to k-1, then the abort part with `part_index` k;
- parts 0 to k, then the abort part with `part_index` k+1 (the server finished part k);
- either of these cut short without the close delimiter, "when the server cannot write the
  abort part".

Whatever the shape, the top-level status stays 200 because a part already ran (MB-STATUS-12):
with the slow part first that part is running when the budget runs out, and spec 5.4 counts it
as a part that "may have taken effect", so a 5xx after the budget is judged there too;
part 0 keeps its own answer, and an abort part carries `Batch-Outcome: aborted`, no
`Http-Status-Code`, no `Content-Id`, a problem+json body whose `status` is 503 (the time budget's cause) and whose
`part_index` is its own position (MB-STATUS-14), and is followed by the close delimiter and
nothing else (MB-STATUS-6). A part answered before the abort is a sub-response: a slow part
written with the delay resource's 200 before its delay could have passed since the batch was
sent whole (MB-TEST-7, MB-PROC-1) carries a status no sub-response had (MB-RESP-2), one
written with a 5xx (a 500 or 504 for the part the budget cut off) stands where the abort part
goes (MB-STATUS-6: the delay resource never answers 5xx), and one written 200 after it carries
the content the resource answers alone (MB-RESP-4), compared only when two standalone sends
agree on it (MB-TEST-7 fixes the status and timing, not the content) and when such a send fits
the check's wait. `batch-abort-in-multistatus` asks for the same batches in the JSON (or XML)
form and holds the abort entry to MB-MULTI-12 and the entries before it as the parts.
`batch-abort-under-stop` sends them under `Prefer: batch-on-error=stop`: a spent budget is no
failing part, so the abort part still ends them, never parts written `skipped`.

`batch-budget-counts-arrival` sends a batch whose content trickles in over `ARRIVAL_SHARE` of
the declared limit (once framed by Content-Length, once chunked, on two connections at once) and
whose one part waits on the delay resource for the rest of the limit and `OVERSHOOT_SHARE` of it
more: the part alone stays well under the limit, the batch from its first octet outlasts it.
MB-TEST-7 counts the declared budget "from the moment its server begins to receive the batch
request, reception included", so the batch is aborted as any batch over its budget (spec 5.4);
a server that starts the clock when the parts start, or when the content has arrived, answers it
whole. An intermediary may read the whole request before it forwards it, so that check runs
direct only, over HTTP/1.1.

`batch-abort-over-http10` sends the outlasting batch with an HTTP/1.0 request line, where the
server answers an HTTP/1.0 batch as a multipart batch at all (learnt from a one-part batch
first: the spec fixes nothing of the request's version, and RFC 9112 §2.3 lets a server refuse
HTTP/1.0). Such an answer is delimited by the connection's close, not by chunks, but spec 5.4
names no framing: the abort part and the close delimiter end it as over HTTP/1.1, and a server
that cannot write them leaves the close delimiter missing, as MB-WIRE-14 lets a client see.

`batch-abort-after-timeout` also sends a one-part batch, a one-part atomic batch (under the
`atomic` profile) and the `ok` resource alone before its outlasting batches and again after them
(`_shared/still_answering`): one answered before and not after is left blocked by what the
stopped batches left behind (MB-STATUS-1, MB-TEST-1), which no later check could blame.

The batches of a check are sent at once, so that each check waits out the budget once (the
declared limit plus a second or so). A read of such an exchange may wait the slow part's whole
delay, so the checks raise their reads' wait to it (`_shared/outlast.wait_out`), beyond the
run's per-exchange timeout up to `MAX_OUTLAST_WAIT_S`: a server declaring a budget of several
seconds is judged as one declaring a short one. Without a declared limit and a delay resource,
or when the wait would exceed that bound, the checks are N/A. They are in the standard tier.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from mixbatch_conformance.checks._shared.budget_abort import ABORTED_LINE, expect_budget_abort
from mixbatch_conformance.checks._shared.delay_answers import (
    ALONE_SLACK_S,
    delay_waits,
    expect_delay_status_not_early,
    expect_no_stand_in_for_abort,
)
from mixbatch_conformance.checks._shared.outlast import (
    ABORT_INDEXES,
    FIRST_ABORT_INDEXES,
    expect_not_before_budget,
    outlasting_batch,
    wait_out,
)
from mixbatch_conformance.checks._shared.still_answering import (
    answered_before,
    expect_still_answered,
)
from mixbatch_conformance.checks._shared.trickle import split_evenly, trickled
from mixbatch_conformance.checks._shared.versions import with_version
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch, json_object
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.media_types import JSON_FORM, PROBLEM_JSON
from mixbatch_conformance.core.outcomes import part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import (
    broken_by,
    entries_from_json,
    entries_from_xml,
)
from mixbatch_conformance.core.schemas import validate_against
from mixbatch_conformance.core.validator import Envelope, Part, parse_media_type, read_multipart
from mixbatch_conformance.transport.http import Response


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
    # MB-STATUS-6: the abort part carries "`Content-Type: application/problem+json` and a
    # problem document"; spec 5.3: "The problem schema ([`spec/schemas/problem.schema.json`])
    # therefore requires `type`, `title` and `status`", whose description covers "the body of a
    # final Batch-Outcome: aborted part".
    judge.expect(
        "abort problem schema",
        validate_against("problem.schema.json", doc),
        {None},
        "MB-STATUS-6",
        allowed_text="valid against problem.schema.json",
    )


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
    (
        "MB-STATUS-6",
        "MB-STATUS-12",
        "MB-STATUS-14",
        "MB-WIRE-15",
        "MB-RESP-2",
        "MB-TEST-7",
        "MB-STATUS-1",
        "MB-TEST-1",
    ),
    "A batch that outlasts the server's declared time limit after its response began, its slow part in the middle, first or last, ends with an abort part at a part_index spec 5.4 allows, a problem+json body and the close delimiter, under a 200, no part before it written with a failure the budget caused; a batch, an atomic batch and a resource answered before such batches are answered after them too.",
    tier="standard",
    state=State.READ_ONLY,
)
def abort_after_timeout(ctx: Context, judge: Judge) -> None:
    batches = _three_batches(ctx, judge, "")
    before = answered_before(ctx, judge)
    _judge_stopped_batches(ctx, judge, batches, ())
    expect_still_answered(ctx, judge, before)


def _three_batches(ctx: Context, judge: Judge, prefix: str) -> list[Stopped]:
    """The outlasting batch with its slow part in the middle, first and last."""
    return [
        (outlasting_batch(ctx, judge), ABORT_INDEXES, prefix),
        # The slow part first: the server stops before it has answered any part, so the abort
        # names part 0 (MB-STATUS-14: "a `part_index` member equal to the index of the first
        # part it does not answer", 0 included), or part 1 if it finished the slow part.
        (
            outlasting_batch(ctx, judge, slow_first=True),
            FIRST_ABORT_INDEXES,
            f"{prefix}slow part first: ",
        ),
        # The slow part last: no part is left after it, and the abort part still ends the
        # batch, naming part 1 or, if the server finished it, part 2 (spec 5.4: "parts 0 to k,
        # then the abort part with `part_index` k+1").
        (
            outlasting_batch(ctx, judge, slow_last=True),
            ABORT_INDEXES,
            f"{prefix}slow part last: ",
        ),
    ]


#: An outlasting batch, the abort part_index values spec 5.4 allows it, and its label.
Stopped = tuple[list[SubRequest], frozenset[int], str]


def _judge_stopped_batches(
    ctx: Context, judge: Judge, batches: list[Stopped], headers: tuple[tuple[str, str], ...]
) -> None:
    """Send the batches at once, so that the check waits out one budget, then judge each.

    An answer that did not end within the wait is sent again alone, so that no other batch
    shares the server's time with it (a server may run the parts of all three in turn): one
    that begins and stalls alone too breaks MB-STATUS-6, whose batch spec 5.4 ends with the
    abort part and the close delimiter or, when the server cannot write them, a closed
    connection; one that never begins alone is a TIMEOUT."""
    with ThreadPoolExecutor(len(batches), thread_name_prefix="mixbatch-abort") as pool:
        sent = [pool.submit(_sent_stopped, ctx, judge, subs, headers) for subs, _, _ in batches]
        answers: list[tuple[Response, float] | None] = []
        for future in sent:
            try:
                answers.append(future.result())
            except TimeoutError as exc:
                judge.note(f"an outlasting batch sent with others did not end: {exc}")
                answers.append(None)
    for (subs, indexes, label), answer in zip(batches, answers, strict=True):
        if answer is None:
            with judge.stalls_break("MB-STATUS-6"):
                answer = _sent_stopped(ctx, judge, subs, headers)
        _judge_stopped_batch(ctx, judge, subs, indexes, label, answer)


@checker(
    "batch-abort-over-http10",
    ("MB-STATUS-6", "MB-STATUS-12", "MB-STATUS-14", "MB-TEST-7"),
    "A batch sent over HTTP/1.0 that the server answers as a multipart batch, and that outlasts the declared time limit after its response began, ends with the abort part of spec 5.4 and the close delimiter under a 200, its answer delimited by the connection's close.",
    tier="standard",
    state=State.READ_ONLY,
)
def abort_over_http10(ctx: Context, judge: Judge) -> None:
    subs = outlasting_batch(ctx, judge)
    ok = SubRequest("GET", ctx.path(ctx.resource(judge, "ok")))
    probe = ctx.send(judge, _http10_batch(ctx, [ok]))
    if probe.status != 200 or probe.media_type != "multipart/mixed":
        # Nothing in the spec makes a server take an HTTP/1.0 batch: a refusal is not judged.
        judge.not_applicable(
            f"the server answers an HTTP/1.0 batch {probe.status} {probe.media_type}, "
            "not as a multipart batch"
        )
    start = time.monotonic()
    resp = ctx.send(judge, _http10_batch(ctx, subs))
    # MB-STATUS-6 binds "a server that must stop after its batch response has begun", whatever
    # the framing of that response: an HTTP/1.0 answer ended by the close ends in the abort
    # part and the close delimiter as a chunked one does.
    answer = (resp, time.monotonic() - start)
    _judge_stopped_batch(ctx, judge, subs, ABORT_INDEXES, "over HTTP/1.0: ", answer)


def _http10_batch(ctx: Context, subs: list[SubRequest]) -> bytes:
    """The batch `subs` with an HTTP/1.0 request line."""
    boundary = "mb-suite-abort-10-7c2e"
    head = [("Content-Type", f"multipart/mixed; boundary={boundary}")]
    request = ctx.raw_request("POST", ctx.batch_path, head, compose_batch(subs, boundary))
    return with_version(request, "1.0")


def _sent_stopped(
    ctx: Context, judge: Judge, subs: list[SubRequest], headers: tuple[tuple[str, str], ...] = ()
) -> tuple[Response, float]:
    """The answer to an outlasting batch and the seconds it took."""
    start = time.monotonic()
    resp = ctx.batch(judge, subs, headers=headers)
    return resp, time.monotonic() - start


def _judge_started_first_part(
    ctx: Context, judge: Judge, resp: Response, elapsed: float, status: int, label: str
) -> None:
    """A batch whose first part was still running when its time budget ran out is a batch
    in which a part has run: it is answered `status` (200, or 207 for a 207 form), never 5xx.

    MB-STATUS-12: "A server MUST answer with a 5xx status only when it fails before any part
    has run"; spec 5.4 counts a part "whose sub-request is running when the reason to stop
    arrives" as one that "may have taken effect", and lists for a stop while part k runs
    "parts 0 to k-1, then the abort part with `part_index` k", for k = 0 an abort part alone
    under the batch status. A 5xx that came before the budget was spent says nothing of a
    running part, and is only noted.
    """
    limit_ms = ctx.target.batch_timeout_ms or 0
    if resp.status >= 500 and elapsed < limit_ms / 1000:
        judge.note(f"{label}answered {resp.status} after {elapsed:.2f} s, before the budget")
        return
    judge.require(
        f"{label}top-level status once the first part had started ({elapsed:.2f} s in)",
        resp.status,
        {status},
        "MB-STATUS-12",
        allowed_text=f"{status}: the first part ran (its sub-request was running when the "
        "budget ran out), so the batch response carries the abort part, not a 5xx",
    )


def _expect_delay_content_as_alone(
    ctx: Context, judge: Judge, label: str, part: Part, sub: SubRequest, index: int, ms: int
) -> None:
    """Part `index`, a GET of the delay resource for `ms` answered 200 before the abort, holds
    what the same request gets alone, when two standalone sends of it agree on that content.

    MB-TEST-7 fixes the delay resource's status and timing only, not its content: a content
    that differs from one standalone send to the next is no content a part must reproduce.
    """
    what = f"{label}part {index} (a {ms} ms delay) content"
    if ms / 1000 + ALONE_SLACK_S > ctx.timeout_for(judge):
        judge.note(
            f"{what} not compared: a standalone GET waiting {ms} ms does not fit the check's "
            f"{ctx.timeout_for(judge):g} s per read"
        )
        return
    first, second = ctx.alone(judge, sub), ctx.alone(judge, sub)
    if first.status != 200 or second.status != 200:
        judge.note(f"{what} not compared: alone it answered {first.status}, then {second.status}")
        return
    if first.body != second.body:
        judge.note(f"{what} not compared: two standalone sends answered different content")
        return
    # MB-RESP-4: "MUST put the sub-response's content in the part body"; spec 3.2.4: the
    # sub-request is the same request as sent alone.
    judge.expect(f"{what} as the resource's alone", part.body, {first.body}, "MB-RESP-4")


def _judge_stopped_batch(
    ctx: Context,
    judge: Judge,
    subs: list[SubRequest],
    indexes: frozenset[int],
    label: str,
    answer: tuple[Response, float] | None = None,
    sent_after_s: float = 0.0,
) -> None:
    """Judge the answer to `subs`, a batch outlasting its budget. `elapsed` (of `answer`, or
    of the exchange sent here) counts from before the request's first octet was sent, and the
    request had not been sent whole until `sent_after_s` seconds after that."""
    resp, elapsed = answer if answer is not None else _sent_stopped(ctx, judge, subs)
    if label:
        _judge_started_first_part(ctx, judge, resp, elapsed, 200, label)
    judge.require(f"{label}top-level status after a part ran", resp.status, {200}, "MB-STATUS-12")
    env = _read_stopped(judge, resp)
    aborted = [p.index for p in env.parts if _is_aborted(p)]
    expect_budget_abort(judge, label, bool(aborted) or not env.complete)
    expect_not_before_budget(ctx, judge, label, bool(aborted) or not env.complete, elapsed)
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
    for i in range(answered):
        # Spec 5.4: a server that stops while part k runs writes "parts 0 to k-1" (or "0 to
        # k") and then the abort part: parts that ran, each its sub-response. A part written
        # `skipped` in place of the abort claims it "never ran" (MB-RESP-5) and hides the
        # abort MB-STATUS-6 requires, whatever the error policy.
        judge.expect(
            f"{label}part {i} Batch-Outcome before the abort",
            [v.strip() for v in env.parts[i].get_all("Batch-Outcome")],
            [[]],
            "MB-STATUS-6",
        )
    for i, ms in delay_waits(ctx, judge, subs).items():
        if i >= answered:
            continue
        # A part answered before the abort is its sub-response (spec 5.4: "parts 0 to k"):
        # a slow part's 200 cannot have arrived before its delay had passed.
        part = env.parts[i]
        if not expect_no_stand_in_for_abort(ctx, judge, label, part_status(env, i), subs[i], i, ms):
            continue
        if not expect_delay_status_not_early(judge, label, part, i, ms, elapsed - sent_after_s):
            continue
        if part_status(env, i) == 200:
            _expect_delay_content_as_alone(ctx, judge, label, part, subs[i], i, ms)
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
    _expect_abort_problem(judge, json_object(last.body), answered)
    judge.expect(
        f"{label}close delimiter after the abort part", env.complete, {True}, "MB-STATUS-6"
    )


@checker(
    "batch-abort-under-stop",
    ("MB-STATUS-6", "MB-STATUS-12", "MB-STATUS-14", "MB-TEST-7"),
    "Under Prefer: batch-on-error=stop a batch that outlasts the declared time limit, the slow part in the middle, first or last, still ends with the abort part of spec 5.4 under a 200, not with skipped parts.",
    profile="error-policy",
    tier="standard",
    state=State.READ_ONLY,
)
def abort_under_stop(ctx: Context, judge: Judge) -> None:
    # MB-STATUS-6 binds "a server that must stop after its batch response has begun" whatever
    # the error policy: the stop policy skips the parts after a part that *failed* (MB-PROC-6,
    # "a part fails when its status is 400 or above"); a spent budget is no part's status.
    stop = (("Prefer", "batch-on-error=stop"),)
    # The batches wait out the budget together: the check costs one budget.
    _judge_stopped_batches(ctx, judge, _three_batches(ctx, judge, "stop: "), stop)


@checker(
    "batch-abort-in-multistatus",
    ("MB-MULTI-12", "MB-STATUS-14", "MB-STATUS-12", "MB-TEST-7"),
    "In the JSON or XML form an aborted batch, its slow part in the middle, first or last, under the stop policy where offered, ends with an abort entry indexed by its part_index whose one header field is Content-Type, no entry before it a failure the budget caused.",
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
    # The slow part in the middle, first (the abort entry and its problem name part 0, or part
    # 1: MB-STATUS-14, "a `part_index` member equal to the index of the first part it does not
    # answer") and last (no part left after it), sent at once: the check costs one budget.
    batches = _three_batches(ctx, judge, "")
    with ThreadPoolExecutor(len(batches), thread_name_prefix="mixbatch-abort") as pool:
        sent = [pool.submit(_sent_stopped, ctx, judge, subs, headers) for subs, _, _ in batches]
        answers = [f.result() for f in sent]
    for (subs, indexes, label), answer in zip(batches, answers, strict=True):
        _judge_stopped_form(ctx, judge, subs, indexes, headers, label, answer)


def _judge_stopped_form(
    ctx: Context,
    judge: Judge,
    subs: list[SubRequest],
    indexes: frozenset[int],
    headers: tuple[tuple[str, str], ...],
    label: str,
    answer: tuple[Response, float],
) -> None:
    accept = headers[0][1]
    reader = entries_from_json if accept == JSON_FORM else entries_from_xml
    resp, elapsed = answer
    if label:
        # As in the multipart form: the first part had started, so no 5xx (MB-STATUS-12).
        _judge_started_first_part(ctx, judge, resp, elapsed, 207, label)
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
    expect_budget_abort(judge, label, bool(aborted))
    expect_not_before_budget(ctx, judge, label, bool(aborted), elapsed)
    # MB-STATUS-6: a server that must stop "MUST ... write a final part with `Batch-Outcome:
    # aborted`", under the stop policy as under any other: entries written `skipped` from the
    # running part on, with no abort report, break it in this form as in multipart/mixed.
    judge.expect(
        f"{label}an abort report at all",
        bool(aborted),
        {True},
        "MB-STATUS-6",
        allowed_text="an entry with outcome aborted (the batch outlasted its time budget)",
    )
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
    for i, ms in delay_waits(ctx, judge, subs).items():
        if i < answered:
            # In this form as in multipart/mixed, an entry answered before the abort report is
            # its part's sub-response (spec 5.4: "parts 0 to k"), never a failure written for
            # the part the budget cut off.
            expect_no_stand_in_for_abort(ctx, judge, label, entries[i].status, subs[i], i, ms)
    doc = json_object(entry.body)
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
    # A server that never aborts, and sends nothing until the batch has ended, is silent for
    # every slow part's wait.
    wait_out(
        ctx,
        judge,
        delay_ms / 1000 * SLOW_PARTS + TOTAL_SLACK_S,
        f"{SLOW_PARTS} waits of {delay_ms} ms",
    )
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
    # MB-STATUS-12: "once a part has run, it MUST send a batch response (200 or 207) and report
    # a later failure with the abort part": the first slow part and its barrier have run
    # whole before the budget runs out, so a 5xx here is never the answer.
    judge.require("top-level status once parts ran", resp.status, {200}, "MB-STATUS-12")
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


#: The share of the declared limit over which the trickled batch's content arrives.
ARRIVAL_SHARE = 0.6
#: How far past the limit, as a share of it, the trickled batch's part waits once the content
#: has arrived: its wait alone (1 - ARRIVAL_SHARE + OVERSHOOT_SHARE of the limit) stays under it.
OVERSHOOT_SHARE = 0.25
#: The pieces the content is sent in, evenly spaced over its arrival.
PIECES = 6
#: Seconds the suite allows beyond the trickled batch's expected end.
TRICKLE_SLACK_S = 5.0
TRICKLE_BOUNDARY = "mb-trickle-4f1a9c03e7b25d68"


@checker(
    "batch-budget-counts-arrival",
    ("MB-SEC-1", "MB-STATUS-6", "MB-STATUS-12", "MB-STATUS-14", "MB-RESP-2"),
    "A batch whose content trickles in over most of the declared time limit, framed by Content-Length or chunked, and whose one part then waits past the rest of it, is aborted: the limit counts from the batch's first octet, not from when its parts start.",
    tier="standard",
    state=State.READ_ONLY,
    direct_only="an intermediary may read the whole request before it forwards it, so the "
    "server sees the content arrive at once",
)
def budget_counts_arrival(ctx: Context, judge: Judge) -> None:
    if ctx.settings.http2:
        judge.not_applicable("the trickled batches are written on HTTP/1.1 connections")
    limit_ms = ctx.target.batch_timeout_ms
    if limit_ms is None:
        judge.not_applicable("the target declares no whole-batch time limit (batch_timeout_ms)")
    # The batch takes 1 + OVERSHOOT_SHARE times the limit when the server never aborts.
    wait_out(
        ctx,
        judge,
        limit_ms * (1 + OVERSHOOT_SHARE) / 1000 + TRICKLE_SLACK_S,
        f"a trickled batch outlasting {limit_ms} ms",
    )
    arrival_s = limit_ms * ARRIVAL_SHARE / 1000
    # MB-TEST-7: the delay resource answers "no sooner than *ms* milliseconds after it received
    # the request"; the part alone waits well under the limit.
    delay_ms = int(limit_ms * (1 - ARRIVAL_SHARE + OVERSHOOT_SHARE))
    slow = SubRequest("GET", ctx.path(ctx.resource(judge, "delay").replace("{ms}", str(delay_ms))))
    subs = [slow]
    body = compose_batch(subs, TRICKLE_BOUNDARY)
    pieces = split_evenly(body, PIECES)
    gap = arrival_s / (len(pieces) - 1)
    mixed = ("Content-Type", f"multipart/mixed; boundary={TRICKLE_BOUNDARY}")
    by_length = ctx.raw_request(
        "POST", ctx.batch_path, [mixed, ("Content-Length", str(len(body)))], None
    )
    chunked = ctx.raw_request(
        "POST", ctx.batch_path, [mixed, ("Transfer-Encoding", "chunked")], None
    )
    chunks = [f"{len(p):x}\r\n".encode() + p + b"\r\n" for p in pieces]
    chunks[-1] += b"0\r\n\r\n"
    with ThreadPoolExecutor(2, thread_name_prefix="mixbatch-trickle") as pool:
        sent = [
            ("content-length: ", pool.submit(trickled, ctx, judge, by_length, pieces, gap)),
            ("chunked: ", pool.submit(trickled, ctx, judge, chunked, chunks, gap)),
        ]
        answers = [(label, future.result()) for label, future in sent]
    for label, (ex, elapsed) in answers:
        judge.record(ex)
        judge.note(
            f"{label}content sent over {arrival_s:.2f} s, the part waits {delay_ms} ms against "
            f"a limit of {limit_ms} ms; answered after {elapsed:.2f} s"
        )
        if ex.response is None:
            # Spec 5.4: "any of the above cut short without the close delimiter, when the
            # server cannot write the abort part": a 200 whose content ends early.
            cut = ex.raw.startswith((b"HTTP/1.1 200", b"HTTP/1.0 200"))
            judge.require_true(
                f"{label}an answer",
                cut,
                f"none: {ex.error}",
                "a 200 batch response, whole or cut short",
                "MB-STATUS-6",
            )
            judge.note(f"{label}the response was cut short: {ex.error}")
            continue
        # MB-SEC-1 (through expect_budget_abort): "abort ... a batch that exceeds its budget";
        # MB-TEST-7: the declared budget counts "from the moment its server begins to receive
        # the batch request, reception included", so this batch is over it while its part runs.
        # Its last piece went out no sooner than `gap` after each of the others.
        _judge_stopped_batch(
            ctx,
            judge,
            subs,
            FIRST_ABORT_INDEXES,
            label,
            answer=(ex.response, elapsed),
            sent_after_s=gap * (len(pieces) - 1),
        )
