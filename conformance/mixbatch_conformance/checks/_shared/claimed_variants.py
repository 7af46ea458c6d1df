"""The request fields that ask for each 207 form, error policy and mode a target claims."""

from __future__ import annotations

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.representations import MULTISTATUS_FORMS

__all__ = ["claimed_variants"]


def claimed_variants(ctx: Context) -> list[tuple[str, tuple[tuple[str, str], ...]]]:
    """(label, request fields) for each 207 form, error policy and mode the target claims."""
    out: list[tuple[str, tuple[tuple[str, str], ...]]] = [
        (f"Accept {accept}", (("Accept", accept),))
        for profile, accept, _, _ in MULTISTATUS_FORMS
        if ctx.target.claims(profile)
    ]
    if ctx.target.claims("error-policy"):
        out += [
            (f"batch-on-error={policy}", (("Prefer", f"batch-on-error={policy}"),))
            for policy in ("continue", "stop")
        ]
    if ctx.target.claims("atomic"):
        out.append(("Batch-Mode: atomic", (("Batch-Mode", "atomic"),)))
    return out
