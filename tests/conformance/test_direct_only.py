"""Through an intermediary, checks that only a direct connection can judge are N/A, with the
reason, never PASS or FAIL (intermediaries.DIRECT_ONLY_CHECKS)."""

from __future__ import annotations

from mixbatch_conformance._context import Context
from mixbatch_conformance._judge import Verdict
from mixbatch_conformance._registry import all_checks
from mixbatch_conformance._runner import run_check
from mixbatch_conformance._target import Target
from mixbatch_conformance.cli import run
from mixbatch_conformance.intermediaries import DIRECT_ONLY_CHECKS, direct_only_reason

CHECKS = {c.id: c for c in all_checks()}


def test_kinds_name_whole_words_of_check_ids() -> None:
    assert direct_only_reason("pipelining-in-order") == DIRECT_ONLY_CHECKS["pipelining"]
    assert direct_only_reason("property-pipelining-order") == DIRECT_ONLY_CHECKS["pipelining"]
    assert direct_only_reason("reject-expect-100-continue") is not None
    assert direct_only_reason("batch-equals-alone") is None
    assert direct_only_reason("nopipelining-x") is None


def test_every_pipelining_check_is_direct_only() -> None:
    assert {c for c in CHECKS if "pipelining" in c} == {
        c for c in CHECKS if direct_only_reason(c) is not None
    }


def test_direct_only_check_is_na_through_an_intermediary(reference: Target) -> None:
    result = run_check(CHECKS["pipelining-in-order"], Context(reference, intermediary="rechunk"))
    assert result.verdict is Verdict.NA
    assert "rechunk" in result.message
    assert DIRECT_ONLY_CHECKS["pipelining"] in result.message
    assert result.judge.exchanges == []


def test_direct_only_check_runs_on_a_direct_connection(reference: Target) -> None:
    assert run_check(CHECKS["pipelining-in-order"], Context(reference)).verdict is Verdict.PASS


def test_other_checks_still_run_through_an_intermediary(reference: Target) -> None:
    ctx = Context(reference, intermediary="passthrough")
    assert run_check(CHECKS["batch-equals-alone"], ctx).verdict is Verdict.PASS


def test_the_run_passes_the_scenario_to_the_checks(reference: Target) -> None:
    code, results = run(
        reference,
        "standard",
        only=["pipelining-in-order", "property-pipelining-order"],
        progress=False,
        quiet=True,
        replays=0,
        intermediary="passthrough",
    )
    assert code == 0
    assert [r.verdict for r in results] == [Verdict.NA, Verdict.NA]
