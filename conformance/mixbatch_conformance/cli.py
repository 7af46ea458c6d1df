"""`mixbatch conformance`: run the suite, draft a target description, or replay a case.

Theory of operation: one command and a URL, as with h2spec.

    mixbatch conformance [--target URL] [--config FILE] [--tier smoke|standard|deep] ...
    mixbatch conformance discover --target URL [--output FILE]
    mixbatch conformance replay CASE_DIR [--target URL] [--config FILE]
    mixbatch conformance --via SCENARIO[,...] --target URL [--measure N] [suite options]

With no --target the embedded reference server is started as a subprocess, tested, and
stopped. With --target but no --config the target is discovered first (safe methods only,
no sandbox: checks that write are N/A). --target takes `host:port`, `http://host:port`,
`https://host` or the batch endpoint's URL (`http://host:port/batch`); anything else is a
one-line usage error. Exit codes (EXIT_*): 0 conformant, 1 non-conformant (a MUST failed: a
FAIL or FLAKY verdict), 2 usage error, 3 could not test (preflight, unreachable, TLS,
timeouts, harness errors). An error of the suite itself is never 1.
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import traceback
from dataclasses import replace
from pathlib import Path

from mixbatch_conformance.core.registry import Check
from mixbatch_conformance.core.settings import DEFAULT_TIMEOUT_S, TIERS, RunSettings
from mixbatch_conformance.core.target import ConfigError, Target, load_target, target_from_dict
from mixbatch_conformance.core.variants import VARIANTS
from mixbatch_conformance.run.discover import DiscoveryError, Draft, draft_for
from mixbatch_conformance.run.preflight import preflight
from mixbatch_conformance.run.selection import SelectionError, plan
from mixbatch_conformance.run.suite import (
    EXIT_CONFORMANT,
    EXIT_HARNESS,
    EXIT_NONCONFORMANT,
    EXIT_USAGE,
    exit_code,
    run_suite,
)
from mixbatch_conformance.transport.embedded import EmbeddedServerError, embedded_server
from mixbatch_conformance.transport.http import TargetUnreachable
from mixbatch_conformance.transport.tls import client_context
from mixbatch_conformance.transport.urls import TargetURL, UsageError, parse_target_url

__all__ = [
    "EXIT_CONFORMANT",
    "EXIT_HARNESS",
    "EXIT_NONCONFORMANT",
    "EXIT_USAGE",
    "exit_code",
    "main",
]

PROG = "mixbatch conformance"
COMMANDS = """\
commands:
  (none)            run the suite against --target, --config, or the embedded reference server
  discover          probe a server with GET/HEAD/OPTIONS only and draft a target description:
                      mixbatch conformance discover --target URL [--output FILE]
  replay CASE_DIR   resend a saved case and judge the check again (exit 0 fixed, 1 still fails):
                      mixbatch conformance replay CASE_DIR [--target URL] [--config FILE]
  --via SCENARIO    run the suite through mitmproxy scenarios in front of --target; a fault
                    scenario exits 0 when the suite caught the fault it plants, 1 when not;
                    --measure N sends a 100-part batch N times instead of running the suite

--target URL forms: host:port, http://host:port, https://host[:port], http://host:port/batch
(the path is the batch endpoint).

exit status:
  0  conformant: no MUST failed (WARN and INFO do not count)
  1  non-conformant: a check failed a MUST (FAIL or FLAKY), or the target answered with
     octets that are not HTTP
  2  usage error: a bad option, URL, target file, or --only or --skip selection
  3  could not test: unreachable, TLS failure, no batch endpoint, timeouts, harness errors
"""


def _tls_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT_S,
        metavar="SECONDS",
        help=f"seconds each request may wait for its response (default {DEFAULT_TIMEOUT_S:g})",
    )
    p.add_argument(
        "--insecure", action="store_true", help="https: do not verify the server's certificate"
    )
    p.add_argument(
        "--ca-file",
        type=Path,
        metavar="PEM",
        help="https: also trust the certificates in this PEM file (e.g. a self-signed one)",
    )


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Test a mixbatch server against the spec's requirements.",
        epilog=COMMANDS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--target", metavar="URL", help="the server, e.g. http://127.0.0.1:8080")
    p.add_argument("--config", type=Path, metavar="FILE", help="target description (JSON)")
    p.add_argument("--tier", choices=TIERS, default="smoke", help="how deep to test")
    p.add_argument("--report", type=Path, metavar="DIR", help="write JSON, JUnit, HTML and cases")
    p.add_argument("--seed", type=int, help="hypothesis seed (default: random, printed)")
    p.add_argument("--replays", type=int, default=3, help="reruns of each failure (default 3)")
    p.add_argument(
        "--budget",
        type=float,
        default=600.0,
        metavar="SECONDS",
        help="deep tier: seconds for the properties (default 600)",
    )
    p.add_argument(
        "--only",
        nargs="+",
        metavar="ID",
        help="run only these: check ids or prefixes, requirement IDs (MB-WIRE-3), ID prefixes "
        "(MB-WIRE) or spec sections (section:3.1 or §3.1)",
    )
    p.add_argument(
        "--skip",
        nargs="+",
        metavar="ID",
        help="leave these out: the same words as --only (a check the run cannot afford, one "
        "judged elsewhere)",
    )
    p.add_argument(
        "--read-only",
        action="store_true",
        help="run only checks that change nothing on the target (says how many it left out)",
    )
    _tls_options(p)
    p.add_argument(
        "--via",
        metavar="SCENARIO[,...]",
        help="run through mitmproxy in front of --target: scenario names, 'all' (the "
        "transforms) or 'faults'; each scenario reports into REPORT/<scenario>",
    )
    p.add_argument(
        "--measure",
        type=int,
        metavar="N",
        help="with --via: send one 100-part batch N times per scenario and report throughput",
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
    p.add_argument(
        "--http2",
        action="store_true",
        help="send the checks' requests over HTTP/2: TLS with ALPN h2 for https, prior "
        "knowledge for http (the preflight and comparison requests stay HTTP/1.1)",
    )
    p.add_argument(
        "--fresh-connections",
        action="store_true",
        help="send every request on a new connection (default: a check's plainly framed "
        "requests share kept connections, as real clients' do); for a target behind "
        "something that cannot keep connections",
    )
    p.add_argument(
        "--request-variants",
        choices=("off", "mixed", *VARIANTS),
        help="send batch requests rewritten in forms HTTP makes equivalent (absolute-form, "
        "field-name case, field order, whitespace, chunked, list fields split into lines or "
        "with empty elements, empty media type parameters): 'mixed' sends a seeded half of "
        "them so (the default above the smoke tier), a variant's name every one it fits",
    )
    p.add_argument("--strict", action="store_true", help="a broken SHOULD fails the run (exit 1)")
    p.add_argument("--list", action="store_true", help="list the selected checks and exit")
    p.add_argument("--no-progress", action="store_true", help="no live progress display")
    p.add_argument("--quiet", action="store_true", help="print only the verdict counts")
    return p


def _discover_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=f"{PROG} discover",
        description="Probe a server with GET, HEAD and OPTIONS only and draft a target "
        "description (never a sandbox: confirm one by adding it to the file). Exit 0 with a "
        "draft, 2 on usage errors, 3 when there is no batch endpoint to describe.",
    )
    p.add_argument("--target", required=True, metavar="URL", help="the server (forms as above)")
    p.add_argument(
        "--batch-endpoint",
        metavar="PATH",
        help="the batch endpoint's path (default: the URL's path, else /batch)",
    )
    p.add_argument(
        "--output", type=Path, metavar="FILE", help="write the draft here (default: stdout)"
    )
    _tls_options(p)
    return p


def _replay_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=f"{PROG} replay",
        description="Resend a saved case's requests (compared with the recording, volatile "
        "fields left out) and judge the check again. Exit 0 when it now passes, 1 when it "
        "still fails, 2 on usage errors, 3 when it cannot be judged.",
    )
    p.add_argument("case_dir", type=Path, metavar="CASE_DIR", help="REPORT/cases/CHECK-ID")
    p.add_argument("--target", metavar="URL", help="the server (default: the recorded one)")
    p.add_argument(
        "--config", type=Path, metavar="FILE", help="target description (default: the saved one)"
    )
    _tls_options(p)
    return p


def _parse(p: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace | int:
    """Parse, or the exit status: 0 after --help, 2 after a usage error."""
    try:
        return p.parse_args(argv)
    except SystemExit as exc:
        return EXIT_CONFORMANT if exc.code in (0, None) else EXIT_USAGE


def _url(text: str | None) -> TargetURL | None:
    return parse_target_url(text) if text is not None else None


def _check_tls(args: argparse.Namespace) -> None:
    if args.timeout is not None and not args.timeout > 0:
        raise UsageError(f"--timeout must be > 0 seconds, got {args.timeout}")
    if args.ca_file is not None and not args.ca_file.is_file():
        raise UsageError(f"--ca-file {str(args.ca_file)!r} is not a file")


def _draft(url: TargetURL, endpoint: str, args: argparse.Namespace) -> Draft:
    tls = client_context(insecure=args.insecure, ca_file=args.ca_file) if url.tls else None
    return draft_for(url.base_url, endpoint, tls=tls, timeout=min(args.timeout, 5.0))


def _discover_main(argv: list[str]) -> int:
    args = _parse(_discover_parser(), argv)
    if isinstance(args, int):
        return args
    try:
        _check_tls(args)
        url = parse_target_url(args.target)
        draft = _draft(url, args.batch_endpoint or url.endpoint or "/batch", args)
    except UsageError as exc:
        print(f"{PROG} discover: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (DiscoveryError, TargetUnreachable, OSError) as exc:
        print(f"{PROG} discover: could not describe {args.target}: {exc}", file=sys.stderr)
        return EXIT_HARNESS
    text = json.dumps(draft.description, indent=2) + "\n"
    for note in draft.notes:
        print(f"note: {note}", file=sys.stderr)
    if args.output:
        args.output.write_text(text, encoding="utf-8")
        print(f"draft target description written to {args.output}; review it before use")
    else:
        sys.stdout.write(text)
    return EXIT_CONFORMANT


def _replay_main(argv: list[str]) -> int:
    # Imported here: replay needs every check module, the other commands may not.
    from mixbatch_conformance.run.replay import replay_case

    args = _parse(_replay_parser(), argv)
    if isinstance(args, int):
        return args
    try:
        _check_tls(args)
        url = _url(args.target)
        settings = RunSettings(timeout_s=args.timeout, insecure=args.insecure, ca_file=args.ca_file)
        return replay_case(
            args.case_dir,
            url.base_url if url else None,
            sys.stdout,
            config=args.config,
            settings=settings,
        )
    except (UsageError, ConfigError) as exc:
        print(f"{PROG} replay: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (TargetUnreachable, OSError) as exc:
        print(f"{PROG} replay: could not test: {exc}", file=sys.stderr)
        return EXIT_HARNESS
    except ValueError as exc:
        print(f"{PROG} replay: error: {exc}", file=sys.stderr)
        return EXIT_USAGE


def _print_list(checks: list[Check]) -> None:
    for check in checks:
        print(f"{check.id:50} {check.tier:8} {check.profile:14} {' '.join(check.requirements)}")


def _described(
    url: TargetURL | None, args: argparse.Namespace, settings: RunSettings
) -> Target | int:
    """The target of a run with --target and/or --config, or an exit status."""
    endpoint = url.endpoint if url else None
    if args.config is not None:
        target = load_target(args.config, url.base_url if url else None)
        return replace(target, batch_endpoint=endpoint) if endpoint else target
    assert url is not None
    # A bare URL: check that there is a batch endpoint before probing for resources.
    bare = target_from_dict(
        {
            "base_url": url.base_url,
            "batch_endpoint": endpoint or "/batch",
            "resources": dict.fromkeys(("ok", "not_found", "collection", "etag_resource"), "/"),
            "profiles": ["core"],
        }
    )
    bare = replace(bare, resources={})
    first = preflight(bare, settings)
    if not first.ok:
        return bare  # run_suite repeats the preflight and reports it
    draft = _draft(url, endpoint or "/batch", args)
    for note in draft.notes:
        print(f"note: {note}", file=sys.stderr)
    print(
        f"{PROG}: no --config: testing a draft discovered at {url.base_url} (no sandbox, so "
        f"checks that write are N/A); save and review it with: {PROG} discover --target "
        f"{args.target} --output target.json",
        file=sys.stderr,
    )
    # Roles discovery did not find are left out, so their checks are N/A, not failures
    # against a stand-in path.
    return replace(target_from_dict(draft.description), resources=draft.found)


def _run(args: argparse.Namespace) -> int:
    if args.replays < 0:
        raise UsageError(f"--replays must be >= 0, got {args.replays}")
    if args.seed is not None and args.seed < 0:
        raise UsageError(f"--seed must be >= 0, got {args.seed}")
    _check_tls(args)
    url = _url(args.target)
    checks, _ = plan(args.tier, args.only, writes=not args.read_only, skip=args.skip)
    if args.list:
        _print_list(checks)
        return EXIT_CONFORMANT
    settings = RunSettings(
        tier=args.tier,
        seed=args.seed if args.seed is not None else secrets.randbits(32),
        replays=args.replays,
        baseline_url=parse_target_url(args.baseline).base_url if args.baseline else None,
        via=args.via_scenario,
        report_dir=args.report,
        timeout_s=args.timeout,
        read_only=args.read_only,
        insecure=args.insecure,
        ca_file=args.ca_file,
        http2=args.http2,
        fresh_connections=args.fresh_connections,
        strict=args.strict,
        request_variants=args.request_variants or ("off" if args.tier == "smoke" else "mixed"),
    )
    if url is None and args.config is None:
        from mixbatch_conformance.core.target import reference_target
        from mixbatch_conformance.run.targets import with_published_profiles

        with embedded_server() as base:
            target = with_published_profiles(reference_target(base))
            code, _ = _suite(target, settings, args)
            return code
    described = _described(url, args, settings)
    if isinstance(described, int):
        return described
    code, _ = _suite(described, settings, args)
    return code


def _suite(target: Target, settings: RunSettings, args: argparse.Namespace) -> tuple[int, object]:
    return run_suite(
        replace(target, timeout=settings.timeout_s),
        settings,
        only=args.only,
        skip=args.skip,
        deep_budget_s=args.budget,
        progress=not args.no_progress and sys.stderr.isatty(),
        quiet=args.quiet,
    )


def main(argv: list[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["discover"]:
        return _discover_main(args_list[1:])
    if args_list[:1] == ["replay"]:
        return _replay_main(args_list[1:])
    args = _parse(_parser(), args_list)
    if isinstance(args, int):
        return args
    if args.measure is not None and args.via is None:
        print(f"{PROG}: error: --measure needs --via", file=sys.stderr)
        return EXIT_USAGE
    if args.via is not None:
        # The suite through mitmproxy scenarios: run_via starts one proxy per scenario and
        # runs the suite it is given (this main) with --target pointing at that proxy.
        from mixbatch_conformance.intermediaries._via import run_via

        return run_via(args_list, main)
    try:
        return _run(args)
    except (UsageError, ConfigError, SelectionError) as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (DiscoveryError, TargetUnreachable, EmbeddedServerError, OSError) as exc:
        print(f"{PROG}: could not test: {exc}", file=sys.stderr)
        return EXIT_HARNESS
    except Exception:
        # A fault of the suite itself: exit 3 (could not test), never 1 (non-conformant).
        traceback.print_exc()
        print(f"{PROG}: internal error of the suite (exit {EXIT_HARNESS})", file=sys.stderr)
        return EXIT_HARNESS


if __name__ == "__main__":
    raise SystemExit(main())
