"""Checks that compare aborted batches say N/A, never a harness error, when nothing is aborted.

A target may keep a longer budget than it declares (a description written for another
configuration, or a server that stops late). The abort checks judge that; the checks that
compare an aborted batch with its twin, or its forms with each other, have nothing to compare
and must say why instead of finishing without an expectation. The reference server keeps
its embedded 3 s budget while its description here declares 100 ms: the outlasting batch then
waits 1.1 s, and even two atomic batches run one after the other end within the real budget.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Verdict
from mixbatch_conformance.core.settings import RunSettings
from mixbatch_conformance.core.target import Target
from mixbatch_conformance.run.runner import run_check
from tests.conformance._plants import CHECKS


@pytest.mark.parametrize(
    "check", ["batch-abort-forms-keep-answered", "batch-budget-not-raised-by-client-fields"]
)
def test_a_batch_never_aborted_leaves_the_comparison_not_applicable(
    check: str, reference: Target
) -> None:
    assert reference.batch_timeout_ms == 3000
    target = replace(reference, batch_timeout_ms=100)
    result = run_check(CHECKS[check], Context(target, RunSettings(tier="standard")))
    assert result.verdict is Verdict.NA, (result.verdict, result.message)
    assert "abort" in result.message
