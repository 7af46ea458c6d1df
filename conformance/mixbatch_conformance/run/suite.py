"""One run of the suite: select the checks, run them, print the summary, write the reports.

Theory of operation: `run_suite(target, settings)` is the whole run that both the command line
and other tools use; it returns the exit code and the results. Exit codes: 0 conformant,
1 non-conformant (a FAIL or FLAKY verdict; with --strict also a broken SHOULD, which is
otherwise a WARN the run passes with and the summary line counts), 3 the harness could not judge (HARNESS-ERROR,
SETUP-ERROR, TIMEOUT with no FAIL, or a preflight that found nothing to test); 2, a usage
error, is the command line's own.

The run starts with the preflight (run.preflight): when the target cannot be tested, or
answers a one-part batch with octets that are not HTTP, the run stops there with one
diagnosis line and a report of that one exchange instead of a wall of failures. It ends by
deleting every sandbox member the checks created (Context.clean_up); a member that could not
be deleted is listed on the console and in the report.
"""

from __future__ import annotations

import datetime as dt
import sys
import time
from dataclasses import replace

from mixbatch_conformance import __version__
from mixbatch_conformance.checks import all_checks
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Verdict
from mixbatch_conformance.core.registry import Check
from mixbatch_conformance.core.requirements import RequirementIndex, Severity, load_index
from mixbatch_conformance.core.settings import RunSettings
from mixbatch_conformance.core.target import Target
from mixbatch_conformance.run.display import Progress, print_summary
from mixbatch_conformance.run.preflight import preflight
from mixbatch_conformance.run.replay import describe
from mixbatch_conformance.run.report import RunInfo, coverage, write_reports
from mixbatch_conformance.run.runner import CheckResult, RunOutcome, run_checks
from mixbatch_conformance.run.selection import plan

__all__ = [
    "EXIT_CONFORMANT",
    "EXIT_HARNESS",
    "EXIT_NONCONFORMANT",
    "EXIT_USAGE",
    "exit_code",
    "run_suite",
    "should_violations",
]

EXIT_CONFORMANT = 0
EXIT_NONCONFORMANT = 1
EXIT_USAGE = 2
EXIT_HARNESS = 3
HARNESS_VERDICTS = (Verdict.HARNESS_ERROR, Verdict.SETUP_ERROR, Verdict.TIMEOUT)


def should_violations(results: list[CheckResult], index: RequirementIndex) -> dict[str, list[str]]:
    """SHOULD and SHOULD NOT requirement ID -> the checks that found it broken, in run order."""
    out: dict[str, list[str]] = {}
    for r in results:
        for e in r.failed_expectations:
            if e.requirement in index and index.get(e.requirement).severity is Severity.WARN:
                ids = out.setdefault(e.requirement, [])
                if r.check.id not in ids:
                    ids.append(r.check.id)
    return out


def exit_code(
    results: list[CheckResult], *, strict: bool = False, index: RequirementIndex | None = None
) -> int:
    """0, 1 or 3 as the module says; with `strict`, a broken SHOULD is 1 as a FAIL is."""
    if any(r.verdict.failing for r in results):
        return EXIT_NONCONFORMANT
    if strict and should_violations(results, index or load_index()):
        return EXIT_NONCONFORMANT
    if any(r.verdict in HARNESS_VERDICTS for r in results):
        return EXIT_HARNESS
    return EXIT_CONFORMANT


def run_suite(
    target: Target,
    settings: RunSettings,
    *,
    only: list[str] | None = None,
    skip: list[str] | None = None,
    deep_budget_s: float | None = None,
    progress: bool = True,
    quiet: bool = False,
    checks: list[Check] | None = None,
) -> tuple[int, list[CheckResult]]:
    """Run the suite against `target`; write reports; return the exit code and results.

    `checks` (default: the tier's, filtered by `only`, `skip` and `settings.read_only`, see
    run.selection) are run after the preflight. `deep_budget_s`, in the deep tier, is shared
    evenly by the property checks and replaces `settings.property_budget_s`."""
    index = load_index()
    skipped = 0
    if checks is None:
        checks, skipped = plan(settings.tier, only, writes=not settings.read_only, skip=skip)
    chosen = checks
    properties = [c for c in chosen if c.draws_examples]
    if settings.tier == "deep" and properties and deep_budget_s is not None:
        settings = replace(settings, property_budget_s=deep_budget_s / len(properties))
    started = dt.datetime.now(dt.UTC)
    t0 = time.monotonic()
    first = preflight(target, settings)
    if not first.ok and not first.goes_on:
        return _stopped_at_preflight(target, settings, first.as_result(), started, t0, index)
    if skipped:
        print(f"--read-only: {skipped} checks that write were left out", file=sys.stderr)
    ctx = Context(target, settings)
    outcome = RunOutcome()
    try:
        with Progress(len(chosen), enabled=progress) as bar:
            results = run_checks(
                chosen,
                ctx,
                on_start=bar.start,
                on_result=bar.result,
                outcome=outcome,
                answering=lambda: preflight(target, settings).ok,
            )
        if first.goes_on:
            # The preflight's FAIL is reported beside the checks it did not stop.
            results = [first.as_result(), *results]
    finally:
        leftovers = [*ctx.leftovers, *ctx.clean_up()]
    info = RunInfo(
        target.base_url,
        target.batch_endpoint,
        settings.tier,
        settings.seed,
        tuple(sorted(target.profiles)),
        started,
        time.monotonic() - t0,
        name=None,
        aborted=outcome.aborted,
        leftovers=tuple(leftovers),
        description=describe(target),
        request_variants=settings.request_variants,
        variants_not_taken=ctx.variants_not_taken(),
    )
    if settings.report_dir is not None:
        write_reports(settings.report_dir, results, info, index, all_checks())
    if not quiet:
        cov = coverage(all_checks(), index)
        uncovered = [
            r.id
            for r in index.requirements
            if not cov.get(r.id)
            and r.severity.value == "fail"
            and {"server", "proxy"} & set(r.roles)
        ]
        header = (
            f"mixbatch conformance {__version__} - spec {index.spec_version} - "
            f"tier {settings.tier} - seed {settings.seed} - "
            f"profiles {', '.join(sorted(target.profiles))} - {target.base_url}"
        )
        print_summary(results, index, header=header, uncovered=uncovered)
    report = settings.report_dir
    for left in leftovers:
        print(f"could not delete a member the suite created: {left}", file=sys.stderr)
    if info.variants_not_taken and not quiet:
        print(
            "request variants the target does not answer as the request written (not sent): "
            + ", ".join(info.variants_not_taken),
            file=sys.stderr,
        )
    if outcome.rows_outlived:
        print(
            f"mixbatch conformance: {outcome.rows_outlived} times "
            f"{settings.max_consecutive_timeouts} checks in a row timed out while the target "
            "still answered a one-part batch; the run went on",
            file=sys.stderr,
        )
    if outcome.aborted:
        print(f"mixbatch conformance: run stopped: {outcome.aborted}", file=sys.stderr)
    shoulds = should_violations(results, index)
    if settings.strict:
        for rid, ids in shoulds.items():
            print(f"--strict: {rid} (SHOULD) broken: {', '.join(ids)}", file=sys.stderr)
    print(
        f"mixbatch conformance: tier {settings.tier}, seed {settings.seed}, "
        f"{len(results)} checks, "
        f"{sum(r.verdict is Verdict.PASS for r in results)} passed, "
        f"{sum(r.verdict.failing for r in results)} failed, "
        f"{sum(r.verdict is Verdict.WARN for r in results)} warned"
        + (
            f" ({len(shoulds)} SHOULD requirements broken, failing under --strict)"
            if settings.strict and shoulds
            else ""
        )
        + f", {info.duration_s:.1f} s"
        + (f"; report in {report}" if report else "")
    )
    code = exit_code(results, strict=settings.strict, index=index)
    if outcome.aborted and code == EXIT_CONFORMANT:
        code = EXIT_HARNESS
    return code, results


def _stopped_at_preflight(
    target: Target,
    settings: RunSettings,
    result: CheckResult,
    started: dt.datetime,
    t0: float,
    index: RequirementIndex,
) -> tuple[int, list[CheckResult]]:
    """Report the preflight's finding as the run's one result; exit 1 for a FAIL, else 3."""
    info = RunInfo(
        target.base_url,
        target.batch_endpoint,
        settings.tier,
        settings.seed,
        tuple(sorted(target.profiles)),
        started,
        time.monotonic() - t0,
        aborted=f"preflight: {result.message}",
        description=describe(target),
    )
    where = ""
    if settings.report_dir is not None:
        write_reports(settings.report_dir, [result], info, index, all_checks())
        where = f" (octets in {settings.report_dir / 'cases' / result.check.id})"
    verdict = "non-conformant" if result.verdict is Verdict.FAIL else "could not test"
    print(
        f"mixbatch conformance: {verdict} {target.base_url}{target.batch_endpoint}: "
        f"{result.message}{where}",
        file=sys.stderr,
    )
    return (EXIT_NONCONFORMANT if result.verdict is Verdict.FAIL else EXIT_HARNESS), [result]
