"""Terminal output: a live progress line while checks run, then a summary by requirement.

Theory of operation: `Progress` wraps rich's progress bar and is fed by the runner's
callbacks; it writes to stderr so stdout stays clean for scripts. `print_summary` groups the
results by requirement ID (a check verifying three requirements appears under each), shows
the worst verdict per requirement, each check graded by that requirement's own expectations
(runner.requirement_verdict: a SHOULD a check broke is WARN even when the same check also
broke a MUST), then lists every non-passing check with its requirement text, accepted and
actual outcomes, and the replay command. A departure that many checks record alike (a rule
judged on every answer the suite receives) is listed once, with the checks that recorded it. Command lines are printed whole, never wrapped,
whatever the width of the terminal or pipe, so that they can be copied from a CI log.
"""

from __future__ import annotations

from collections import defaultdict
from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
from rich.progress import Progress as RichProgress
from rich.table import Table

from mixbatch_conformance.core.judge import Expectation, Verdict
from mixbatch_conformance.core.registry import Check
from mixbatch_conformance.core.requirements import RequirementIndex
from mixbatch_conformance.run.runner import CheckResult, requirement_verdict

__all__ = ["Progress", "print_summary"]

#: How many distinct reasons for N/A verdicts the summary lists.
NA_REASONS_SHOWN = 6
#: A departure (the same expectation broken the same way) that this many checks or more
#: record is listed once, with the checks that recorded it, not under each of them: a rule
#: judged on every answer (a field every batch response carries, a problem document's
#: schema) would otherwise repeat one fault hundreds of times.
FOLD_AT = 3
#: How many check ids a folded departure, or a requirement's row, names before "and N more".
CHECKS_NAMED = 8
#: Failing checks whose broken expectations met a 503 that make the summary suspect one cause:
#: the target's budget of batches in flight (MB-LIMIT-6) full of batches that ended long ago.
BUSY_HINT_AT = 5

STYLE = {
    Verdict.PASS: "green",
    Verdict.FAIL: "bold red",
    Verdict.FLAKY: "magenta",
    Verdict.WARN: "yellow",
    Verdict.INFO: "cyan",
    Verdict.NA: "dim",
}
ORDER = [
    Verdict.FAIL,
    Verdict.FLAKY,
    Verdict.HARNESS_ERROR,
    Verdict.SETUP_ERROR,
    Verdict.TIMEOUT,
    Verdict.WARN,
    Verdict.INFO,
    Verdict.PASS,
    Verdict.NA,
]


class Progress:
    """Live progress for a run of `total` checks (silent when `enabled` is False)."""

    def __init__(self, total: int, enabled: bool = True) -> None:
        self.enabled = enabled
        self.console = Console(stderr=True)
        self.bar = RichProgress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[current]}"),
            console=self.console,
            transient=True,
            disable=not enabled,
        )
        self.task = self.bar.add_task("conformance", total=total, current="")
        self.failed = 0

    def __enter__(self) -> Progress:
        self.bar.__enter__()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.bar.__exit__(exc_type, exc, tb)

    def start(self, check: Check) -> None:
        self.bar.update(self.task, current=check.id)

    def result(self, result: CheckResult) -> None:
        if result.verdict.failing:
            self.failed += 1
        self.bar.update(self.task, advance=1, description=f"conformance ({self.failed} failing)")


def print_summary(
    results: list[CheckResult],
    index: RequirementIndex,
    console: Console | None = None,
    *,
    header: str = "",
    uncovered: list[str] | None = None,
) -> None:
    out = console or Console(soft_wrap=True)
    if header:
        out.print(header, style="bold", markup=False, highlight=False, soft_wrap=True)
    by_req: dict[str, list[CheckResult]] = defaultdict(list)
    for r in results:
        for rid in r.judged_requirements:
            by_req[rid].append(r)
    table = Table(title="Results by requirement", show_lines=False)
    table.add_column("requirement")
    table.add_column("kw")
    table.add_column("worst")
    table.add_column("checks")
    for req in index.requirements:
        rs = by_req.get(req.id)
        if not rs:
            continue
        graded = [(r, requirement_verdict(r, req.id, index)) for r in rs]
        worst = min((v for _, v in graded), key=ORDER.index)
        table.add_row(
            req.id,
            req.keyword,
            f"[{STYLE.get(worst, 'bold magenta')}]{worst.value}[/]",
            _named([r.check.id for r, v in graded if v is not Verdict.PASS]) or f"{len(rs)} passed",
        )
    out.print(table)
    bad = [r for r in results if r.verdict not in (Verdict.PASS, Verdict.NA)]
    folded = _folded(bad)
    for r in bad:
        out.print(
            f"[{STYLE.get(r.verdict, 'bold magenta')}]{r.verdict.value}[/] [bold]{r.check.id}[/] ",
            end="",
        )
        _plain(out, r.message)
        for e in r.failed_expectations:
            key = _departure(e)
            if key in folded:
                _plain(
                    out,
                    f"    {e.requirement}: {e.what}: as in {len(folded[key])} checks, "
                    "listed once below",
                )
                continue
            _print_expectation(out, index, e)
        if r.artifacts.get("replay"):
            _plain(out, f"    replay: {r.artifacts['replay']}")
            _plain(out, f"    curl:   {r.artifacts.get('curl')}")
    for key, holders in folded.items():
        first = holders[0]
        e = next(x for x in first.failed_expectations if _departure(x) == key)
        _plain(out, f"REPEATED in {len(holders)} checks: {e.what}")
        _print_expectation(out, index, e)
        actuals = {x.actual for r in holders for x in r.failed_expectations if _departure(x) == key}
        if len(actuals) > 1:
            _plain(
                out,
                f"      ({len(actuals)} different actual values; each check's report has its own)",
            )
        _plain(out, f"      in: {_named([r.check.id for r in holders])}")
    _hint_busy(out, bad)
    reasons: dict[str, int] = defaultdict(int)
    for r in results:
        if r.verdict is Verdict.NA:
            reasons[r.message] += 1
    # Why checks did not apply, most common first: a missing role or profile in the target
    # file shows here as one line rather than as silence.
    for why, count in sorted(reasons.items(), key=lambda kv: -kv[1])[:NA_REASONS_SHOWN]:
        _plain(out, f"N/A ({count}): {why}")
    if uncovered:
        _plain(out, f"server requirements with no check ({len(uncovered)}): {' '.join(uncovered)}")
    counts: dict[str, int] = defaultdict(int)
    for r in results:
        counts[r.verdict.value] += 1
    out.print("  ".join(f"{k}: {v}" for k, v in sorted(counts.items())))


def _met_busy(r: CheckResult) -> bool:
    """Whether `r` failed on a 503: a status expectation answered 503 instead."""
    return r.verdict is Verdict.FAIL and any(
        e.actual.strip() == "503" for e in r.failed_expectations
    )


def _hint_busy(out: Console, bad: list[CheckResult]) -> None:
    """When many checks failed on a 503, say what that usually is and where it began: the suite
    sends one batch at a time outside the checks that load the budget on purpose, so a server
    that refuses many of them as busy is most often one whose budget of batches in flight
    (MB-LIMIT-6) keeps batches that ended (a client that left mid-content, a refused batch)."""
    busy = [r for r in bad if _met_busy(r)]
    if len(busy) < BUSY_HINT_AT:
        return
    first = busy[0].check.id
    _plain(
        out,
        f"HINT: {len(busy)} checks failed on a 503 although the suite sent their batches one at "
        "a time. A budget of batches in flight (MB-LIMIT-6) that keeps a batch after it ended "
        "(its client left before the content ended, or it was refused) fills up and refuses "
        f"every later batch; the first check that met it was {first}. Rerun the failing checks "
        f"against a freshly started server (--only {' '.join(r.check.id for r in busy[:3])}) "
        "to tell.",
    )


def _departure(e: Expectation) -> tuple[str, str, str]:
    """What makes two checks' broken expectations the same departure."""
    return (e.requirement, e.what, e.allowed)


def _folded(bad: list[CheckResult]) -> dict[tuple[str, str, str], list[CheckResult]]:
    """The departures at least `FOLD_AT` checks recorded, each with those checks in order."""
    holders: dict[tuple[str, str, str], list[CheckResult]] = defaultdict(list)
    for r in bad:
        for key in dict.fromkeys(_departure(e) for e in r.failed_expectations):
            holders[key].append(r)
    return {key: rs for key, rs in holders.items() if len(rs) >= FOLD_AT}


def _print_expectation(out: Console, index: RequirementIndex, e: Expectation) -> None:
    summary = index.get(e.requirement).summary if e.requirement in index else ""
    _plain(out, f"    {e.requirement}: {summary}")
    _plain(out, f"      accepted: {e.allowed}")
    _plain(out, f"      actual:   {e.actual}")


def _named(ids: list[str]) -> str:
    """`ids` joined, the first `CHECKS_NAMED` named and the rest counted."""
    shown = " ".join(ids[:CHECKS_NAMED])
    more = len(ids) - CHECKS_NAMED
    return f"{shown} and {more} more" if more > 0 else shown


def _plain(out: Console, text: str) -> None:
    """Print `text` as it is: no markup, no highlighting, no wrapping (soft wrap)."""
    out.print(text, markup=False, highlight=False, soft_wrap=True)
