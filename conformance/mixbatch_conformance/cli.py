"""`mixbatch conformance`: run the suite, draft a target description, or replay a case.

Theory of operation: one command and a URL, as with h2spec.

    mixbatch conformance [--target URL] [--config FILE] [--tier smoke|standard|deep]
                         [--report DIR] [--seed N] [--replays N] [--only ID ...]
                         [--budget SECONDS]   (deep tier: time for the properties)
    mixbatch conformance discover --target URL [--output FILE]
    mixbatch conformance replay CASE_DIR [--target URL]
    mixbatch conformance --via SCENARIO[,...] --target URL [suite options]   (through mitmproxy)

With no --target the embedded reference server is started as a subprocess, tested, and
stopped. With --target but no --config the target is discovered first. Exit codes:
0 conformant, 1 non-conformant (a FAIL or FLAKY verdict), 2 usage error, 3 the target is
unreachable or the harness failed (HARNESS-ERROR, SETUP-ERROR, TIMEOUT with no FAIL).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import secrets
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from mixbatch_conformance._context import Context
from mixbatch_conformance._http import TargetUnreachable, exchange, split_url
from mixbatch_conformance._judge import Verdict
from mixbatch_conformance._registry import TIERS, all_checks, select
from mixbatch_conformance._requirements import load_index
from mixbatch_conformance._runner import CheckResult, run_checks
from mixbatch_conformance._target import (
    ALL_PROFILES,
    ConfigError,
    Target,
    load_target,
    target_from_dict,
)

__all__ = [
    "EXIT_CONFORMANT",
    "EXIT_HARNESS",
    "EXIT_NONCONFORMANT",
    "EXIT_USAGE",
    "exit_code",
    "main",
    "resolve_target",
    "run",
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


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="mixbatch conformance",
        description="Test a mixbatch server against the spec's requirements.",
    )
    p.add_argument("--target", help="base URL of the server, e.g. http://127.0.0.1:8080")
    p.add_argument("--config", type=Path, help="target description (JSON, target.schema.json)")
    p.add_argument("--tier", choices=TIERS, default="smoke", help="how deep to test")
    p.add_argument("--report", type=Path, help="write JSON, JUnit, HTML reports and cases here")
    p.add_argument("--seed", type=int, help="hypothesis seed (default: random, printed)")
    p.add_argument("--replays", type=int, default=3, help="reruns of each failure (default 3)")
    p.add_argument(
        "--budget",
        type=float,
        default=600.0,
        help="deep tier: seconds for the properties (default 600)",
    )
    p.add_argument(
        "--only", nargs="+", metavar="ID", help="run only checks with these ids/prefixes"
    )
    p.add_argument(
        "--via",
        metavar="SCENARIO[,...]",
        help="run through mitmproxy in front of --target: scenario names, 'all' (the "
        "transforms) or 'faults'; each scenario reports into REPORT/<scenario>",
    )
    p.add_argument(
        "--baseline",
        metavar="URL",
        help="send standalone comparison requests here (--via sets it to the origin)",
    )
    p.add_argument(
        "--via-scenario",
        metavar="NAME",
        help="the intermediary this run goes through (--via sets it); direct-only checks "
        "are then N/A",
    )
    p.add_argument("--list", action="store_true", help="list the checks and exit")
    p.add_argument("--no-progress", action="store_true", help="no live progress display")
    p.add_argument("--quiet", action="store_true", help="print only the verdict counts")
    return p


def _reachable(target: Target) -> None:
    host, port, _ = split_url(target.base_url)
    from mixbatch_conformance._http import build_request

    exchange(host, port, build_request("OPTIONS", target.batch_endpoint, f"{host}:{port}"), 10.0)


def with_published_profiles(target: Target) -> Target:
    """The target with the profiles its capabilities document publishes (embedded server)."""
    ctx = Context(target)
    caps = ctx.fetch_capabilities()
    if not caps:
        return target
    profiles = frozenset(p for p in caps.get("profiles", []) if p in ALL_PROFILES) | {"core"}
    return replace(target, profiles=profiles)


@contextlib.contextmanager
def resolve_target(url: str | None, config: Path | None) -> Iterator[Target]:
    """The target to test; starts (and later stops) the embedded server when url is None."""
    if url is None and config is None:
        from mixbatch_conformance._embedded import embedded_server
        from mixbatch_conformance._target import reference_target

        with embedded_server() as base:
            yield with_published_profiles(reference_target(base))
        return
    if config is not None:
        yield load_target(config, url)
        return
    assert url is not None
    from mixbatch_conformance._discover import discover

    yield target_from_dict(discover(url))


def run(
    target: Target,
    tier: str,
    *,
    report: Path | None = None,
    seed: int | None = None,
    replays: int = 3,
    only: list[str] | None = None,
    progress: bool = True,
    quiet: bool = False,
    budget: float = 600.0,
    baseline: str | None = None,
    intermediary: str | None = None,
) -> tuple[int, list[CheckResult]]:
    """Run the suite against `target`; write reports; return the exit code and results."""
    from mixbatch_conformance._display import Progress, print_summary
    from mixbatch_conformance._report import RunInfo, write_reports

    index = load_index()
    chosen = select(tier, only)
    run_seed = seed if seed is not None else secrets.randbits(32)
    ctx = Context(target, baseline_url=baseline, intermediary=intermediary)
    ctx.cache["seed"] = run_seed
    ctx.cache["tier"] = tier
    properties = [c for c in chosen if c.tier != "smoke"]
    if tier == "deep" and properties:
        ctx.cache["property_budget_s"] = budget / len(properties)
    started = dt.datetime.now(dt.UTC)
    t0 = time.monotonic()
    with Progress(len(chosen), enabled=progress) as bar:
        results = run_checks(chosen, ctx, replays=replays, on_start=bar.start, on_result=bar.result)
    info = RunInfo(
        target.base_url,
        target.batch_endpoint,
        tier,
        run_seed,
        tuple(sorted(target.profiles)),
        started,
        time.monotonic() - t0,
    )
    if report is not None:
        write_reports(report, results, info, index, all_checks())
    if not quiet:
        from mixbatch_conformance import __version__
        from mixbatch_conformance._report import coverage

        cov = coverage(all_checks(), index)
        uncovered = [
            r.id
            for r in index.requirements
            if not cov.get(r.id)
            and r.severity.value == "fail"
            and {"server", "proxy"} & set(r.roles)
        ]
        header = (
            f"mixbatch conformance {__version__} - spec {index.spec_version} - tier {tier} - "
            f"seed {run_seed} - profiles {', '.join(sorted(target.profiles))} - {target.base_url}"
        )
        print_summary(results, index, header=header, uncovered=uncovered)
    print(
        f"mixbatch conformance: tier {tier}, seed {run_seed}, {len(results)} checks, "
        f"{sum(r.verdict is Verdict.PASS for r in results)} passed, "
        f"{sum(r.verdict.failing for r in results)} failed, {info.duration_s:.1f} s"
        + (f"; report in {report}" if report else "")
    )
    return exit_code(results), results


def _discover_main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="mixbatch conformance discover")
    p.add_argument("--target", required=True)
    p.add_argument("--batch-endpoint", default="/batch")
    p.add_argument("--output", type=Path, help="write the draft here (default: stdout)")
    args = p.parse_args(argv)
    from mixbatch_conformance._discover import discover

    try:
        draft = discover(args.target, args.batch_endpoint)
    except TargetUnreachable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_HARNESS
    text = json.dumps(draft, indent=2) + "\n"
    if args.output:
        args.output.write_text(text, encoding="utf-8")
        print(f"draft target description written to {args.output}; review it before use")
    else:
        sys.stdout.write(text)
    return EXIT_CONFORMANT


def _replay_main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="mixbatch conformance replay")
    p.add_argument("case_dir", type=Path)
    p.add_argument("--target", help="base URL (default: the one the case was recorded against)")
    args = p.parse_args(argv)
    from mixbatch_conformance._replay import replay_case

    try:
        return replay_case(args.case_dir, args.target, sys.stdout)
    except TargetUnreachable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_HARNESS
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE


def main(argv: list[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["discover"]:
        return _discover_main(args_list[1:])
    if args_list[:1] == ["replay"]:
        return _replay_main(args_list[1:])
    if any(a == "--via" or a.startswith("--via=") for a in args_list):
        # The suite through mitmproxy scenarios (intermediaries._via): it calls back into
        # main() once per scenario with --target pointing at the proxy.
        from mixbatch_conformance.intermediaries._via import run_via

        return run_via(args_list, main)
    try:
        args = _parser().parse_args(args_list)
    except SystemExit as exc:
        return int(exc.code or 0) if exc.code in (0, None) else EXIT_USAGE
    if args.list:
        for check in select(args.tier, args.only):
            print(f"{check.id:50} {check.tier:8} {check.profile:14} {' '.join(check.requirements)}")
        return EXIT_CONFORMANT
    if args.replays < 0:
        print(f"error: --replays must be >= 0, got {args.replays}", file=sys.stderr)
        return EXIT_USAGE
    try:
        with resolve_target(args.target, args.config) as target:
            try:
                _reachable(target)
            except (TargetUnreachable, OSError) as exc:
                print(f"error: target unreachable: {exc}", file=sys.stderr)
                return EXIT_HARNESS
            code, _ = run(
                target,
                args.tier,
                report=args.report,
                seed=args.seed,
                replays=args.replays,
                only=args.only,
                progress=not args.no_progress and sys.stderr.isatty(),
                quiet=args.quiet,
                budget=args.budget,
                baseline=args.baseline,
                intermediary=args.via_scenario,
            )
            return code
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except TargetUnreachable as exc:
        print(f"error: target unreachable: {exc}", file=sys.stderr)
        return EXIT_HARNESS
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_HARNESS


if __name__ == "__main__":
    raise SystemExit(main())
