"""A batch the server must stop after its response began (spec section 5, MB-STATUS-6, -12).

Theory of operation: a black-box suite cannot make a server fail on purpose, but it can outlast
a limit the server declares. The target's `batch_timeout_ms` is its whole-batch time limit; the
check sends three parts: a quick one, one on the target's delay resource that outlasts the
limit, and a quick one after it. A server that stops must end the response it already began:

- the top-level status stays 200, because a part already ran (MB-STATUS-12);
- the first part keeps its own answer (MB-STATUS-12);
- the last part carries `Batch-Outcome: aborted`, no `Http-Status-Code` and a problem+json
  body, and is followed by the close delimiter and nothing else (MB-STATUS-6).

Without a declared limit and a delay resource, or when the delay would not fit the suite's
time per exchange, the check is N/A. It takes the declared limit plus a second, so it is in
the standard tier.
"""

from __future__ import annotations

import json

from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.validator import parse_media_type

#: How far past the declared limit the slow part is asked to wait, at least.
OVERSHOOT_MS = 1000
#: Seconds the suite allows beyond the limit before it gives up on the exchange.
SLACK_S = 5.0
PROBLEM_JSON = "application/problem+json"


@checker(
    "batch-abort-after-timeout",
    ("MB-STATUS-6", "MB-STATUS-12"),
    "A batch that outlasts the server's declared time limit after its response began ends with an aborted part, a problem+json body and the close delimiter, under a 200.",
    tier="standard",
    state=State.READ_ONLY,
)
def abort_after_timeout(ctx: Context, judge: Judge) -> None:
    limit_ms = ctx.target.batch_timeout_ms
    if limit_ms is None:
        judge.not_applicable("the target declares no whole-batch time limit (batch_timeout_ms)")
    template = ctx.resource(judge, "delay")
    ok = ctx.path(ctx.resource(judge, "ok"))
    delay_ms = limit_ms + max(OVERSHOOT_MS, limit_ms // 2)
    if limit_ms / 1000 + SLACK_S > ctx.target.timeout:
        judge.not_applicable(
            f"a batch outlasting {limit_ms} ms does not fit the suite's "
            f"{ctx.target.timeout:g} s per exchange"
        )
    subs = [
        SubRequest("GET", ok),
        SubRequest("GET", ctx.path(template.replace("{ms}", str(delay_ms)))),
        SubRequest("GET", ok),
    ]
    resp = ctx.batch(judge, subs)
    judge.require("top-level status after a part ran", resp.status, {200}, "MB-STATUS-12")
    env = ctx.read_batch(judge, resp)
    judge.require(
        "parts: the first, then the aborted one, then nothing",
        len(env.parts),
        {2},
        "MB-STATUS-6",
    )
    judge.expect("part 0 status", part_status(env, 0), {200}, "MB-STATUS-12")
    judge.expect(
        "part 0 Content-Id", env.parts[0].get("Content-Id"), {subs[0].content_id}, "MB-RESP-3"
    )
    last = env.parts[1]
    judge.expect(
        "last part Batch-Outcome", last.get_all("Batch-Outcome"), [["aborted"]], "MB-STATUS-6"
    )
    judge.expect(
        "last part Http-Status-Code", last.get_all("Http-Status-Code"), [[]], "MB-STATUS-6"
    )
    try:
        media, _ = parse_media_type(last.get("Content-Type") or "")
    except ValueError:
        media = ""
    judge.expect("last part media type", media, {PROBLEM_JSON}, "MB-STATUS-6")
    judge.expect_true(
        "last part body",
        _is_json_object(last.body),
        f"{last.body[:80]!r}",
        "a problem details JSON object",
        "MB-STATUS-6",
    )
    judge.expect("close delimiter after the aborted part", env.complete, {True}, "MB-STATUS-6")


def _is_json_object(body: bytes) -> bool:
    try:
        return isinstance(json.loads(body), dict)
    except ValueError:
        return False
