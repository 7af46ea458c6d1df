"""Spec vectors are moved to the target's own origin: scheme, authority and batch endpoint."""

from __future__ import annotations

from mixbatch_conformance.checks.corpus import retarget


def test_a_same_origin_target_takes_the_targets_scheme_and_authority() -> None:
    moved = retarget(
        "http://example.test/books/1", "example.test", "/batch", "h:8443", "/b", "https"
    )
    assert moved == "https://h:8443/books/1"


def test_scheme_and_host_case_are_kept_as_the_vector_spells_them() -> None:
    moved = retarget("HTTP://EXAMPLE.test/x", "example.test", "/batch", "h:1", "/b", "https")
    assert moved == "HTTPS://H:1/x"


def test_another_scheme_stays_another_origin() -> None:
    ref = "https://example.test/books/1"
    assert retarget(ref, "example.test", "/batch", "h:80", "/b", "http") == ref
