"""Atomic batches (spec 7.5), judged from the wire: what the parts say and what a GET sees.

Theory of operation: each check writes marked members into the sandbox with `Batch-Mode:
atomic` and then reads them back with standalone GETs, so that an answer that looks atomic
but left writes behind (or lost them) is caught by what the server serves afterwards, not by
what it says. A failing batch ends with a GET of the target's `not_found` resource, a failure
any server must produce (MB-TEST-1). The isolation check reads two members, one after the
other, while an atomic batch that rewrites both waits on the `delay` resource between its
writes: a reader that sees the first rewritten and the second not has seen half a batch.
Every member a check creates is recorded by the context and deleted when the check ends.
The outcomes of a failing batch are read in every form the target declares, and "failing" is
judged at its edges (399 against 400, 499, 500 and 599, from the status resource).
"""

from __future__ import annotations

import secrets
import threading
import time

from mixbatch_conformance.checks._shared.budget_abort import expect_budget_abort
from mixbatch_conformance.checks._shared.collections import created_path
from mixbatch_conformance.checks._shared.forms_alike import expect_entries_as_multipart
from mixbatch_conformance.checks._shared.outlast import (
    ABORT_INDEXES,
    FIRST_ABORT_INDEXES,
    outlasting_batch,
)
from mixbatch_conformance.checks._shared.sandbox_marks import created_member, marked_member
from mixbatch_conformance.checks._shared.status_parts import require_status_code
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.json_text import loads_json_text
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import (
    ENTRY_COUNT_REQUIREMENT,
    JSON_FORM,
    MULTISTATUS_FORMS,
    Entry,
    Reader,
    answers_in_every_form,
    comparable_fields,
    entries_from_multipart,
    entry_requirement,
    require_readable,
)
from mixbatch_conformance.core.validator import Envelope, read_multipart
from mixbatch_conformance.transport.http import Response

ATOMIC = (("Batch-Mode", "atomic"),)
JSON_FIELDS = (("Content-Type", "application/json"),)
#: Milliseconds the isolation check's batch waits between its two writes.
ISOLATION_DELAY_MS = 400
#: Seconds between two reads of the isolation check's reader.
READ_PAUSE = 0.01


def _sandbox(ctx: Context, judge: Judge) -> str:
    return ctx.path(ctx.resource(judge, "sandbox_collection"))


def _location(ctx: Context, env: Envelope, i: int, request_path: str) -> str | None:
    """The member part `i` (a POST to `request_path`) created, from its `Location`."""
    location = env.parts[i].get("Location") if i < len(env.parts) else None
    return created_path(ctx, request_path, location)


def _failing_batch(
    ctx: Context, judge: Judge, marker: str, *, send: bool = True
) -> tuple[list[SubRequest], Response | None]:
    coll = _sandbox(ctx, judge)
    nf = ctx.path(ctx.resource(judge, "not_found"))
    subs = [
        SubRequest("POST", coll, JSON_FIELDS, marked_member(ctx, judge, marker)),
        SubRequest("GET", nf),
        SubRequest("POST", coll, JSON_FIELDS, marked_member(ctx, judge, marker)),
    ]
    return subs, ctx.batch(judge, subs, headers=ATOMIC) if send else None


@checker(
    "atomic-failure-outcomes",
    ("MB-PROC-8", "MB-RESP-1", "MB-MULTI-5", "MB-MULTI-6", "MB-MULTI-4", "MB-MULTI-3"),
    "In an atomic batch whose second part fails, the first is rolled-back with its real status and, in every form, the fields and body it has in multipart; the second keeps its status unmarked, the third is skipped.",
    profile="atomic",
    state=State.WRITES_IN_SANDBOX,
)
def failure_outcomes(ctx: Context, judge: Judge) -> None:
    subs, _ = _failing_batch(ctx, judge, f"mb-suite-atomic-{secrets.token_hex(6)}", send=False)
    # Every form the target declares, each its own atomic batch that writes nothing in the
    # end. MB-PROC-8: "MUST mark each part before the failing one `Batch-Outcome:
    # rolled-back` with its real status; MUST answer the failing part with its own status and
    # no `Batch-Outcome`; and MUST answer every later part `Batch-Outcome: skipped`." In the
    # XML form DAV:status is there "exactly when the part ran" (MB-MULTI-6): a rolled-back
    # part ran.
    forms = answers_in_every_form(ctx, judge, subs, ATOMIC)
    base = forms[0][2]
    # MB-PROC-8's answer, each part's (outcome, allowed statuses).
    shape: list[tuple[str | None, set[int | None]]] = [
        ("rolled-back", {201}),
        (None, {404, 410}),
        ("skipped", {None}),
    ]
    decided = len(base) == len(shape) and all(
        b.outcome == o and b.status in s for b, (o, s) in zip(base, shape, strict=True)
    )
    for media, resp, entries in forms:
        # A 207 entry that is not what MB-PROC-8 gives, where the multipart form is, breaks its
        # form's requirement: MB-MULTI-6 (XML: "`mb:outcome` when the part has a
        # `Batch-Outcome`", "`DAV:status` ... exactly when the part ran") or MB-MULTI-4 (the
        # JSON schema's `outcome`, "The Batch-Outcome", and `status`).
        shaped = entry_requirement(media, decided, "MB-PROC-8")
        if media == JSON_FORM:
            # Spec 6.4: the JSON `summary` holds "the counts the `Batch-Summary` trailer would
            # give", which counts "`skipped` and `rolled-back` the parts with those outcomes"
            # and as `failed` only parts with no outcome (spec 5.5), under `rolled_back`.
            summary = loads_json_text(resp.body).get("summary")
            want = {"ok": 0, "failed": 1, "skipped": 1, "rolled_back": 1}
            judge.expect(f"{media} summary", summary, [want], "MB-MULTI-4")
        # MB-RESP-1: "exactly one response part for each request part, in request order",
        # the failing part in its own place too; in the 207 forms MB-MULTI-3 ("one
        # `DAV:response` per request part, in request order") and MB-MULTI-4 ("one entry per
        # request part, in request order").
        judge.expect(
            f"{media} parts in request order (Content-Id)",
            [e.content_id for e in entries],
            [[s.target for s in subs]],
            ENTRY_COUNT_REQUIREMENT.get(media, "MB-RESP-1"),
        )
        judge.expect(f"{media} part 0 status", entries[0].status, {201}, shaped)
        judge.expect(f"{media} part 0 outcome", entries[0].outcome, {"rolled-back"}, shaped)
        # MB-MULTI-5: "for each part ... its header fields and its body" in every form, the
        # rolled-back creation's too. Each form's batch creates (and undoes) its own member, so
        # the values of its fields and its body may differ; which fields, and whether there
        # is a body, may not.
        volatile = ctx.target.volatile_headers
        for i, (entry, mine) in enumerate(zip(entries, base, strict=False)):
            judge.expect(
                f"{media} part {i} field names as in multipart/mixed",
                [n for n, _ in comparable_fields(entry.fields, volatile)],
                [[n for n, _ in comparable_fields(mine.fields, volatile)]],
                "MB-MULTI-5",
            )
            judge.expect(
                f"{media} part {i} has a body as in multipart/mixed",
                bool(entry.body),
                {bool(mine.body)},
                "MB-MULTI-5",
            )
        judge.expect(f"{media} part 1 status", entries[1].status, {404, 410}, shaped)
        judge.expect(f"{media} part 1 outcome", entries[1].outcome, {None}, shaped)
        judge.expect(f"{media} part 2 outcome", entries[2].outcome, {"skipped"}, shaped)
        judge.expect(
            f"{media} part 2 status",
            entries[2].status,
            {None},
            entry_requirement(media, decided, "MB-RESP-5"),
        )


#: Statuses at the edges of failing (spec 7.4: "A part **fails** when its status is 400 or
#: above"), each with whether it fails.
FAILING_EDGES = ((399, False), (400, True), (499, True), (500, True), (599, True))


#: Statuses the parts around the failing one are answered with (from the status resource, the
#: ok resource first): two before it, rolled back, and two after it, skipped, each with its own
#: target, so that their order is seen.
BEFORE_CODES = (203,)
AFTER_CODES = (204, 226)


@checker(
    "atomic-failing-edges",
    (
        "MB-PROC-8",
        "MB-RESP-1",
        "MB-MULTI-5",
        "MB-RESP-2",
        "MB-MULTI-6",
        "MB-MULTI-4",
        "MB-TEST-6",
        "MB-MULTI-3",
    ),
    "An atomic batch whose middle part is answered 400, 499, 500 or 599 rolls back the two parts before it and skips the two after it, in request order, in every declared form with the same fields and bodies as in multipart; one answered 399 commits.",
    profile="atomic",
    state=State.READ_ONLY,
)
def failing_edges(ctx: Context, judge: Judge) -> None:
    template = ctx.resource(judge, "status")

    def status(code: int) -> SubRequest:
        return SubRequest("GET", ctx.path(template.replace("{code}", str(code))))

    before = [SubRequest("GET", ctx.path(ctx.resource(judge, "ok"))), *map(status, BEFORE_CODES)]
    after = [status(c) for c in AFTER_CODES]
    volatile = ctx.target.volatile_headers
    for code, fails in FAILING_EDGES:
        subs = [*before, status(code), *after]
        # GETs only: the batch changes nothing whether it commits or not. Every form the
        # target declares, the multipart one first.
        forms = answers_in_every_form(ctx, judge, subs, ATOMIC)
        base = forms[0][2]
        middle = len(before)
        require_status_code(
            ctx, judge, f"part {middle} status for {code}", subs[middle], base[middle].status, code
        )
        for media, _, entries in forms:
            # MB-RESP-1: "exactly one response part for each request part, in request order":
            # the rolled-back parts as they were sent, not as they were undone, and the
            # skipped ones after the failing part; in the 207 forms MB-MULTI-3 and MB-MULTI-4
            # give each form's entries that order.
            judge.expect(
                f"{media} parts in request order around {code} (Content-Id)",
                [e.content_id for e in entries],
                [[s.target for s in subs]],
                ENTRY_COUNT_REQUIREMENT.get(media, "MB-RESP-1"),
            )
            got = [(e.outcome, e.status) for e in entries]
            # MB-PROC-8, for a part that fails ("400 or above", spec 7.4): rolled-back with its
            # real status before it, its own status unmarked, skipped after it. Spec 7.5: an
            # atomic batch with no failing part is "every part ran and none carries
            # `Batch-Outcome` (committed)".
            ran = [200, *BEFORE_CODES]
            want = (
                [*(("rolled-back", c) for c in ran), (None, code), *(("skipped", None),) * 2]
                if fails
                else [*((None, c) for c in ran), (None, code), *((None, c) for c in AFTER_CODES)]
            )
            # The 207 forms: when the multipart form is as MB-PROC-8 wants, a 207 entry that is
            # not breaks its form's requirement (MB-MULTI-6: "`mb:outcome` when the part has a
            # `Batch-Outcome`", DAV:status "exactly when the part ran"; MB-MULTI-4's schema).
            decided = [(e.outcome, e.status) for e in base] == want
            judge.expect(
                f"{media} (outcome, status) of each part around {code}",
                got,
                [want],
                entry_requirement(media, decided, "MB-PROC-8"),
            )
            if media == forms[0][0]:
                continue
            # MB-MULTI-5: a rolled-back or skipped part as much as one that committed.
            expect_entries_as_multipart(judge, media, entries, base, volatile, f" around {code}")


#: The declared resources an atomic batch that fails must leave as they were, with the sandbox.
STANDING_ROLES = ("ok", "etag_resource", "not_found", "collection", "empty_collection")


def _standing(ctx: Context, judge: Judge) -> dict[str, int]:
    """The status a GET of each declared standing resource, and of the sandbox, gets alone."""
    paths = [ctx.path(p) for p in map(ctx.target.resource, STANDING_ROLES) if p]
    paths.append(_sandbox(ctx, judge))
    return {path: ctx.alone(judge, SubRequest("GET", path)).status for path in paths}


@checker(
    "atomic-failure-undoes-writes",
    ("MB-PROC-8", "MB-PROC-15"),
    "After an atomic batch fails, the member its first part created is not there, and every declared resource, the sandbox collection included, answers a GET as it did before the batch.",
    profile="atomic",
    state=State.WRITES_IN_SANDBOX,
)
def failure_undoes_writes(ctx: Context, judge: Judge) -> None:
    before = _standing(ctx, judge)
    subs, resp = _failing_batch(ctx, judge, f"mb-suite-atomic-{secrets.token_hex(6)}")
    assert resp is not None
    env = expect_processed(ctx, judge, resp, [s.content_id for s in subs])
    created = _location(ctx, env, 0, subs[0].target)
    if created is None:
        judge.setup_error("the rolled-back POST names no Location to look at")
    after = ctx.alone(judge, SubRequest("GET", created))
    # MB-PROC-8: "MUST undo the effects of every part that ran, the failing part included".
    judge.expect(f"GET {created} after the failed batch", after.status, {404, 410})
    # MB-PROC-15: no request observes "any effect of an atomic batch that does not commit";
    # the rollback restores what the batch touched and nothing else changes.
    for path, status in _standing(ctx, judge).items():
        judge.expect(
            f"GET {path} after the failed batch, answered {before[path]} before it",
            status,
            {before[path]},
            "MB-PROC-15",
        )


@checker(
    "atomic-commit-visible",
    ("MB-PROC-16",),
    "After an atomic batch answered with no Batch-Outcome, every member it wrote is there.",
    profile="atomic",
    state=State.WRITES_IN_SANDBOX,
)
def commit_visible(ctx: Context, judge: Judge) -> None:
    coll = _sandbox(ctx, judge)
    marker = f"mb-suite-atomic-{secrets.token_hex(6)}"
    subs = [
        SubRequest("POST", coll, JSON_FIELDS, marked_member(ctx, judge, marker)) for _ in range(2)
    ]
    env = expect_processed(
        ctx, judge, ctx.batch(judge, subs, headers=ATOMIC), [s.content_id for s in subs]
    )
    for i in range(2):
        judge.require(f"part {i} status", part_status(env, i), {201})
        judge.require(f"part {i} Batch-Outcome", env.parts[i].get("Batch-Outcome"), {None})
    for i in range(2):
        created = _location(ctx, env, i, subs[i].target)
        if created is None:
            judge.setup_error(f"part {i}'s 201 names no Location to look at")
        after = ctx.alone(judge, SubRequest("GET", created))
        # MB-PROC-16: "MUST have committed the effects of every part before it sends the first
        # response part, so that every request it receives after that observes all of them".
        judge.expect(f"GET {created} after the committed batch", after.status, {200})
        if ctx.target.sandbox_reads_back and after.status == 200:
            judge.expect_true(
                f"{created} reads back",
                marker.encode() in after.body,
                repr(after.body[:120]),
                "the document the batch wrote (MB-TEST-4)",
            )


@checker(
    "atomic-no-partial-state",
    ("MB-PROC-15",),
    "A reader during an atomic batch that rewrites two members never sees the first rewritten and the second not.",
    profile="atomic",
    state=State.WRITES_IN_SANDBOX,
    tier="standard",
)
def no_partial_state(ctx: Context, judge: Judge) -> None:
    template = ctx.resource(judge, "delay")
    if ctx.target.timeout < ISOLATION_DELAY_MS / 1000 + 2:
        judge.not_applicable("the delayed batch does not fit the suite's time per exchange")
    coll = _sandbox(ctx, judge)
    old = f"mb-suite-old-{secrets.token_hex(6)}"
    new = f"mb-suite-new-{secrets.token_hex(6)}"
    first, second = created_member(ctx, judge, coll, old), created_member(ctx, judge, coll, old)
    tags = {}
    for path in (first, second):
        got = ctx.alone(judge, SubRequest("GET", path))
        judge.require(f"GET {path}", got.status, {200}, "MB-TEST-3")
        tags[path] = got.get("ETag")
    if not ctx.target.sandbox_reads_back and None in tags.values():
        judge.not_applicable("the sandbox neither reads back nor gives ETags to tell writes apart")

    def rewritten(path: str, got: Response) -> bool:
        if ctx.target.sandbox_reads_back:
            return new.encode() in got.body
        return got.get("ETag") != tags[path]

    subs = [
        SubRequest("PUT", first, JSON_FIELDS, marked_member(ctx, judge, new)),
        SubRequest("GET", ctx.path(template.replace("{ms}", str(ISOLATION_DELAY_MS)))),
        SubRequest("PUT", second, JSON_FIELDS, marked_member(ctx, judge, new)),
    ]
    answer: list[Response] = []
    batch = threading.Thread(target=lambda: answer.append(ctx.batch(judge, subs, headers=ATOMIC)))
    seen: list[tuple[bool, bool]] = []
    batch.start()
    while batch.is_alive():
        # First, then second: "first rewritten, second not" cannot be the state before the
        # commit nor the one after it.
        a = ctx.alone(judge, SubRequest("GET", first))
        b = ctx.alone(judge, SubRequest("GET", second))
        seen.append((rewritten(first, a), rewritten(second, b)))
        time.sleep(READ_PAUSE)
    batch.join()
    judge.require("batch answered", len(answer), {1})
    env = expect_processed(ctx, judge, answer[0], [s.content_id for s in subs])
    judge.require("parts committed", [p.get("Batch-Outcome") for p in env.parts], [[None] * 3])
    # MB-PROC-15: "MUST NOT let any other request ... observe the effects of some parts of an
    # atomic batch without the effects of all of them".
    judge.expect_true(
        "reads during the batch",
        (True, False) not in seen,
        f"{len(seen)} reads, {seen.count((True, False))} saw the first write without the second",
        "never the first write without the second",
    )


def _entry_location(ctx: Context, entry: Entry, request_path: str) -> str | None:
    """The member an entry's POST to `request_path` created, from its `Location`."""
    location = next((v for n, v in entry.fields if n.lower() == "location"), None)
    return created_path(ctx, request_path, location)


def _abort_entries(
    ctx: Context, judge: Judge, subs: list[SubRequest], accept: str | None, reader: Reader | None
) -> list[Entry]:
    """The entries of an atomic batch's answer in one form: multipart/mixed (accept None), or
    the 207 form `accept` read by `reader`."""
    if accept is None or reader is None:
        resp = ctx.batch(judge, subs, headers=ATOMIC)
        judge.require("top-level status", resp.status, {200}, "MB-STATUS-12")
        judge.require("response media type", resp.media_type, {"multipart/mixed"}, "MB-MULTI-1")
        _, params = judge.media_type("response Content-Type", resp.get("Content-Type"), "MB-WIRE-3")
        return entries_from_multipart(read_multipart(resp.body, params.get("boundary", "")))
    resp = ctx.batch(judge, subs, headers=(*ATOMIC, ("Accept", accept)))
    judge.require(f"{accept} top-level status", resp.status, {207}, "MB-STATUS-12")
    entries, problem = reader(resp.body)
    require_readable(judge, f"{accept} readable", problem, "MB-MULTI-12")
    return entries


@checker(
    "atomic-abort-rolls-back",
    ("MB-PROC-14", "MB-STATUS-14", "MB-STATUS-6", "MB-MULTI-6", "MB-MULTI-4"),
    "An atomic batch that outlasts the declared time limit rolls back the parts that ran, marks them rolled-back and ends with the abort part, in every declared form; its write is not there afterwards; with the slow part first it is still a 200 ending with the abort part.",
    profile="atomic",
    state=State.WRITES_IN_SANDBOX,
    tier="standard",
)
def abort_rolls_back(ctx: Context, judge: Judge) -> None:
    subs = outlasting_batch(ctx, judge)
    coll = _sandbox(ctx, judge)
    forms: list[tuple[str | None, Reader | None]] = [(None, None)]
    forms += [(a, r) for profile, a, r, _ in MULTISTATUS_FORMS if ctx.target.claims(profile)]
    decided = status_decided = False
    for accept, reader in forms:
        media = accept or "multipart/mixed"
        marker = f"mb-suite-atomic-{secrets.token_hex(6)}"
        subs[0] = SubRequest("POST", coll, JSON_FIELDS, marked_member(ctx, judge, marker))
        entries = _abort_entries(ctx, judge, subs, accept, reader)
        outcomes = [e.outcome for e in entries]
        judge.require_true(f"{media} parts", bool(outcomes), "no part", "at least the abort part")
        expect_budget_abort(judge, f"{media}: ", "aborted" in outcomes)
        # MB-PROC-14: "MUST undo the effects of every part that ran, answer those parts
        # `Batch-Outcome: rolled-back` with their real statuses, and end the response with the
        # abort part of 5.4 naming the first part that did not run".
        judge.expect(f"{media} last part", outcomes[-1], {"aborted"})
        # The 207 forms: see entry_requirement.
        before = set(outcomes[:-1])
        judge.expect(
            f"{media} parts before the abort",
            before,
            [{"rolled-back"}],
            entry_requirement(media, decided, "MB-PROC-14"),
        )
        if accept is None:
            decided = before == {"rolled-back"}
            status_decided = entries[0].status == 201
        # MB-PROC-14: "answer those parts `Batch-Outcome: rolled-back` with their real
        # statuses"; the 207 forms: see entry_requirement.
        judge.expect(
            f"{media} part 0 status",
            entries[0].status,
            {201},
            entry_requirement(media, status_decided, "MB-PROC-14"),
        )
        try:
            doc = loads_json_text(entries[-1].body)
        except ValueError:
            doc = None
        doc = doc if isinstance(doc, dict) else {}
        # MB-STATUS-14: "a `part_index` member equal to the index of the first part it does not
        # answer": the parts answered rolled-back come before it, so it is their count,
        # whichever of the places spec 5.4 allows the abort took.
        judge.expect(
            f"{media} parts answered before the abort",
            len(outcomes) - 1,
            ABORT_INDEXES,
            "MB-STATUS-6",
        )
        judge.expect(
            f"{media} abort part_index", doc.get("part_index"), {len(outcomes) - 1}, "MB-STATUS-14"
        )
        # MB-STATUS-14 prose: "The status is 503 when the server stops because it is ... out
        # of its time budget", an atomic batch's abort as much as any other's.
        judge.expect(f"{media} abort status", doc.get("status"), {503}, "MB-STATUS-14")
        created = _entry_location(ctx, entries[0], coll)
        if created is not None:
            after = ctx.alone(judge, SubRequest("GET", created))
            judge.expect(
                f"GET {created} after the aborted batch ({media})", after.status, {404, 410}
            )
    _judge_slow_first(ctx, judge)


def _judge_slow_first(ctx: Context, judge: Judge) -> None:
    """The slow part first: the budget runs out while part 0 runs, before any part is answered.

    MB-STATUS-12: "A server MUST answer with a 5xx status only when it fails before any part
    has run; once a part has run, it MUST send a batch response"; spec 5.4 counts a part
    "whose sub-request is running when the reason to stop arrives" as one that "may have taken
    effect", and MB-PROC-14 ends an atomic batch stopped before its commit "with the abort part
    of 5.4 naming the first part that did not run".
    """
    subs = outlasting_batch(ctx, judge, slow_first=True)
    start = time.monotonic()
    resp = ctx.batch(judge, subs, headers=ATOMIC)
    elapsed = time.monotonic() - start
    limit_s = (ctx.target.batch_timeout_ms or 0) / 1000
    if resp.status >= 500 and elapsed < limit_s:
        judge.note(f"slow part first: {resp.status} after {elapsed:.2f} s, before the budget")
        return
    judge.require(
        f"slow part first: top-level status once part 0 had started ({elapsed:.2f} s in)",
        resp.status,
        {200},
        "MB-STATUS-12",
        allowed_text="200: part 0 ran (it was running when the budget ran out), so the batch "
        "response carries the abort part, not a 5xx",
    )
    judge.require("slow part first: media type", resp.media_type, {"multipart/mixed"}, "MB-MULTI-1")
    _, params = judge.media_type("response Content-Type", resp.get("Content-Type"), "MB-WIRE-3")
    outcomes = [
        e.outcome
        for e in entries_from_multipart(read_multipart(resp.body, params.get("boundary", "")))
    ]
    judge.require_true("slow part first: parts", bool(outcomes), "no part", "the abort part")
    expect_budget_abort(judge, "slow part first: ", "aborted" in outcomes)
    # MB-PROC-14: "answer those parts `Batch-Outcome: rolled-back` with their real statuses,
    # and end the response with the abort part".
    judge.expect("slow part first: last part", outcomes[-1], {"aborted"}, "MB-PROC-14")
    judge.expect(
        "slow part first: parts before the abort",
        set(outcomes[:-1]),
        [set(), {"rolled-back"}],
        "MB-PROC-14",
    )
    judge.expect(
        "slow part first: parts answered before the abort",
        len(outcomes) - 1,
        FIRST_ABORT_INDEXES,
        "MB-STATUS-6",
    )
