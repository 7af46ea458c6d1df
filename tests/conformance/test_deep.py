"""The deep tier against the reference server (runs under `make deep`, skipped otherwise)."""

from __future__ import annotations

import pytest

from mixbatch_conformance.checks import select
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Verdict
from mixbatch_conformance.core.settings import RunSettings
from mixbatch_conformance.core.target import Target
from mixbatch_conformance.run.runner import run_checks

DEEP_BUDGET_S = 240.0


@pytest.mark.deep
@pytest.mark.timeout(DEEP_BUDGET_S * 2)
def test_reference_server_holds_every_property_for_the_deep_budget(
    reference: Target, mixbatch_tier: str
) -> None:
    if mixbatch_tier != "deep":
        pytest.skip("the deep tier runs with --mixbatch-tier deep (make deep)")
    chosen = [c for c in select("deep") if c.draws_examples]
    settings = RunSettings(tier="deep", seed=4, property_budget_s=DEEP_BUDGET_S / len(chosen))
    ctx = Context(reference, settings)
    results = run_checks(chosen, ctx, replays=1)
    assert {r.check.id: r.message for r in results if r.verdict is not Verdict.PASS} == {}
