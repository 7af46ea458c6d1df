"""The modes that stop a batch at its first failing part (spec 7.4, 7.5), as a target offers
them: the stop policy of the error-policy profile (MB-PROC-6) and the atomic profile
(MB-PROC-8)."""

from __future__ import annotations

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge

__all__ = ["ATOMIC", "STOP", "stopping_modes"]

STOP = ("Prefer", "batch-on-error=stop")
ATOMIC = ("Batch-Mode", "atomic")


def stopping_modes(ctx: Context, judge: Judge) -> list[tuple[tuple[str, str], str, str]]:
    """(request field, name, the requirement that stops) for each stopping mode offered; N/A
    when the target offers neither."""
    modes = []
    if ctx.target.claims("error-policy"):
        modes.append((STOP, "stop", "MB-PROC-6"))
    if ctx.target.claims("atomic"):
        modes.append((ATOMIC, "atomic", "MB-PROC-8"))
    if not modes:
        judge.not_applicable("the target claims neither the error-policy nor the atomic profile")
    return modes
