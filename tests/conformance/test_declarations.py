"""Checks declare what they need (state, roles, direct_only) and the runner reads only that;
check modules are found on disk; run settings are validated when built."""

from __future__ import annotations

import functools
from dataclasses import replace
from pathlib import Path

import pytest

import mixbatch_conformance.checks as checks_package
from mixbatch_conformance.checks import all_checks, check_modules
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge, Verdict
from mixbatch_conformance.core.registry import BOTH_ROLES, Check, State
from mixbatch_conformance.core.settings import RunSettings
from mixbatch_conformance.core.target import Target
from mixbatch_conformance.run.runner import run_check

CHECKS = {c.id: c for c in all_checks()}
CHECKS_DIR = Path(checks_package.__file__).parent


def _sends_nothing(ctx: Context, judge: Judge) -> None:
    judge.expect("ran", True, {True}, "MB-WIRE-8")


def _probe(**declared: object) -> Check:
    fields: dict[str, object] = {"state": State.READ_ONLY, "roles": BOTH_ROLES, **declared}
    return Check(
        "declaration-probe",
        ("MB-WIRE-8",),
        "core",
        "smoke",
        "A probe for the runner's reading of declarations.",
        _sends_nothing,
        **fields,  # type: ignore[arg-type]
    )


def test_every_module_on_disk_is_a_check_module() -> None:
    on_disk = {
        f"mixbatch_conformance.checks.{p.stem}"
        for p in CHECKS_DIR.glob("*.py")
        if not p.name.startswith("_")
    }
    assert set(check_modules()) == on_disk
    assert "mixbatch_conformance.checks._shared" not in check_modules()


def _module_of(check: Check) -> str:
    fn = check.run
    while isinstance(fn, functools.partial):
        fn = fn.func
    return fn.__module__


def test_every_check_module_registers_a_check() -> None:
    assert {_module_of(c) for c in CHECKS.values()} == set(check_modules())


def test_a_check_needing_a_disposable_target_is_na_on_another() -> None:
    target = Target("http://127.0.0.1:9", disposable=False)
    result = run_check(_probe(state=State.NEEDS_DISPOSABLE_TARGET), Context(target))
    assert result.verdict is Verdict.NA
    assert "not disposable" in result.message
    assert result.judge.exchanges == []
    on_disposable = run_check(
        _probe(state=State.NEEDS_DISPOSABLE_TARGET), Context(replace(target, disposable=True))
    )
    assert on_disposable.verdict is Verdict.PASS


def test_a_proxy_check_is_na_against_a_server_and_runs_against_a_proxy() -> None:
    server = Target("http://127.0.0.1:9")
    result = run_check(_probe(roles=("proxy",)), Context(server))
    assert result.verdict is Verdict.NA
    assert "batching proxy" in result.message
    proxy = replace(server, proxy=True)
    assert run_check(_probe(roles=("proxy",)), Context(proxy)).verdict is Verdict.PASS


def test_direct_only_is_read_from_the_declaration() -> None:
    target = Target("http://127.0.0.1:9")
    through = Context(target, RunSettings(via="rechunk"))
    declared = run_check(_probe(direct_only="needs one connection"), through)
    assert declared.verdict is Verdict.NA
    assert "needs one connection" in declared.message
    assert run_check(_probe(), through).verdict is Verdict.PASS
    direct = Context(target)
    assert run_check(_probe(direct_only="needs one connection"), direct).verdict is Verdict.PASS


def test_the_proxy_checks_declare_the_proxy_role_only() -> None:
    proxy_checks = {c.id for c in CHECKS.values() if c.roles == ("proxy",)}
    assert proxy_checks == {c for c in CHECKS if c.startswith("proxy-")}


def test_writing_checks_declare_where_they_write() -> None:
    sandbox = {c.id for c in CHECKS.values() if c.state is State.WRITES_IN_SANDBOX}
    assert sandbox == {
        "aggregate-etag-follows-members",
        "aggregate-validators-follow-member-writes",
        "answered-writes-outlive-client-leaving",
        "answers-over-16-mib-every-form",
        "atomic-abort-rolls-back",
        "atomic-batches-queued-undo-only-their-own",
        "atomic-commit-outlives-client-leaving",
        "atomic-commit-visible",
        "atomic-failure-outcomes",
        "atomic-failure-undoes-writes",
        "atomic-no-partial-state",
        "atomic-rollback-every-write-kind",
        "atomic-rollback-never-seen",
        "atomic-rollback-spares-standalone-writes",
        "atomic-rollback-unseen-by-every-reader",
        "batch-runs-nothing-before-content-whole",
        "budget-excess-batch-refused",
        "budget-holds-every-kind-of-batch",
        "chunked-batch-runs-nothing-before-content-whole",
        "collection-delimiter-planted-in-member",
        "collection-last-modified-after-write",
        "collection-parts-are-members-alone",
        "conditional-fields-on-absent-members",
        "conditional-fields-where-the-request-fails",
        "conditional-parts-after-writes",
        "conditional-post-compares-selected-representation",
        "conditional-post-to-collection",
        "conditional-rfc-writes",
        "conditional-tag-lists-on-writes",
        "conditional-unsafe-parts",
        "content-coded-batch-runs-nothing",
        "continue-after-failed-write",
        "continue-write-after-every-failing-status",
        "created-fields-every-form",
        "created-location",
        "entity-tags-compared-exactly",
        "error-policy-skipped-parts-do-not-run",
        "field-octets-every-form",
        "field-values-escaped-every-form",
        "late-fault-batch-runs-nothing",
        "late-fault-runs-nothing-on-every-path",
        "long-field-values-unfolded",
        "malformed-batch-runs-nothing",
        "multistatus-body-members-whole-body",
        "multistatus-json-body-members-chosen-octets",
        "over-limit-batch-runs-nothing",
        "part-validators-of-their-moment",
        "pipelined-writes-take-effect-in-order",
        "property-sandbox-state-machine",
        "proxy-validates-before-forwarding",
        "references-atomic-unresolved",
        "references-href-by-form",
        "references-location",
        "references-location-in-field-value",
        "references-target-refused-after-substitution",
        "refused-patch-as-alone",
        "response-delimiter-planted-in-member",
        "safe-parts-see-earlier-writes",
        "sandbox-collection-every-member-retrieved",
        "sandbox-collection-strong-etag-across-rollback",
        "sandbox-collection-strong-etag-same-octets",
        "sandbox-collection-unusual-members-as-alone",
        "sandbox-collection-write-sequences",
        "sandbox-creations-after-deletes",
        "sandbox-creations-distinct",
        "sandbox-json-values-read-back",
        "sandbox-member-answers-without-content",
        "sandbox-member-ids-any-length",
        "sandbox-member-ids-case-distinct",
        "sandbox-member-ids-confusable",
        "sandbox-member-octets-every-path",
        "sandbox-member-outlives-batches",
        "sandbox-member-sizes-read-back",
        "sandbox-member-without-media-type-in-every-form",
        "sandbox-members-all-retrieved",
        "sandbox-octets-read-back",
        "sandbox-post-never-takes-a-put-name",
        "sandbox-write-answers",
        "sandbox-write-sizes-as-alone",
        "sandbox-write-without-content-type",
        "sandbox-writes-any-framing",
        "stop-at-failed-write",
        "stored-nul-kept-out-of-part-fields",
        "sub-response-obs-text-fields-as-alone",
        "top-level-fields-without-created-resource",
    }
    disposable = [c for c in CHECKS.values() if c.state is State.NEEDS_DISPOSABLE_TARGET]
    assert disposable
    # The valid vectors whose parts write, and POSTs to declared resources outside the sandbox.
    outside = {"conditional-fields-on-refused-posts"}
    assert all(c.id.startswith("vector-") or c.id in outside for c in disposable)


@pytest.mark.parametrize(
    ("declared", "named"),
    [
        ({"roles": ()}, "roles"),
        ({"roles": ("client",)}, "roles"),
        ({"direct_only": " "}, "direct_only"),
    ],
)
def test_a_bad_declaration_is_refused_naming_it(declared: dict[str, object], named: str) -> None:
    with pytest.raises(ValueError, match=named):
        _probe(**declared)


@pytest.mark.parametrize(
    ("setting", "value"),
    [("tier", "quick"), ("seed", -1), ("replays", -1), ("property_budget_s", -0.5)],
)
def test_run_settings_refuse_a_bad_value_naming_it(setting: str, value: object) -> None:
    with pytest.raises(ValueError, match=setting):
        RunSettings(**{setting: value})  # type: ignore[arg-type]


def test_run_settings_are_frozen() -> None:
    settings = RunSettings()
    with pytest.raises(AttributeError):
        settings.tier = "deep"  # type: ignore[misc]
