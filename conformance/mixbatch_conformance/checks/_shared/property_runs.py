"""How the property checks run hypothesis against a live target, shared by every property check.

Theory of operation: `hold` runs one hypothesis property with the run's seed, no example
database (nothing is written to the working directory) and an example budget from the tier
(`EXAMPLES`). The deep tier repeats rounds with fresh seeds until the run's
`property_budget_s` is spent. Every example gets a fresh Judge; an example whose Judge
recorded a broken expectation raises `PropertyFailed`, hypothesis shrinks it, and the
minimal example's expectations and exact exchanges are copied into the check's Judge, so the
report shows the real bytes of the smallest failing batch. A property that held records one
summary expectation naming how many examples it judged (zero judged is a harness error).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Any

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge, StopCheck

__all__ = ["EXAMPLES", "PropertyFailed", "hold"]

#: Examples per property round, by tier (the deep tier also repeats rounds, see `hold`). Smoke
#: draws a few, so that even the quickest run exercises generated batches.
EXAMPLES = {"smoke": 5, "standard": 25, "deep": 100}


class PropertyFailed(AssertionError):
    """A property example broke an expectation; carries that example's Judge."""

    def __init__(self, judge: Judge) -> None:
        super().__init__("; ".join(f"{e.what}: {e.actual}" for e in judge.failed))
        self.judge = judge


def hold(
    ctx: Context,
    judge: Judge,
    strategy: Any,
    body: Callable[[Context, Judge, Any], None],
    what: str,
) -> None:
    """Run `body` over `strategy`; fold the minimal failure (or a summary) into `judge`."""
    # hypothesis takes about 0.4 s to import; it is imported when a property first runs rather
    # than when the checks are discovered, so selecting and listing checks stays fast.
    from hypothesis import HealthCheck, Phase, given, seed, settings

    judged = [0]
    last_failure: list[Judge] = []
    tier = ctx.settings.tier
    budget_s = ctx.settings.property_budget_s
    stop_at = time.monotonic() + budget_s

    def one_round(round_seed: int) -> bool:
        """Run the property once; True when it failed (the minimal failure is folded in)."""

        @seed(round_seed)
        @settings(
            max_examples=EXAMPLES.get(tier, 25),
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
            phases=[Phase.explicit, Phase.generate, Phase.shrink],
            report_multiple_bugs=False,
        )
        @given(strategy)
        def prop(example: Any) -> None:
            sub = Judge(judge.default_requirement)
            with contextlib.suppress(StopCheck):
                body(ctx, sub, example)
            if not sub.expectations:
                return
            judged[0] += 1
            if sub.failed:
                last_failure[:] = [sub]
                raise PropertyFailed(sub)

        try:
            prop()
        except PropertyFailed as exc:
            minimal = last_failure[0] if last_failure else exc.judge
            judge.exchanges.extend(minimal.exchanges)
            judge.expectations.extend(minimal.expectations)
            judge.note(f"minimal failing example of {what} (seed {round_seed})")
            return True
        return False

    # The deep tier spends a time budget: fresh rounds (seed + n) until it is used up.
    base_seed = ctx.settings.seed
    rounds = 0
    while True:
        if one_round(base_seed + rounds):
            return
        rounds += 1
        if tier != "deep" or time.monotonic() >= stop_at:
            break
    judge.expect_true(
        what,
        judged[0] > 0,
        f"held over {judged[0]} judged examples in {rounds} rounds",
        "holds over every example",
    )
