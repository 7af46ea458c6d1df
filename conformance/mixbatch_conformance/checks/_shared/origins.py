"""The batch's own origin written the other ways MB-SUB-2 makes equal to it (spec 8.3)."""

from __future__ import annotations

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.transport.urls import DEFAULT_PORTS

__all__ = ["origin_spellings"]


def origin_spellings(ctx: Context) -> list[str]:
    """`scheme://authority` written the ways MB-SUB-2 makes equal to the batch's own."""
    default = ctx.port == DEFAULT_PORTS[ctx.scheme]
    out = [f"{ctx.scheme}://{ctx.host}:0{ctx.port}", f"{ctx.scheme}://{ctx.host}:00{ctx.port}"]
    if default:
        out += [f"{ctx.scheme}://{ctx.host}:", f"{ctx.scheme}://{ctx.host}:{ctx.port}"]
    if any(c.isalpha() for c in ctx.host.strip("[]")):
        out.append(f"{ctx.scheme}://{ctx.host.upper()}{'' if default else f':{ctx.port}'}")
    return out
