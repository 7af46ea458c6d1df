"""A check declares whether it runs direct only; through an intermediary such a check is N/A
with its reason, never PASS or FAIL, and nothing about it is read from the words of its id."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from mixbatch_conformance.checks import all_checks
from mixbatch_conformance.checks._shared.hops import PIPELINING_NEEDS_ONE_CONNECTION
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Verdict
from mixbatch_conformance.core.settings import RunSettings
from mixbatch_conformance.core.target import Target
from mixbatch_conformance.run.runner import run_check
from mixbatch_conformance.run.suite import run_suite

CHECKS = {c.id: c for c in all_checks()}
#: Every check the suite defines itself (the `vector-*` checks grow with spec/examples), its
#: requirements, and whether it runs direct only, as they were when checks began to declare
#: direct_only themselves instead of the runner inferring it from words in their ids.
FROZEN = json.loads((Path(__file__).parent / "frozen_checks.json").read_text(encoding="utf-8"))


def test_ids_requirements_and_direct_only_are_unchanged() -> None:
    now = {
        c.id: {"direct_only": c.direct_only is not None, "requirements": list(c.requirements)}
        for c in CHECKS.values()
        if not c.id.startswith("vector-")
    }
    assert now == FROZEN


def test_no_vector_check_runs_direct_only() -> None:
    vectors = [c for c in CHECKS.values() if c.id.startswith("vector-")]
    assert vectors
    assert [c.id for c in vectors if c.direct_only is not None] == []


def test_direct_only_follows_the_declaration_not_the_id(reference: Target) -> None:
    ctx = Context(reference, RunSettings(via="passthrough"))
    renamed = replace(CHECKS["pipelining-in-order"], id="ordered-answers")
    assert run_check(renamed, ctx).verdict is Verdict.NA
    worded = replace(CHECKS["batch-equals-alone"], id="batch-equals-alone-pipelining")
    assert run_check(worded, ctx).verdict is Verdict.PASS


def test_direct_only_check_is_na_through_an_intermediary(reference: Target) -> None:
    ctx = Context(reference, RunSettings(via="rechunk"))
    result = run_check(CHECKS["pipelining-in-order"], ctx)
    assert result.verdict is Verdict.NA
    assert "rechunk" in result.message
    assert PIPELINING_NEEDS_ONE_CONNECTION in result.message
    assert result.judge.exchanges == []


def test_direct_only_check_runs_on_a_direct_connection(reference: Target) -> None:
    assert run_check(CHECKS["pipelining-in-order"], Context(reference)).verdict is Verdict.PASS


def test_other_checks_still_run_through_an_intermediary(reference: Target) -> None:
    ctx = Context(reference, RunSettings(via="passthrough"))
    assert run_check(CHECKS["batch-equals-alone"], ctx).verdict is Verdict.PASS


def test_the_run_passes_the_scenario_to_the_checks(reference: Target) -> None:
    code, results = run_suite(
        reference,
        RunSettings(tier="standard", replays=0, via="passthrough"),
        only=["pipelining-in-order", "property-pipelining-order"],
        progress=False,
        quiet=True,
    )
    assert code == 0
    assert [r.verdict for r in results] == [Verdict.NA, Verdict.NA]
