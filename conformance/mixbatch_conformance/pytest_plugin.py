"""The pytest plugin: run the conformance checks as pytest items.

Theory of operation: pytest loads this module for every run in an environment where
mixbatch is installed (entry point `pytest11`), including runs that have nothing to do with
conformance. So at import it touches only pytest and the standard library, it always adds
its options and its marker, and it does nothing else unless --mixbatch-target or
--mixbatch-config is given. Then each selected check becomes one item named
`CHECK-ID[REQUIREMENT IDS]`, so `-k MB-WIRE-8` selects by requirement. An item fails for
FAIL and FLAKY, errors for HARNESS-ERROR, SETUP-ERROR and TIMEOUT, skips for N/A, and
passes (with a report section) for PASS, WARN and INFO. With --mixbatch-report DIR the same
JSON, JUnit and HTML reports as the CLI are written at the end of the session.

--mixbatch-tier on its own only sets the tier the suite's own deep tests read through the
`mixbatch_tier` fixture.

The suite itself is imported inside the hooks, not at the top: pytest imports this module in
every run, and the suite (jsonschema, rich, the check modules) costs far more than a run that
never names a target should pay.
"""

from __future__ import annotations

import datetime as dt
import secrets
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from mixbatch_conformance.core.context import Context
    from mixbatch_conformance.core.registry import Check
    from mixbatch_conformance.run.runner import CheckResult

__all__ = [
    "OPTION_CONFIG",
    "OPTION_REPORT",
    "OPTION_TARGET",
    "OPTION_TIER",
    "MixbatchCheckFailed",
    "MixbatchItem",
]

OPTION_TARGET = "--mixbatch-target"
OPTION_CONFIG = "--mixbatch-config"
OPTION_TIER = "--mixbatch-tier"
OPTION_REPORT = "--mixbatch-report"
MARKER = "mixbatch: a conformance check run against a mixbatch server"
_STATE_KEY = "_mixbatch_state"


class MixbatchCheckFailed(Exception):
    """A check gave a failing verdict (raised by MixbatchItem.runtest)."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mixbatch", "mixbatch conformance suite")
    group.addoption(OPTION_TARGET, dest="mixbatch_target", help="base URL of the server under test")
    group.addoption(OPTION_CONFIG, dest="mixbatch_config", help="target description (JSON)")
    group.addoption(
        OPTION_TIER,
        dest="mixbatch_tier",
        default="smoke",
        choices=("smoke", "standard", "deep"),
        help="conformance tier (default smoke)",
    )
    group.addoption(OPTION_REPORT, dest="mixbatch_report", help="write conformance reports here")


def _active(config: pytest.Config) -> bool:
    return bool(config.getoption("mixbatch_target") or config.getoption("mixbatch_config"))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER)


@pytest.fixture(scope="session")
def mixbatch_tier(request: pytest.FixtureRequest) -> str:
    """The tier named by --mixbatch-tier (smoke when not given)."""
    return str(request.config.getoption("mixbatch_tier"))


class MixbatchItem(pytest.Item):
    """One conformance check as a pytest item."""

    def __init__(self, *, check: Check, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.check = check
        self.add_marker("mixbatch")

    def runtest(self) -> None:
        from mixbatch_conformance.core.judge import Verdict
        from mixbatch_conformance.run.runner import run_checks

        state = self.config.stash.get(_STATE, None)
        assert state is not None, "the mixbatch plugin state is missing"
        ctx: Context = state["ctx"]
        result = run_checks([self.check], ctx)[0]
        state["results"].append(result)
        self.add_report_section("call", "mixbatch", f"{result.verdict.value}: {result.message}")
        if result.verdict is Verdict.NA:
            pytest.skip(result.message)
        if result.verdict in (
            Verdict.FAIL,
            Verdict.FLAKY,
            Verdict.HARNESS_ERROR,
            Verdict.SETUP_ERROR,
            Verdict.TIMEOUT,
        ):
            raise MixbatchCheckFailed(_describe(result))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, MixbatchCheckFailed):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"mixbatch conformance check {self.check.id}"


def _describe(result: CheckResult) -> str:
    lines = [f"{result.verdict.value} {result.check.id}: {result.message}"]
    for e in result.failed_expectations:
        lines.append(f"  {e.requirement} {e.what}: accepted {e.allowed}; actual {e.actual}")
    return "\n".join(lines)


_STATE = pytest.StashKey[dict[str, Any]]()


def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    if not _active(config):
        return
    from mixbatch_conformance.checks import select
    from mixbatch_conformance.core.context import Context
    from mixbatch_conformance.core.settings import RunSettings
    from mixbatch_conformance.core.target import load_target, target_from_dict
    from mixbatch_conformance.run.discover import discover

    url = config.getoption("mixbatch_target")
    path = config.getoption("mixbatch_config")
    target = load_target(Path(path), url) if path else target_from_dict(discover(url))
    report = config.getoption("mixbatch_report")
    tier = str(config.getoption("mixbatch_tier"))
    settings = RunSettings(
        tier=tier,
        seed=secrets.randbits(32),
        replays=3,
        report_dir=Path(report) if report else None,
        request_variants="off" if tier == "smoke" else "mixed",
    )
    ctx = Context(target, settings)
    config.stash[_STATE] = {"ctx": ctx, "results": []}
    for check in select(settings.tier):
        name = f"{check.id}[{' '.join(check.requirements)}]"
        items.append(MixbatchItem.from_parent(session, name=name, check=check))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    state = config.stash.get(_STATE, None)
    if state is None:
        return
    from mixbatch_conformance.checks import all_checks
    from mixbatch_conformance.core.requirements import load_index
    from mixbatch_conformance.run.report import RunInfo, write_reports

    ctx: Context = state["ctx"]
    settings = ctx.settings
    # Every sandbox member the checks created is deleted, as after a command-line run.
    leftovers = ctx.clean_up()
    for left in leftovers:
        print(f"mixbatch: could not delete a member the suite created: {left}")
    if settings.report_dir is None:
        return
    info = RunInfo(
        ctx.target.base_url,
        ctx.target.batch_endpoint,
        settings.tier,
        settings.seed,
        tuple(sorted(ctx.target.profiles)),
        dt.datetime.now(dt.UTC),
        sum(r.duration_s for r in state["results"]),
        leftovers=tuple(leftovers),
    )
    write_reports(settings.report_dir, state["results"], info, load_index(), all_checks())
