"""The suite checks its own data: ids, requirement IDs, severities, descriptions, cases."""

from __future__ import annotations

import re

import pytest

from mixbatch_conformance.checks import all_checks, select
from mixbatch_conformance.checks.envelope import load_cases
from mixbatch_conformance.core.registry import SLUG, Check
from mixbatch_conformance.core.requirements import Severity, load_index
from mixbatch_conformance.core.target import ALL_PROFILES, reference_target, target_from_dict

INDEX = load_index()
CHECKS = all_checks()


def test_check_ids_are_unique_slugs() -> None:
    ids = [c.id for c in CHECKS]
    assert len(ids) == len(set(ids))
    assert all(SLUG.fullmatch(i) for i in ids)


def test_check_ids_are_not_positional() -> None:
    assert not [c.id for c in CHECKS if re.search(r"(^|-)(case|check|test)-?[0-9]+$", c.id)]


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.id)
def test_every_cited_requirement_exists(check: Check) -> None:
    assert [r for r in check.requirements if r not in INDEX] == []


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.id)
def test_check_profile_is_a_spec_profile(check: Check) -> None:
    assert check.profile in ALL_PROFILES


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.id)
def test_description_states_a_fact(check: Check) -> None:
    text = check.description
    assert text[0].isupper()
    assert text.endswith(".")
    assert not re.search(r"\b(test|check|verify|should we|TODO)\b", text, re.IGNORECASE)


def test_severity_follows_the_keyword() -> None:
    assert Severity.from_keyword("MUST") is Severity.FAIL
    assert Severity.from_keyword("MUST NOT") is Severity.FAIL
    assert Severity.from_keyword("SHOULD") is Severity.WARN
    assert Severity.from_keyword("SHOULD NOT") is Severity.WARN
    assert Severity.from_keyword("MAY") is Severity.INFO


def test_check_severity_is_the_strongest_requirement_keyword() -> None:
    by_id = {c.id: c for c in CHECKS}
    assert by_id["response-boundary-choice"].severity() is Severity.FAIL  # MB-WIRE-3 is a MUST
    for c in CHECKS:
        strongest = max(INDEX.get(r).severity.rank for r in c.requirements)
        assert c.severity().rank == strongest


def test_cases_file_validates_and_has_unique_ids() -> None:
    cases = load_cases()
    ids = [c["id"] for c in cases]
    assert len(ids) == len(set(ids))


def test_smoke_tier_is_a_subset_of_standard_and_deep() -> None:
    smoke = {c.id for c in select("smoke")}
    assert smoke <= {c.id for c in select("standard")} <= {c.id for c in select("deep")}


def test_every_server_must_has_a_check_or_is_listed_as_uncovered() -> None:
    covered = {r for c in CHECKS for r in c.requirements}
    server_musts = [
        r.id
        for r in INDEX.requirements
        if r.severity is Severity.FAIL and {"server"} & set(r.roles)
    ]
    uncovered = sorted(set(server_musts) - covered)
    # Known gaps, each needing something a generic target does not offer.
    assert set(uncovered) <= {
        "MB-WIRE-14",  # client-side
        "MB-STATUS-6",  # needs a server that aborts mid-stream on demand
        "MB-STATUS-11",  # needs an empty collection
        "MB-STATUS-12",  # needs a server that fails before any part ran
        "MB-PROC-2",  # property tier (state machine) covers it
        "MB-PROC-8",  # atomic profile: no reference implementation to test against
        "MB-PROC-14",  # atomic profile, stopped before it committed
        "MB-SUB-5",  # needs a protected resource in the target description
    }


def test_target_proxy_member_is_optional_and_parsed() -> None:
    base = {
        "base_url": "http://127.0.0.1:1",
        "batch_endpoint": "/batch",
        "resources": dict(reference_target("http://127.0.0.1:1").resources),
        "profiles": ["core"],
    }
    plain = target_from_dict(base)
    assert (plain.proxy, plain.proxy_origin, plain.proxy_timeout_ms) == (False, None, None)
    proxied = target_from_dict(
        {**base, "proxy": {"origin": "http://127.0.0.1:2", "subrequest_timeout_ms": 1500}}
    )
    assert (proxied.proxy, proxied.proxy_origin, proxied.proxy_timeout_ms) == (
        True,
        "http://127.0.0.1:2",
        1500,
    )
    assert target_from_dict({**base, "proxy": {}}).proxy
