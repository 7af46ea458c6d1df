"""Runs checks against a target and turns what the Judge recorded into verdicts.

Theory of operation: for each selected check the runner first decides applicability from what
the check declares (core.registry), without sending anything: an unclaimed profile, a role
the target does not play, a disposable target the suite did not start, or a direct-only
check in a run through an intermediary (`RunSettings.via`) is N/A with the reason. Then it
calls `check.run(ctx, judge)`
and classifies: NotApplicable -> N/A, SetupError -> SETUP-ERROR, TimeoutError -> TIMEOUT,
any other exception -> HARNESS-ERROR, no expectation stated -> HARNESS-ERROR, a broken
expectation -> FAIL/WARN/INFO by the strongest keyword among the broken expectations'
requirements, else PASS. A failing check is run `replays` more times; if every run fails it
is DETERMINISTIC, otherwise the verdict becomes FLAKY with k/N recorded. Whatever the
verdict, the connections the check kept (core.context) are closed when it ends, so that no
check's request rides a connection another check used.

A check that needs the sandbox is N/A when the target declares none, so the suite writes only
where the operator said it may. A target that stops answering ends the run: after
`max_consecutive_timeouts` TIMEOUT verdicts in a row the runner asks `answering` (the suite
passes one that sends the preflight's one-part batch) whether the target still answers at all.
If it does, the row was batches the target stalls on, not a dead target, and the run goes on
(so the checks that blame such stalls on a requirement get to run) until
`max_timeouts_while_answering` TIMEOUT verdicts in all; otherwise, or without `answering`, the
remaining checks are not run (N/A, "not run: ..."), and `run_checks` says so in
`RunOutcome.aborted`.

A check that verifies several requirements fails on some of them; `requirement_verdict`
grades each requirement by its own broken expectations and its own keyword, so a SHOULD is
never shown as FAIL because the same check broke a MUST.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import (
    Expectation,
    Judge,
    NotApplicable,
    SetupError,
    StopCheck,
    Verdict,
)
from mixbatch_conformance.core.registry import Check, State
from mixbatch_conformance.core.requirements import RequirementIndex, Severity, load_index

__all__ = [
    "CheckResult",
    "Replays",
    "RunOutcome",
    "requirement_verdict",
    "run_check",
    "run_checks",
]

VERDICT_OF_SEVERITY = {
    Severity.FAIL: Verdict.FAIL,
    Severity.WARN: Verdict.WARN,
    Severity.INFO: Verdict.INFO,
}


@dataclass(frozen=True)
class Replays:
    runs: int
    failures: int

    @property
    def classification(self) -> str:
        return "DETERMINISTIC" if self.failures == self.runs else "FLAKY"


@dataclass
class CheckResult:
    """The outcome of one check, with everything a report needs."""

    check: Check
    verdict: Verdict
    message: str
    judge: Judge
    duration_s: float
    replays: Replays | None = None
    artifacts: dict[str, str | None] = field(default_factory=dict)

    @property
    def failed_expectations(self) -> list[Expectation]:
        return self.judge.failed

    @property
    def judged_requirements(self) -> tuple[str, ...]:
        """The requirements the check declares, then any other one an expectation cited.

        Shared judgements (framing, the Content-Id echo, problem documents) cite their own
        requirement wherever they run, so a check that declares MB-PROC-6 can break MB-RESP-3;
        reports list the check under every requirement it judged."""
        extra = [e.requirement for e in self.judge.expectations]
        return tuple(dict.fromkeys([*self.check.requirements, *extra]))

    @property
    def broken_requirements(self) -> tuple[str, ...]:
        """The requirements of the broken expectations, in the order they were stated."""
        return tuple(dict.fromkeys(e.requirement for e in self.judge.failed))


def _classify(check: Check, judge: Judge, index: RequirementIndex) -> tuple[Verdict, str]:
    if not judge.expectations:
        return Verdict.HARNESS_ERROR, "the check finished without stating any expectation"
    failed = judge.failed
    if not failed:
        if len(judge.expectations) == 1:
            # One summary expectation (a property's): its own words carry the example count.
            only = judge.expectations[0]
            return Verdict.PASS, f"{only.what}: {only.actual}"
        return Verdict.PASS, f"{len(judge.expectations)} expectations held"
    worst = max(
        (
            index.get(e.requirement).severity if e.requirement in index else Severity.FAIL
            for e in failed
        ),
        key=lambda s: s.rank,
    )
    first = failed[0]
    return (
        VERDICT_OF_SEVERITY[worst],
        f"{first.what}: expected {first.allowed}, got {first.actual} ({first.requirement})"
        + (f"; {len(failed) - 1} more broken" if len(failed) > 1 else ""),
    )


def _not_applicable(check: Check, ctx: Context) -> str | None:
    """Why `check` does not apply to this target and run, from its declarations; else None."""
    if not ctx.target.claims(check.profile):
        return f"the target does not claim the {check.profile!r} profile"
    role = "proxy" if ctx.target.proxy else "server"
    if role not in check.roles:
        if "proxy" in check.roles:
            return "the target description does not declare a batching proxy ('proxy')"
        return f"the check applies to a {' or '.join(check.roles)}, not a {role}"
    if check.state is State.WRITES_IN_SANDBOX and not ctx.target.resource("sandbox_collection"):
        return (
            "the check writes into a sandbox and the target declares none "
            '(add "sandbox": {"collection": PATH, "member": {...}} to the target file)'
        )
    if check.state is State.NEEDS_DISPOSABLE_TARGET and not ctx.target.disposable:
        return (
            "the check writes outside a sandbox; the target is not disposable "
            '(declare "disposable": true only for a server the suite may change for good)'
        )
    via = ctx.settings.via
    if via is not None and check.direct_only is not None:
        return f"runs direct only, not through {via!r}: {check.direct_only}"
    return None


def run_check(check: Check, ctx: Context, index: RequirementIndex | None = None) -> CheckResult:
    """Run one check once and classify it (no replays); its kept connections end with it."""
    judge = Judge(check.requirements[0], check_id=check.id)
    try:
        return _run_once(check, ctx, judge, index or load_index())
    finally:
        ctx.release(judge)


def _run_once(check: Check, ctx: Context, judge: Judge, idx: RequirementIndex) -> CheckResult:
    start = time.monotonic()
    not_applicable = _not_applicable(check, ctx)
    if not_applicable is not None:
        return CheckResult(check, Verdict.NA, not_applicable, judge, 0.0)
    try:
        check.run(ctx, judge)
    except StopCheck:
        pass
    except NotApplicable as exc:
        return CheckResult(check, Verdict.NA, str(exc), judge, time.monotonic() - start)
    except SetupError as exc:
        return CheckResult(check, Verdict.SETUP_ERROR, str(exc), judge, time.monotonic() - start)
    except TimeoutError as exc:
        return CheckResult(
            check, Verdict.TIMEOUT, f"timed out: {exc}", judge, time.monotonic() - start
        )
    except Exception as exc:
        tb = traceback.format_exception_only(type(exc), exc)[-1].strip()
        judge.note(traceback.format_exc())
        return CheckResult(
            check, Verdict.HARNESS_ERROR, f"the check raised {tb}", judge, time.monotonic() - start
        )
    verdict, message = _classify(check, judge, idx)
    return CheckResult(check, verdict, message, judge, time.monotonic() - start)


@dataclass
class RunOutcome:
    """What `run_checks` learned about the run as a whole."""

    #: Why the run stopped early (None when every check ran).
    aborted: str | None = None
    #: How many rows of timeouts the target outlived by answering a one-part batch.
    rows_outlived: int = 0


def run_checks(
    checks: list[Check],
    ctx: Context,
    *,
    replays: int | None = None,
    on_start: Callable[[Check], None] | None = None,
    on_result: Callable[[CheckResult], None] | None = None,
    outcome: RunOutcome | None = None,
    answering: Callable[[], bool] | None = None,
) -> list[CheckResult]:
    """Run `checks` in order; replay each failure `replays` times (default: the run
    settings') to classify it. After `max_consecutive_timeouts` TIMEOUT verdicts in a row,
    unless `answering()` says the target still answers (and fewer than
    `max_timeouts_while_answering` checks timed out in all), the remaining checks are
    reported N/A as not run, and `outcome.aborted` says why."""
    replays = ctx.settings.replays if replays is None else replays
    outcome = outcome if outcome is not None else RunOutcome()
    index = load_index()
    results: list[CheckResult] = []
    silent = 0
    timeouts = 0
    aborted: str | None = None
    for check in checks:
        if aborted is not None:
            result = CheckResult(
                check, Verdict.NA, f"not run: {aborted}", Judge(check.requirements[0]), 0.0
            )
            results.append(result)
            if on_result:
                on_result(result)
            continue
        if on_start:
            on_start(check)
        result = run_check(check, ctx, index)
        stalled = result.verdict is Verdict.TIMEOUT
        silent = silent + 1 if stalled else 0
        timeouts += stalled
        if silent >= ctx.settings.max_consecutive_timeouts:
            aborted = _why_stop(ctx, check, silent, timeouts, answering)
            if aborted is None:
                silent = 0
                outcome.rows_outlived += 1
            else:
                outcome.aborted = aborted
        if result.verdict in (Verdict.FAIL, Verdict.WARN) and replays > 0:
            failures = 1
            for _ in range(replays):
                again = run_check(check, ctx, index)
                if again.verdict == result.verdict:
                    failures += 1
            result.replays = Replays(replays + 1, failures)
            if result.replays.classification == "FLAKY":
                result.message = f"FLAKY({failures}/{replays + 1}): {result.message}"
                result.verdict = Verdict.FLAKY
        if result.verdict in (Verdict.PASS, Verdict.NA):
            # The report keeps the wire of a check that did not pass (report.write_reports);
            # a passing check's requests, some of them a limit's size, are not held to the end.
            result.judge.exchanges.clear()
        # Every check starts from the sandbox as the target had it: what this one created
        # (its replays' too) is deleted before the next one runs.
        if ctx.created:
            ctx.leftovers.extend(ctx.clean_up())
        results.append(result)
        if on_result:
            on_result(result)
    return results


def _why_stop(
    ctx: Context,
    check: Check,
    silent: int,
    timeouts: int,
    answering: Callable[[], bool] | None,
) -> str | None:
    """Why the run stops after a row of `silent` timeouts ending at `check`, or None when the
    target still answers a one-part batch and the run's timeout allowance is not spent."""
    row = f"{silent} checks in a row timed out after {ctx.timeout:g} s; last: {check.id}"
    if answering is None:
        return f"the target stopped answering ({row})"
    if not answering():
        return f"the target stopped answering ({row}; a one-part batch got no answer either)"
    cap = ctx.settings.max_timeouts_while_answering
    if timeouts >= cap:
        return (
            f"{timeouts} checks timed out though the target still answers a one-part batch "
            f"({row}); the run stops at {cap}"
        )
    return None


#: The verdict a broken expectation gives its own requirement, by that requirement's keyword.
_OWN_GRADE = {Severity.FAIL: Verdict.FAIL, Severity.WARN: Verdict.WARN, Severity.INFO: Verdict.INFO}


def requirement_verdict(result: CheckResult, requirement: str, index: RequirementIndex) -> Verdict:
    """How `result` grades one of its check's requirements.

    A check's verdict is its worst broken requirement's; each requirement is graded by its own
    expectations: broken ones give its keyword's verdict (FLAKY stays FLAKY for a MUST), none
    broken but some judged is PASS, none judged (the check stopped first) is N/A."""
    verdict = result.verdict
    if verdict not in (Verdict.FAIL, Verdict.WARN, Verdict.INFO, Verdict.FLAKY):
        return verdict
    own = [e for e in result.judge.expectations if e.requirement == requirement]
    if any(not e.passed for e in own):
        severity = index.get(requirement).severity if requirement in index else Severity.FAIL
        graded = _OWN_GRADE[severity]
        return Verdict.FLAKY if verdict is Verdict.FLAKY and graded is Verdict.FAIL else graded
    return Verdict.PASS if own else Verdict.NA
