"""Work split into batches the target's published limits admit (spec 9.1, MB-LIMIT-3).

Theory of operation: spec 9.1 lets a server choose its limits ("A server may choose other
values; what it must do is enforce and publish them"), and MB-STATUS-3 answers a batch over one
413 or 431 whatever its parts are. MB-LIMIT-3: "A client that knows a server's limits MUST NOT
send a batch that exceeds them; it splits the work into several batches instead". A check that
judges what parts meet therefore sends them in runs within the published `max_parts` and
`max_batch_bytes`, leaves out a part that no batch could carry (its header section over
`max_part_header_bytes` or `max_part_fields`, its body over `max_part_bytes`), and takes a 413
or 431 that names a limit for what it says, a refusal it does not judge.
"""

from __future__ import annotations

from collections.abc import Sequence

from mixbatch_conformance.core.context import (
    BATCH_BOUNDARY,
    Context,
    SubRequest,
    compose_batch,
    problem_of,
)
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.transport.http import Response

__all__ = ["batches_within_limits", "header_section", "limit_refused", "within_max_parts"]


def within_max_parts[T](
    ctx: Context, judge: Judge, items: Sequence[T], per_item: int = 1
) -> list[list[T]]:
    """`items` in runs whose batches, `per_item` parts for each item, stay within the published
    `max_parts` (all in one run when none is published); N/A when one item's parts exceed it.

    MB-LIMIT-3: "A client that knows a server's limits MUST NOT send a batch that exceeds them;
    it splits the work into several batches instead": a batch over `max_parts` is answered 413
    (MB-LIMIT-1) whatever its parts are.
    """
    limit = ctx.limit("max_parts")
    if limit is None:
        return [list(items)] if items else []
    if limit < per_item:
        judge.not_applicable(
            f"the published max_parts {limit} is fewer than the {per_item} parts one step needs"
        )
    room = limit // per_item
    return [list(items[i : i + room]) for i in range(0, len(items), room)]


def header_section(sub: SubRequest) -> bytes:
    """The part header section `Context.batch` writes for `sub`: its field lines, each with the
    CRLF that ends it, without the empty line (what spec 9.1's `max_part_header_bytes` counts)."""
    dash = f"--{BATCH_BOUNDARY}\r\n".encode("latin-1")
    written = compose_batch([sub], BATCH_BOUNDARY)
    return written[len(dash) : written.index(b"\r\n\r\n", len(dash)) + 2]


def _over_a_part_limit(ctx: Context, sub: SubRequest) -> str | None:
    section = header_section(sub)
    used = {
        "max_part_header_bytes": len(section),
        "max_part_fields": section.count(b"\r\n"),
        "max_part_bytes": len(sub.body),
        "max_batch_bytes": len(compose_batch([sub], BATCH_BOUNDARY)),
    }
    for name, count in used.items():
        limit = ctx.limit(name)
        if limit is not None and count > limit:
            return f"{name} {count} over the published {limit}"
    return None


def batches_within_limits(
    ctx: Context, judge: Judge, subs: Sequence[SubRequest]
) -> list[list[SubRequest]]:
    """`subs` in order, in runs whose batches keep to the published `max_parts` and
    `max_batch_bytes` (one run when neither is published); a part no batch within the limits
    could carry is left out, with a note."""
    parts = ctx.limit("max_parts")
    octets = ctx.limit("max_batch_bytes")
    runs: list[list[SubRequest]] = [[]]
    for sub in subs:
        over = _over_a_part_limit(ctx, sub)
        if over is not None:
            judge.note(f"{sub.method} <{sub.target}> left out: {over}")
            continue
        run = runs[-1]
        full = parts is not None and len(run) >= parts
        if run and (
            full
            or (octets is not None and len(compose_batch([*run, sub], BATCH_BOUNDARY)) > octets)
        ):
            runs.append([])
        runs[-1].append(sub)
    return [run for run in runs if run]


def limit_refused(resp: Response) -> str | None:
    """The limit a 413 or 431 refusal names in its problem document's `limit` member
    (MB-LIMIT-4), or None when `resp` is no such refusal."""
    if resp.status not in (413, 431):
        return None
    doc = problem_of(resp)
    name = doc.get("limit") if doc else None
    return name if isinstance(name, str) and name else None
