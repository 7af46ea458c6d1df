"""One run of the suite: select the checks, run them, print the summary, write the reports.

Theory of operation: `run_suite(target, settings)` is the whole run that both the command line
and other tools use; it returns the exit code and the results. Exit codes: 0 conformant,
1 non-conformant (a FAIL or FLAKY verdict), 3 the harness could not judge (HARNESS-ERROR,
SETUP-ERROR, TIMEOUT with no FAIL); 2, a usage error, is the command line's own.
"""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import replace

from mixbatch_conformance import __version__
from mixbatch_conformance.checks import all_checks, select
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Verdict
from mixbatch_conformance.core.requirements import load_index
from mixbatch_conformance.core.settings import RunSettings
from mixbatch_conformance.core.target import Target
from mixbatch_conformance.run.display import Progress, print_summary
from mixbatch_conformance.run.report import RunInfo, coverage, write_reports
from mixbatch_conformance.run.runner import CheckResult, run_checks

__all__ = [
    "EXIT_CONFORMANT",
    "EXIT_HARNESS",
    "EXIT_NONCONFORMANT",
    "EXIT_USAGE",
    "exit_code",
    "run_suite",
]

EXIT_CONFORMANT = 0
EXIT_NONCONFORMANT = 1
EXIT_USAGE = 2
EXIT_HARNESS = 3
HARNESS_VERDICTS = (Verdict.HARNESS_ERROR, Verdict.SETUP_ERROR, Verdict.TIMEOUT)


def exit_code(results: list[CheckResult]) -> int:
    if any(r.verdict.failing for r in results):
        return EXIT_NONCONFORMANT
    if any(r.verdict in HARNESS_VERDICTS for r in results):
        return EXIT_HARNESS
    return EXIT_CONFORMANT


def run_suite(
    target: Target,
    settings: RunSettings,
    *,
    only: list[str] | None = None,
    deep_budget_s: float | None = None,
    progress: bool = True,
    quiet: bool = False,
) -> tuple[int, list[CheckResult]]:
    """Run the suite against `target`; write reports; return the exit code and results.

    `deep_budget_s`, in the deep tier, is shared evenly by the property checks and
    replaces `settings.property_budget_s`."""
    index = load_index()
    chosen = select(settings.tier, only)
    properties = [c for c in chosen if c.tier != "smoke"]
    if settings.tier == "deep" and properties and deep_budget_s is not None:
        settings = replace(settings, property_budget_s=deep_budget_s / len(properties))
    ctx = Context(target, settings)
    started = dt.datetime.now(dt.UTC)
    t0 = time.monotonic()
    with Progress(len(chosen), enabled=progress) as bar:
        results = run_checks(chosen, ctx, on_start=bar.start, on_result=bar.result)
    info = RunInfo(
        target.base_url,
        target.batch_endpoint,
        settings.tier,
        settings.seed,
        tuple(sorted(target.profiles)),
        started,
        time.monotonic() - t0,
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
    print(
        f"mixbatch conformance: tier {settings.tier}, seed {settings.seed}, "
        f"{len(results)} checks, "
        f"{sum(r.verdict is Verdict.PASS for r in results)} passed, "
        f"{sum(r.verdict.failing for r in results)} failed, {info.duration_s:.1f} s"
        + (f"; report in {report}" if report else "")
    )
    return exit_code(results), results
