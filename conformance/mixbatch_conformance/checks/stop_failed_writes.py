"""A write that fails stops a stopping batch like any failing part (spec 7.4, 7.5).

Theory of operation: spec 7.4 defines a failing part by its number, "A part **fails** when its
status is 400 or above", whatever its method. A server that reads a failed write by what it
means (a DELETE answered 404 or 410 as "already gone", the end an idempotent delete wanted; a
conditional PUT answered 412 as "nothing to do") runs on where MB-PROC-6 (stop) and MB-PROC-8
(atomic) end the batch. `stop-at-failed-write` learns alone what a DELETE of a sandbox member
that does not exist and a PUT to such a member under `If-Match` of a tag it cannot have are
answered; each one answered 400 or above goes first in a batch, a GET of `ok` after it, under
each stopping mode the target offers: the GET is skipped. Nothing is written: each write
targets a member that does not exist and fails.
"""

from __future__ import annotations

import secrets

from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.checks._shared.sandbox_marks import MARKER_PREFIX, marked_document
from mixbatch_conformance.checks._shared.stopping_modes import stopping_modes
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import entries_from_multipart

__all__: list[str] = []


@checker(
    "stop-at-failed-write",
    ("MB-PROC-6", "MB-PROC-8"),
    "A DELETE of a sandbox member that does not exist, and a PUT to one under an If-Match of a tag it cannot have, each answered 400 or above alone, stop a batch under batch-on-error=stop and an atomic batch: the GET of ok after it is skipped.",
    state=State.WRITES_IN_SANDBOX,
)
def stop_at_failed_write(ctx: Context, judge: Judge) -> None:
    modes = stopping_modes(ctx, judge)
    ok, _ = ok_and_not_found(ctx, judge)
    coll = ctx.path(ctx.resource(judge, "sandbox_collection")).rstrip("/")
    # A member document marked as the suite's own (b"{}" without one): should the PUT run
    # after all, what it wrote is the suite's and says so.
    body = marked_document(ctx, f"{MARKER_PREFIX}{secrets.token_hex(6)}") or b"{}"
    writes = []
    for method in ("DELETE", "PUT"):
        path = f"{coll}/mb-suite-absent-{secrets.token_hex(6)}"
        if method == "DELETE":
            write = SubRequest("DELETE", path)
        else:
            fields = (("Content-Type", "application/json"), ("If-Match", '"mb-suite-no-such"'))
            write = SubRequest("PUT", path, fields, body)
        alone = ctx.alone(judge, write).status
        if alone < 400:
            judge.note(f"{method} {path} alone answered {alone}: no failing write to judge")
            continue
        writes.append((write, alone))
    if not writes:
        judge.not_applicable("every write to an absent sandbox member succeeded alone")
    for write, alone in writes:
        for field, name, requirement in modes:
            subs = [write, ok]
            resp = ctx.batch(judge, subs, headers=(field,))
            env = expect_processed(ctx, judge, resp, [s.content_id for s in subs])
            what = f"{name}: {write.method} of an absent member"
            judge.expect(
                f"{what}: part 0 status as alone", part_status(env, 0), {alone}, "MB-SUB-1"
            )
            entries = entries_from_multipart(env)
            # Spec 7.4: "A part fails when its status is 400 or above"; MB-PROC-6 and MB-PROC-8
            # answer every part after the first failing part `Batch-Outcome: skipped`.
            judge.expect(
                f"{what} answered {alone}: part 1 (outcome, status)",
                (entries[1].outcome, entries[1].status),
                {("skipped", None)},
                requirement,
            )
