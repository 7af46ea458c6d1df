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
import json
import secrets
import sys
from pathlib import Path

from mixbatch_conformance.checks import select
from mixbatch_conformance.core.settings import TIERS, RunSettings
from mixbatch_conformance.core.target import ConfigError
from mixbatch_conformance.intermediaries._via import run_via
from mixbatch_conformance.run.discover import discover
from mixbatch_conformance.run.replay import replay_case
from mixbatch_conformance.run.suite import (
    EXIT_CONFORMANT,
    EXIT_HARNESS,
    EXIT_NONCONFORMANT,
    EXIT_USAGE,
    exit_code,
    run_suite,
)
from mixbatch_conformance.run.targets import check_reachable, resolve_target
from mixbatch_conformance.transport.http import TargetUnreachable

__all__ = [
    "EXIT_CONFORMANT",
    "EXIT_HARNESS",
    "EXIT_NONCONFORMANT",
    "EXIT_USAGE",
    "exit_code",
    "main",
]


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


def _discover_main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="mixbatch conformance discover")
    p.add_argument("--target", required=True)
    p.add_argument("--batch-endpoint", default="/batch")
    p.add_argument("--output", type=Path, help="write the draft here (default: stdout)")
    args = p.parse_args(argv)
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
        # The suite through mitmproxy scenarios: run_via starts one proxy per scenario and
        # runs the suite it is given (this main) with --target pointing at that proxy.
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
    if args.seed is not None and args.seed < 0:
        print(f"error: --seed must be >= 0, got {args.seed}", file=sys.stderr)
        return EXIT_USAGE
    try:
        with resolve_target(args.target, args.config) as target:
            try:
                check_reachable(target)
            except (TargetUnreachable, OSError) as exc:
                print(f"error: target unreachable: {exc}", file=sys.stderr)
                return EXIT_HARNESS
            settings = RunSettings(
                tier=args.tier,
                seed=args.seed if args.seed is not None else secrets.randbits(32),
                replays=args.replays,
                baseline_url=args.baseline,
                via=args.via_scenario,
                report_dir=args.report,
            )
            code, _ = run_suite(
                target,
                settings,
                only=args.only,
                deep_budget_s=args.budget,
                progress=not args.no_progress and sys.stderr.isatty(),
                quiet=args.quiet,
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
