"""Dot segments in a part's target, removed whatever form the reference is written in (3.2.2).

Theory of operation: MB-PART-5 resolves a Content-Id "against the batch request's target URI
(RFC 9110 §7.1) by the algorithm of RFC 3986 §5.2". RFC 3986 §5.2.2 applies
`remove_dot_segments` to the reference's path in every branch that takes it: an absolute URI,
an absolute path and a relative path alike. A receiver that takes an absolute URI on its own
origin as "already resolved", or normalises only the relative form, routes `/a/../echo` as
written. The check writes the `echo` resource's path with four dot-segment detours in each of
the three forms spec 3.2.2 allows (a network-path reference is refused by MB-SUB-2, so it is not
sent), each with a query of its own that holds `/../` and `/./` (text of the query, which no
step of the resolution touches), and reads from the echo the target each part's resource
received: the result of `checks._shared.resolution.resolve`, computed by the suite, never what
the server under test says. Segments that only look like dot segments (`...`, `..mb`, `.mb`,
`mb..`) are detours too, each followed by the `..` that removes it: a receiver that takes any
segment starting with `..` for one climbs a level too many. The batch is split to stay within a
published `max_parts`. It writes nothing.

Dot segments may also climb above the root: RFC 3986 §5.2.4 drops a `..` that has no segment
left to remove ("/../a" is "/a"), so `</../echo>`, `</mb-a/../../echo>`, the same paths in an
absolute URI on the batch's origin and a relative path with one `..` more than the batch
endpoint's directory has segments all resolve to the echo's own path. They are sent in the same
batch: a receiver that refuses such a reference as leaving the origin, or routes it with the
excess `..` kept, fails the echo's target.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.part_limits import within_max_parts
from mixbatch_conformance.checks._shared.resolution import resolve
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.echo import read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

#: Detours put before the echo's last segment, each resolving back to where it started: dot
#: segments, and segments that only look like them (`...`, `..mb`, `.mb`, `mb..`: RFC 3986
#: §5.2.4 removes "." and ".." only), each taken away again by the ".." after it.
DETOURS = (
    "mb-a/../",
    "./",
    "mb-a/mb-b/../../",
    "mb-a/./../",
    ".../../",
    "..mb/../",
    ".mb/../",
    "mb../../",
)
#: Query text that looks like dot segments: RFC 3986 §5.2.2 removes them from the path only,
#: so the query reaches the resource as written.
QUERY_DOTS = "mb-q=/mb-a/../mb-b/./c/.."
#: The reference forms spec 3.2.2 allows (its table), as `Context.ref` writes them.
FORMS = ("absolute-path", "relative", "absolute-uri")
#: Detours put before an absolute path's first segment that climb above the root: a `..` with
#: nothing left to remove, two of them, and one after a segment it removes.
ABOVE_ROOT = ("../", "../../", "mb-a/../../")


def above_root(ctx: Context, echo: str) -> list[tuple[str, str]]:
    """(form, reference) for the echo's path with dot segments that climb above the root, in
    each reference form: RFC 3986 §5.2.4 drops the excess `..`, so each resolves to `echo`."""
    rest = echo.lstrip("/")
    origin = f"{ctx.scheme}://{ctx.authority}"
    out = [("absolute-path", f"/{d}{rest}") for d in ABOVE_ROOT]
    out += [("absolute-uri", f"{origin}/{d}{rest}") for d in ABOVE_ROOT]
    # The batch endpoint's directory has batch_path.count("/") - 1 segments: one `..` more
    # than that climbs above the root whatever its depth.
    climb = "../" * ctx.batch_path.count("/")
    out += [("relative", f"{climb}{rest}"), ("relative", f"mb-a/../{climb}../{rest}")]
    return out


def _spelled(ctx: Context, echo: str, form: str, detour: str) -> str:
    """`echo` as a reference of `form`, with `detour` before its last segment."""
    plain = ctx.ref(echo, form)
    head, sep, last = plain.rpartition("/")
    return f"{head}{sep}{detour}{last}"


@checker(
    "dot-segments-removed-in-every-reference-form",
    ("MB-PART-5",),
    "A reference to the echo resource holding dot segments (and segments that only look like them, removed by a later ..), some climbing above the root, written as an absolute path, a relative path and an absolute URI on the batch's origin, reaches the resource with the path's dot segments removed (an excess .. dropped) and its query as written.",
    state=State.READ_ONLY,
)
def dot_segments_removed_in_every_reference_form(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    subs: list[SubRequest] = []
    wanted: list[str] = []
    for form in FORMS:
        for n, detour in enumerate(DETOURS):
            ref = f"{_spelled(ctx, echo, form, detour)}?mb-dots={form}-{n}&{QUERY_DOTS}"
            subs.append(SubRequest("GET", ref))
            wanted.append(resolve(ctx.batch_path, ref))
    for n, (form, spelled) in enumerate(above_root(ctx, echo)):
        ref = f"{spelled}?mb-dots=above-{form}-{n}"
        subs.append(SubRequest("GET", ref))
        # RFC 3986 §5.2.4 drops the `..` that finds no segment to remove: the echo's own path.
        wanted.append(resolve(ctx.batch_path, ref))
    for run in within_max_parts(ctx, judge, list(zip(subs, wanted, strict=True))):
        _judge_run(ctx, judge, run)


def _judge_run(ctx: Context, judge: Judge, run: list[tuple[SubRequest, str]]) -> None:
    """One batch of the references, each judged by the target its echo received."""
    subs = [sub for sub, _ in run]
    resp = ctx.batch(judge, subs)
    # MB-PART-5: every reference here resolves, dot segments and all, to the echo on the
    # batch's origin (RFC 3986 §5.2.4 drops a `..` above the root), so nothing is refused.
    judge.require("top-level status", resp.status, {200}, "MB-PART-5")
    env = expect_processed(ctx, judge, resp, [s.content_id for s in subs], (), "MB-PART-5")
    for i, (sub, target) in enumerate(run):
        label = f"part {i} <{sub.target}>"
        # MB-PART-5: "MUST use the result as the sub-request's target URI"; the result has no
        # dot segments (RFC 3986 §5.2.2), so the echo answers 200 as it does at its own path.
        judge.expect(f"{label} status", part_status(env, i), {200}, "MB-PART-5")
        if part_status(env, i) != 200:
            continue
        seen = read_echo(env.parts[i].body)
        if seen is None:
            judge.expect_true(label, False, "no echo description", "the echo's", "MB-TEST-2")
            continue
        judge.expect(f"{label} target received", seen.target, {target}, "MB-PART-5")
