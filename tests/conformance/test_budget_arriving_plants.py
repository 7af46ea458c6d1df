"""The budget of batches in flight judged from a batch's first octet: the check passes on the
reference server, and warns, citing MB-LIMIT-6, of a budget that takes a batch's place only
once the batch has been received.

That server is the relay itself, unplanted: it forwards a batch only once it holds all of it,
so the reference server behind it counts none of the batches still arriving, while it refuses
the batch beyond as many running ones.
"""

from __future__ import annotations

import pytest

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Verdict
from mixbatch_conformance.core.target import Target
from mixbatch_conformance.run.runner import run_check
from mixbatch_conformance.transport.relay import Relay
from tests.conformance._plants import CHECKS, assert_passes

CHECK = "budget-holds-arriving-batches"


def test_check_passes_on_the_reference_server(reference: Target) -> None:
    assert_passes(CHECK, reference)


@pytest.mark.slow
def test_budget_taken_once_received_is_warned(relay: Relay, relayed: Context) -> None:
    relay.mutation = None
    result = run_check(CHECKS[CHECK], relayed)
    assert result.verdict is Verdict.WARN, result.message
    assert "MB-LIMIT-6" in {e.requirement for e in result.judge.failed}, result.message
