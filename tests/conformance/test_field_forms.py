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

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.target import Target
from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants.field_forms import PLANTS, has_ows
from mixbatch_conformance.transport.relay import Relay
from tests.conformance._plants import assert_caught_under_requirement, assert_passes

CATCHERS = sorted({c for p in PLANTS for c in p.catchers})


@pytest.mark.parametrize("check", CATCHERS)
def test_the_reference_server_passes(check: str, reference: Target) -> None:
    assert_passes(check, reference)


@pytest.mark.parametrize("plant", PLANTS, ids=[p.name for p in PLANTS])
def test_a_plant_is_caught_under_its_requirement(
    plant: Mutation, relay: Relay, relayed: Context
) -> None:
    assert_caught_under_requirement(plant, relay, relayed, ("FAIL",))


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
