"""Prefer is read as RFC 7240 §2 writes it: preferences separated by commas, parameters by
semicolons, and neither separates anything inside a quoted-string."""

from __future__ import annotations

import pytest

from mixbatch._http.negotiation import batch_on_error, parse_prefer


@pytest.mark.parametrize(
    ("lines", "policy"),
    [
        (["batch-on-error=stop"], "stop"),
        (['batch-on-error="stop"'], "stop"),
        (["respond-async, Batch-On-Error=STOP"], "stop"),
        (["respond-async", "batch-on-error=stop"], "stop"),
        (['x="a, b", batch-on-error=stop'], "stop"),
        (['batch-on-error=stop; note="continue"'], "stop"),
        # A parameter of another preference is not a preference.
        (["respond-async; batch-on-error=stop"], None),
        # Nor is text inside another preference's quoted value.
        (['x="a, batch-on-error=stop, b"'], None),
        (['x="a; batch-on-error=stop"'], None),
        (['x="a\\", batch-on-error=stop"'], None),
        (["batch-on-error=sideways"], None),
        # A quoted-pair stands for the character after its backslash (RFC 9110 §5.6.4).
        (['batch-on-error="st\\op"'], "stop"),
        (['batch-on-error="\\C\\o\\n\\t\\i\\n\\u\\e"'], "continue"),
        (['batch-on-error="st\\\\op"'], None),
        ([], None),
    ],
)
def test_batch_on_error_reads_only_top_level_preferences(
    lines: list[str], policy: str | None
) -> None:
    assert batch_on_error(lines) == policy


def test_the_first_instance_of_a_preference_counts() -> None:
    assert parse_prefer(["wait=10, wait=20"]).get("wait") == "10"


@pytest.mark.parametrize(
    ("lines", "policy"),
    [
        (["batch-on-error=stop, batch-on-error=continue"], "stop"),
        (["batch-on-error=continue", "batch-on-error=stop"], "continue"),
        (['Batch-On-Error="STOP", batch-on-error=continue'], "stop"),
        # MB-PROC-13: an unrecognised first instance leaves the preference absent; the later
        # stop is not read in its place.
        (["batch-on-error=maybe, batch-on-error=stop"], None),
        (["batch-on-error=maybe", "batch-on-error=stop"], None),
    ],
)
def test_only_the_first_batch_on_error_counts(lines: list[str], policy: str | None) -> None:
    assert batch_on_error(lines) == policy
