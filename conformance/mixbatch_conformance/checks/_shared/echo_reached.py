"""A part that named the echo, judged by what the echo received (spec 3.2.2, 8.3)."""

from __future__ import annotations

from mixbatch_conformance.checks._shared.resolution import resolve
from mixbatch_conformance.core.echo import read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.validator import Part

__all__ = ["expect_echo_reached"]


def expect_echo_reached(
    judge: Judge, label: str, part: Part, batch_path: str, ref: str, authority: str
) -> None:
    """`part`'s echo names the target RFC 3986 resolves `ref` to against `batch_path`
    (MB-PART-5) and `authority`, case aside (MB-PART-13, RFC 3986 §6.2.2.1)."""
    seen = read_echo(part.body)
    if seen is None:
        judge.expect_true(label, False, "no echo description", "the echo's", "MB-TEST-2")
        return
    # MB-PART-5: "use the result as the sub-request's target URI".
    judge.expect(f"{label} target received", seen.target, {resolve(batch_path, ref)}, "MB-PART-5")
    # MB-PART-13: "give each sub-request the batch request's authority".
    judge.expect(
        f"{label} authority received",
        (seen.authority or "").lower(),
        {authority.lower()},
        "MB-PART-13",
    )
