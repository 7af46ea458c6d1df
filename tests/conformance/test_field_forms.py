"""Fields in their other legal forms: names in another case, whitespace around the value,
several lines, lists of entity-tags, If-Range.

top-level-field-names-any-case sends the batch's own fields named in other cases;
part-field-forms-reach-resource sends part fields in each form to the echo and
conditional-field-forms sends preconditions in each form to the etag_resource, both compared
with the same request alone. The reference server passes all three; each plant of
run.plants.field_forms fails its catcher under the requirement it breaks.
"""

from __future__ import annotations

import pytest

from mixbatch_conformance.checks import all_checks
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Verdict
from mixbatch_conformance.core.target import Target
from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants.field_forms import PLANTS, has_ows
from mixbatch_conformance.run.runner import run_check
from mixbatch_conformance.run.selftest import judge_mutation
from mixbatch_conformance.transport.relay import Relay

CHECKS = {c.id: c for c in all_checks()}
CATCHERS = sorted({c for p in PLANTS for c in p.catchers})


@pytest.mark.parametrize("check", CATCHERS)
def test_the_reference_server_passes(check: str, reference: Target) -> None:
    result = run_check(CHECKS[check], Context(reference))
    assert result.verdict is Verdict.PASS, result.message


@pytest.mark.parametrize("plant", PLANTS, ids=[p.name for p in PLANTS])
def test_a_plant_is_caught_under_its_requirement(
    plant: Mutation, relay: Relay, relayed: Context
) -> None:
    outcome = judge_mutation(relay, relayed, plant)
    requirement = plant.breaks.split()[0]
    for catcher in plant.catchers:
        result = outcome.results[catcher]
        assert result.verdict is Verdict.FAIL, result.message
        assert requirement in {e.requirement for e in result.judge.failed}, result.message


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (b"Accept: text/plain", False),
        (b"Accept:text/plain", False),
        (b"Accept:  text/plain", True),
        (b"Accept: \ttext/plain", True),
        (b"Accept: text/plain ", True),
        (b"Accept: text/plain\t", True),
        (b"X-Empty:", False),
    ],
)
def test_whitespace_around_a_value_is_told_from_the_one_space_after_the_colon(
    line: bytes, expected: bool
) -> None:
    assert has_ows(line) is expected
