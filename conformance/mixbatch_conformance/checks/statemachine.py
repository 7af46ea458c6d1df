"""A hypothesis state machine over the sandbox collection (standard tier).

Theory of operation: the machine keeps a model of the members it created (location ->
title, or None once deleted) and drives the target with rules that each go through a
batch: create (POST, 201 with Location: MB-RESP-7), replace (PUT), delete (DELETE), read
(GET), and `sequence`, one batch that replaces, reads, deletes and reads the same member,
whose results must be those of running the parts one at a time in order (MB-PROC-2). After
each rule a read of every known member, alone, must agree with the model (MB-SUB-1: the
batch had the effect the same requests have alone). The member document is
{"title", "author", "year"} as JSON; a sandbox that does not accept it makes the check N/A.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from mixbatch_conformance.checks._shared.property_runs import EXAMPLES, PropertyFailed
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker

TITLES = ("alpha", "beta", "gamma \u00e9", "delta--\r\nwith CRLF")


def _doc(title: str) -> bytes:
    return json.dumps({"title": title, "author": "mixbatch suite", "year": 2000}).encode()


def _json(title: str, method: str, path: str) -> SubRequest:
    return SubRequest(method, path, (("Content-Type", "application/json"),), _doc(title))


def _title_of(body: bytes) -> str | None:
    try:
        doc = json.loads(body)
    except ValueError:
        return None
    return doc.get("title") if isinstance(doc, dict) else None


@checker(
    "property-sandbox-state-machine",
    ("MB-PROC-2", "MB-RESP-7", "MB-SUB-1"),
    "Batched creates, replaces, deletes and reads on the sandbox behave as the same requests run one at a time.",
    tier="standard",
    state=State.WRITES_IN_SANDBOX,
)
def sandbox_machine(ctx: Context, judge: Judge) -> None:
    # hypothesis takes about 0.4 s to import; smoke runs never reach this check.
    from hypothesis import HealthCheck, settings
    from hypothesis import strategies as st
    from hypothesis.stateful import Bundle, RuleBasedStateMachine, rule, run_state_machine_as_test

    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    probe = _json("probe", "POST", coll)
    env = expect_processed(ctx, judge, ctx.batch(judge, [probe]), [probe.content_id])
    if part_status(env, 0) != 201:
        judge.not_applicable(
            f"the sandbox answered a JSON POST with {part_status(env, 0)}, not 201"
        )
    made = urlsplit(env.parts[0].get("Location") or "").path
    if made:
        ctx.alone(judge, SubRequest("DELETE", made))
    failures: list[Judge] = []

    def run(body: Any) -> Any:
        j = Judge("MB-PROC-2")
        result = body(j)
        if j.failed:
            failures[:] = [j]
            raise PropertyFailed(j)
        return result

    def location(value: str | None) -> str | None:
        return urlsplit(value).path if value else None

    class Sandbox(RuleBasedStateMachine):
        members = Bundle("members")

        def __init__(self) -> None:
            super().__init__()
            self.model: dict[str, str | None] = {}

        @rule(target=members, title=st.sampled_from(TITLES))
        def create(self, title: str) -> str:
            def body(j: Judge) -> str:
                sub = _json(title, "POST", coll)
                env = expect_processed(ctx, j, ctx.batch(j, [sub]), [sub.content_id])
                j.require("create status", part_status(env, 0), {201}, "MB-RESP-7")
                loc = location(env.parts[0].get("Location"))
                j.require_true("Location", bool(loc), repr(loc), "a Location field", "MB-RESP-7")
                assert loc is not None
                self.model[loc] = title
                return loc

            loc: str = run(body)
            return loc

        @rule(loc=members, title=st.sampled_from(TITLES))
        def replace(self, loc: str, title: str) -> None:
            def body(j: Judge) -> None:
                sub = _json(title, "PUT", loc)
                env = expect_processed(ctx, j, ctx.batch(j, [sub]), [sub.content_id])
                gone = self.model.get(loc) is None
                j.expect("replace status", part_status(env, 0), {404} if gone else {200, 204})
                if not gone:
                    self.model[loc] = title

            run(body)

        @rule(loc=members)
        def delete(self, loc: str) -> None:
            def body(j: Judge) -> None:
                sub = SubRequest("DELETE", loc)
                env = expect_processed(ctx, j, ctx.batch(j, [sub]), [sub.content_id])
                gone = self.model.get(loc) is None
                j.expect("delete status", part_status(env, 0), {404} if gone else {200, 204})
                self.model[loc] = None

            run(body)

        @rule(loc=members, title=st.sampled_from(TITLES))
        def sequence(self, loc: str, title: str) -> None:
            def body(j: Judge) -> None:
                subs = [
                    _json(title, "PUT", loc),
                    SubRequest("GET", loc),
                    SubRequest("DELETE", loc),
                    SubRequest("GET", loc),
                ]
                env = expect_processed(ctx, j, ctx.batch(j, subs), [s.content_id for s in subs])
                if self.model.get(loc) is None:
                    want = [404, 404, 404, 404]
                else:
                    want = [200, 200, 204, 404]
                    j.expect("read after write", _title_of(env.parts[1].body), {title}, "MB-PROC-2")
                got = [part_status(env, i) for i in range(4)]
                j.expect(
                    "sequential statuses",
                    [g if g not in (200, 204) else 200 for g in got],
                    [[w if w not in (200, 204) else 200 for w in want]],
                    "MB-PROC-2",
                )
                self.model[loc] = None

            run(body)

        @rule()
        def agrees_with_model(self) -> None:
            def body(j: Judge) -> None:
                for loc, title in self.model.items():
                    alone = ctx.alone(j, SubRequest("GET", loc))
                    if title is None:
                        j.expect(f"{loc} is gone", alone.status, {404}, "MB-SUB-1")
                    else:
                        j.expect(f"{loc} status", alone.status, {200}, "MB-SUB-1")
                        j.expect(f"{loc} title", _title_of(alone.body), {title}, "MB-SUB-1")

            run(body)

        def teardown(self) -> None:
            j = Judge("MB-PROC-2")
            for loc, title in self.model.items():
                if title is not None:
                    ctx.alone(j, SubRequest("DELETE", loc))

    budget = EXAMPLES.get(ctx.settings.tier, 25)
    try:
        run_state_machine_as_test(
            Sandbox,
            settings=settings(
                max_examples=max(1, budget // 3),
                stateful_step_count=8,
                deadline=None,
                database=None,
                derandomize=True,
                suppress_health_check=list(HealthCheck),
                report_multiple_bugs=False,
            ),
        )
    except PropertyFailed as exc:
        minimal = failures[0] if failures else exc.judge
        judge.exchanges.extend(minimal.exchanges)
        judge.expectations.extend(minimal.expectations)
        judge.note("minimal failing step sequence of the sandbox state machine")
        return
    judge.expect_true(
        "state machine", True, f"held over {max(1, budget // 3)} runs", "holds", "MB-PROC-2"
    )
