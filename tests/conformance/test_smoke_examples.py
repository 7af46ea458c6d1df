"""The smoke tier draws hypothesis examples too: its property checks judge generated batches."""

from __future__ import annotations

import re

from mixbatch_conformance.checks import select
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Verdict
from mixbatch_conformance.core.settings import RunSettings
from mixbatch_conformance.core.target import Target
from mixbatch_conformance.run.runner import run_checks


def test_smoke_runs_property_checks_that_judge_examples(reference: Target) -> None:
    chosen = [c for c in select("smoke") if c.draws_examples]
    assert chosen, "the smoke tier has no property check"
    results = run_checks(chosen, Context(reference, RunSettings(tier="smoke", seed=3)), replays=1)
    for result in results:
        assert result.verdict is Verdict.PASS, (result.check.id, result.message)
        held = [e.actual for e in result.judge.expectations if "judged examples" in str(e.actual)]
        counts = [int(m.group(1)) for a in held if (m := re.search(r"over (\d+) judged", a))]
        assert counts, result.check.id
        assert all(n > 0 for n in counts), (result.check.id, counts)
