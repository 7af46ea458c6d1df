"""Property checks (standard tier): hypothesis against the live target.

Theory of operation: each check states one property and hands it to
`_shared.property_runs.hold`, which runs it with the run's seed and example budget, shrinks a
failure to a minimal example, and folds that example's exchanges into the check's Judge.

Properties: a batch equals its parts sent alone (MB-SUB-1, MB-RESP-4); metamorphic variants
of one batch agree (one batch versus batches of one, split in two, padded with preamble,
epilogue and transport padding, safe parts permuted: MB-PROC-2, MB-WIRE-9, MB-WIRE-11);
the three representations agree (MB-MULTI-5); conditional parts agree with the same request
alone (MB-PROC-9); the stop policy skips exactly the parts after the first failure
(MB-PROC-6); pipelined plain and batch requests are answered in order (MB-PIPE-1).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from mixbatch_conformance.checks._shared.alone import expect_same_as_alone
from mixbatch_conformance.checks._shared.hops import PIPELINING_NEEDS_ONE_CONNECTION
from mixbatch_conformance.checks._shared.property_runs import hold
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import (
    broken_by,
    entries_from_json,
    entries_from_multipart,
    entries_from_xml,
)
from mixbatch_conformance.core.validator import read_multipart


def _entries(
    ctx: Context, judge: Judge, parts: tuple[SubRequest, ...], boundary: str, **kw: Any
) -> list[Any]:

    body = compose_batch(parts, boundary, **kw)
    quoted = boundary if all(c.isalnum() or c in "_-'+." for c in boundary) else f'"{boundary}"'
    head = [("Content-Type", f"multipart/mixed; boundary={quoted}")]
    resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body))
    env = expect_processed(ctx, judge, resp, [p.content_id for p in parts])
    return [e.comparable(ctx.target.volatile_headers) for e in entries_from_multipart(env)]


@checker(
    "property-batch-equals-alone",
    ("MB-SUB-1", "MB-RESP-4", "MB-RESP-1", "MB-PART-8", "MB-PART-13"),
    "For generated valid batches each part's status, fields and body equal the same request sent alone, compared as spec 3.2.4 says.",
    tier="smoke",
    state=State.READ_ONLY,
    draws_examples=True,
)
def batch_equals_alone(ctx: Context, judge: Judge) -> None:
    # strategies imports hypothesis (about 0.4 s); smoke runs never reach a property.
    from mixbatch_conformance.checks._shared.strategies import batches

    def body(ctx: Context, j: Judge, batch: Any) -> None:
        body = compose_batch(batch.parts, batch.boundary)
        head = [("Content-Type", batch.content_type)]
        resp = ctx.send(j, ctx.raw_request("POST", ctx.batch_path, head, body))
        env = expect_processed(ctx, j, resp, [p.content_id for p in batch.parts])
        for i, sub in enumerate(batch.parts):
            alone = ctx.alone(j, sub)
            part = env.parts[i]
            # MB-SUB-1 and MB-RESP-4, compared as spec 3.2.4 says (see _shared.alone).
            expect_same_as_alone(
                ctx,
                j,
                f"part {i} ({sub.method} {sub.target})",
                sub,
                (part_status(env, i), part.fields, part.body),
                (alone.status, alone.headers, alone.body),
            )
            j.expect(f"part {i} outcome", part.get("Batch-Outcome"), {None}, "MB-PROC-5")

    hold(ctx, judge, batches(ctx, max_parts=5), body, "batch equals alone")


@checker(
    "property-metamorphic-variants",
    ("MB-PROC-2", "MB-WIRE-9", "MB-WIRE-11", "MB-RESP-1"),
    "A batch, its parts as batches of one, its two halves, its padded form and its permuted safe parts agree.",
    tier="smoke",
    state=State.READ_ONLY,
    draws_examples=True,
)
def metamorphic(ctx: Context, judge: Judge) -> None:
    from hypothesis import strategies as st

    # strategies imports hypothesis (about 0.4 s); smoke runs never reach a property.
    from mixbatch_conformance.checks._shared.strategies import batches

    def body(ctx: Context, j: Judge, drawn: Any) -> None:
        batch, variant, perm_seed = drawn
        base = _entries(ctx, j, batch.parts, batch.boundary)
        parts = batch.parts
        if variant == "batches-of-one":
            other = [e for p in parts for e in _entries(ctx, j, (p,), batch.boundary)]
        elif variant == "split":
            half = max(1, len(parts) // 2)
            other = _entries(ctx, j, parts[:half], batch.boundary)
            other += _entries(ctx, j, parts[half:], batch.boundary) if parts[half:] else []
        elif variant == "padded":
            other = _entries(
                ctx,
                j,
                parts,
                batch.boundary,
                preamble=b"preamble line",
                epilogue=b"epilogue\r\n",
                padding=b" \t",
            )
        else:
            order = list(range(len(parts)))
            random.Random(perm_seed).shuffle(order)
            permuted = _entries(ctx, j, tuple(parts[k] for k in order), batch.boundary)
            other = [None] * len(parts)
            for pos, k in enumerate(order):
                other[k] = permuted[pos]
        j.expect(f"{variant} agrees with the batch", other, [base], "MB-PROC-2")

    strategy = st.tuples(
        batches(ctx, max_parts=5, writes=False),
        st.sampled_from(["batches-of-one", "split", "padded", "permuted-safe"]),
        st.integers(0, 2**16),
    )
    hold(ctx, judge, strategy, body, "metamorphic variants agree")


@checker(
    "property-representations-equivalent",
    ("MB-MULTI-5",),
    "For generated batches the multipart, XML and JSON results carry the same statuses, fields and bodies.",
    tier="standard",
    state=State.READ_ONLY,
    draws_examples=True,
)
def representations(ctx: Context, judge: Judge) -> None:
    # strategies imports hypothesis (about 0.4 s); smoke runs never reach a property.
    from mixbatch_conformance.checks._shared.strategies import batches

    forms: list[tuple[str, Callable[[bytes], tuple[list[Any], str | None]]]] = []
    if ctx.target.claims("xml"):
        forms.append(("application/xml", entries_from_xml))
    if ctx.target.claims("json"):
        forms.append(("application/vnd.mixbatch.multistatus+json", entries_from_json))
    if not forms:
        judge.not_applicable("the target claims neither the xml nor the json profile")

    def body(ctx: Context, j: Judge, batch: Any) -> None:
        base = _entries(ctx, j, batch.parts, batch.boundary)
        for accept, reader in forms:
            resp = ctx.batch(j, batch.parts, boundary=batch.boundary, headers=(("Accept", accept),))
            j.require("status", resp.status, {207}, "MB-MULTI-5")
            entries, problem = reader(resp.body)
            why = broken_by(problem, "MB-MULTI-5")
            j.require(f"{accept} readable", problem, {None}, why, allowed_text="readable")
            got = [e.comparable(ctx.target.volatile_headers) for e in entries]
            j.expect(f"{accept} agrees with multipart", got, [base], "MB-MULTI-5")

    hold(
        ctx,
        judge,
        batches(ctx, max_parts=4, writes=False, sender_form_only=True),
        body,
        "forms agree",
    )


@checker(
    "property-conditional-parts",
    ("MB-PROC-9",),
    "Generated If-Match and If-None-Match parts give the status the same request gets alone.",
    profile="conditional",
    tier="standard",
    state=State.READ_ONLY,
    draws_examples=True,
)
def conditional(ctx: Context, judge: Judge) -> None:
    # hypothesis takes about 0.4 s to import; smoke runs never reach a property.
    from hypothesis import strategies as st

    path = ctx.path(ctx.resource(judge, "etag_resource"))
    first = ctx.alone(judge, SubRequest("GET", path))
    etag = first.get("ETag")
    if first.status != 200 or not etag:
        judge.setup_error(f"GET {path} answered {first.status} with ETag {etag!r}")
    tags = st.sampled_from(
        [etag, '"mb-prop-other"', "*", f"W/{etag}" if not etag.startswith("W/") else etag]
    )
    cond = st.lists(
        st.tuples(st.sampled_from(["If-Match", "If-None-Match"]), tags),
        min_size=1,
        max_size=2,
        unique_by=lambda t: t[0],
    )

    def body(ctx: Context, j: Judge, conds: Any) -> None:
        subs = tuple(SubRequest("GET", path, tuple(c)) for c in conds)
        resp = ctx.batch(j, subs)

        env = expect_processed(ctx, j, resp, [s.content_id for s in subs])
        for i, s in enumerate(subs):
            alone = ctx.alone(j, s)
            j.expect(f"part {i} {s.headers!r}", part_status(env, i), {alone.status}, "MB-PROC-9")

    hold(ctx, judge, st.lists(cond, min_size=1, max_size=3), body, "conditional parts agree")


@checker(
    "property-stop-policy",
    ("MB-PROC-6", "MB-RESP-5"),
    "Under batch-on-error=stop exactly the parts after the first status of 400 or more are skipped.",
    profile="error-policy",
    tier="standard",
    state=State.READ_ONLY,
    draws_examples=True,
)
def stop_policy(ctx: Context, judge: Judge) -> None:
    # hypothesis takes about 0.4 s to import; smoke runs never reach a property.
    from hypothesis import strategies as st

    ok = ctx.path(ctx.resource(judge, "ok"))
    nf = ctx.path(ctx.resource(judge, "not_found"))

    def body(ctx: Context, j: Judge, pattern: Any) -> None:
        subs = tuple(SubRequest("GET", ok if good else nf) for good in pattern)
        resp = ctx.batch(j, subs, headers=(("Prefer", "batch-on-error=stop"),))
        env = expect_processed(ctx, j, resp, [s.content_id for s in subs])
        failed_at = pattern.index(False) if False in pattern else len(pattern)
        for i in range(len(subs)):
            if i <= failed_at:
                j.expect(
                    f"part {i} ran", part_status(env, i), {200 if pattern[i] else 404}, "MB-PROC-6"
                )
            else:
                j.expect(
                    f"part {i} skipped", env.parts[i].get("Batch-Outcome"), {"skipped"}, "MB-PROC-6"
                )
                j.expect(f"part {i} has no status", part_status(env, i), {None}, "MB-RESP-5")

    hold(ctx, judge, st.lists(st.booleans(), min_size=1, max_size=6), body, "stop policy")


def _shape(judge: Judge, resp: Any) -> object:
    """What identifies a response in a pipeline: its body, or its part count for a batch."""
    if resp.media_type == "multipart/mixed":
        _, params = judge.media_type("batch Content-Type", resp.get("Content-Type"), "MB-WIRE-3")
        return len(read_multipart(resp.body, params.get("boundary", "")).parts)
    return resp.body


@checker(
    "property-pipelining-order",
    ("MB-PIPE-1",),
    "Generated pipelines of plain and batch requests on one connection are answered in order.",
    profile="pipelining",
    tier="standard",
    state=State.READ_ONLY,
    direct_only=PIPELINING_NEEDS_ONE_CONNECTION,
    draws_examples=True,
)
def pipelining(ctx: Context, judge: Judge) -> None:
    from hypothesis import strategies as st

    # strategies imports hypothesis (about 0.4 s); smoke runs never reach a property.
    from mixbatch_conformance.checks._shared.strategies import batches

    ok = ctx.path(ctx.resource(judge, "ok"))
    nf = ctx.path(ctx.resource(judge, "not_found"))
    item = st.one_of(
        st.sampled_from([("GET", ok), ("GET", nf)]), batches(ctx, max_parts=3, writes=False)
    )

    def body(ctx: Context, j: Judge, items: Any) -> None:
        requests = []
        for it in items:
            if isinstance(it, tuple):
                requests.append(ctx.raw_request(it[0], it[1]))
            else:
                head = [("Content-Type", it.content_type)]
                requests.append(
                    ctx.raw_request(
                        "POST", ctx.batch_path, head, compose_batch(it.parts, it.boundary)
                    )
                )
        alone = [ctx.send(j, r) for r in requests]
        want = [(r.status, r.media_type, _shape(j, r)) for r in alone]
        got = [
            (ex.response.status, ex.response.media_type, _shape(j, ex.response))
            if ex.response
            else None
            for ex in ctx.send_many(j, requests)
        ]
        j.expect("responses in request order", got, [want], "MB-PIPE-1")

    hold(ctx, judge, st.lists(item, min_size=2, max_size=6), body, "pipelined order")
