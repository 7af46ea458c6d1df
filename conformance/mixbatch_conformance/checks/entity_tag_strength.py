"""Entity tags compared by strength: If-Match strongly, If-None-Match weakly (spec 5.2, 7.6).

Theory of operation: RFC 9110 §8.8.3.2 defines two comparisons of entity tags. The strong one
holds when "both entity tags are not weak and their opaque-tags match character-by-character";
the weak one when "their opaque-tags match character-by-character, regardless of either or both
being tagged as weak". If-Match uses the strong comparison (§13.1.1), If-None-Match the weak one
(§13.1.2), and MB-PROC-9 names both ("the strong comparison for `If-Match`, the weak one for
`If-None-Match`"). So the same opaque-tag sent in either strength matches for If-None-Match
(a GET or HEAD is 304), and for If-Match only when neither the sent nor the current tag is
weak: a weak current tag, such as a collection retrieval's aggregate tag (MB-METHOD-7), fails
every If-Match with a tag (412), its own spelling and its strong spelling alike.

Each check reads the current tag with a plain GET and sends it back in its own strength and in
the other (`W/` added or taken off), in If-Match and in If-None-Match, on GET and HEAD:
- `entity-tag-strength-compared`: parts to `etag_resource` (MB-PROC-9);
- `collection-tag-strength-compared`: collection retrievals alone (MB-STATUS-7, spec 5.2: "a
  failing `If-Match` ... gives 412 (Precondition Failed)"), and as parts where the target
  offers the conditional profile (MB-PROC-9); each 304 alone carries the ETag the 200 carries
  and a Vary naming Accept (spec 4.2, MB-METHOD-4), whichever strength the request sent.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.part_limits import within_max_parts
from mixbatch_conformance.checks._shared.requests import etag_of
from mixbatch_conformance.checks._shared.tag_alterations import other_strength
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

RETRIEVAL = ("Accept", "multipart/mixed")
METHODS = ("GET", "HEAD")

#: (method, field, value sent, the status RFC 9110 gives it)
Case = tuple[str, str, str, int]


def _weak(tag: str) -> bool:
    return tag.startswith("W/")


def _cases(current: str, unconditional: int) -> list[Case]:
    """Each method and field with the current tag in its own strength and in the other."""
    out: list[Case] = []
    for method in METHODS:
        for sent in (current, other_strength(current)):
            # RFC 9110 §13.1.1 with §8.8.3.2's strong comparison: a match needs both tags
            # strong; "An origin server that evaluates an If-Match condition MUST NOT perform
            # the requested method if the condition evaluates to false".
            strong = not _weak(current) and not _weak(sent)
            out.append((method, "If-Match", sent, unconditional if strong else 412))
            # RFC 9110 §13.1.2 with the weak comparison: the opaque-tags match, so a GET or
            # HEAD is answered 304.
            out.append((method, "If-None-Match", sent, 304))
    return out


def _current(
    ctx: Context, judge: Judge, path: str, headers: tuple[tuple[str, str], ...]
) -> tuple[str, int]:
    got = ctx.alone(judge, SubRequest("GET", path, headers))
    etag = (got.get("ETag") or "").strip(" \t")
    if got.status != 200 or not etag.removeprefix("W/").startswith('"'):
        judge.setup_error(f"GET {path} alone answered {got.status} with ETag {etag!r}")
    return etag, got.status


def _parts(
    ctx: Context,
    judge: Judge,
    path: str,
    headers: tuple[tuple[str, str], ...],
    cases: list[Case],
    label: str,
) -> None:
    subs = [SubRequest(m, path, (*headers, (f, v))) for m, f, v, _ in cases]
    at = 0
    for run in within_max_parts(ctx, judge, subs):
        env = expect_processed(ctx, judge, ctx.batch(judge, run), [s.content_id for s in run])
        for i in range(len(run)):
            method, field, sent, want = cases[at + i]
            # MB-PROC-9: "The evaluation is the one RFC 9110 §13 defines (the strong comparison
            # for `If-Match`, the weak one for `If-None-Match` ...)".
            judge.expect(
                f"{method} {path} part with {field}: {sent} ({label})",
                part_status(env, i),
                {want},
                "MB-PROC-9",
            )
        at += len(run)


@checker(
    "entity-tag-strength-compared",
    ("MB-PROC-9",),
    "GET and HEAD parts to the etag resource whose If-Match or If-None-Match holds its current tag in its own strength and in the other (W/ added or taken off): If-None-Match is 304 either way (weak comparison), If-Match is 200 only when both tags are strong, else 412 (strong comparison).",
    profile="conditional",
    state=State.READ_ONLY,
)
def entity_tag_strength_compared(ctx: Context, judge: Judge) -> None:
    path, _ = etag_of(ctx, judge)
    etag, status = _current(ctx, judge, path, ())
    _parts(ctx, judge, path, (), _cases(etag, status), f"its current tag is {etag}")


@checker(
    "collection-tag-strength-compared",
    ("MB-STATUS-7", "MB-PROC-9", "MB-METHOD-4"),
    "GET and HEAD collection retrievals, alone and as parts, whose If-Match or If-None-Match holds the aggregate tag in its own strength and in the other (W/ added or taken off): If-None-Match is 304 either way, If-Match is 200 only when both tags are strong, so a weak aggregate tag fails every If-Match with 412; each 304 alone carries the 200's aggregate ETag and a Vary naming Accept.",
    profile="collection-get",
    state=State.READ_ONLY,
)
def collection_tag_strength_compared(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "collection"))
    etag, status = _current(ctx, judge, coll, (RETRIEVAL,))
    cases = _cases(etag, status)
    label = f"the aggregate tag is {etag}"
    for method, field, sent, want in cases:
        got = ctx.send(judge, ctx.raw_request(method, coll, [RETRIEVAL, (field, sent)]))
        # MB-STATUS-7 (spec 5.2): "A conditional retrieval is evaluated as RFC 9110 §13.2.2
        # evaluates any `GET`, against the aggregate validators ...: a matching `If-None-Match`
        # ... gives 304 ..., and a failing `If-Match` ... gives 412"; RFC 9110 §8.8.3.2 decides
        # which match.
        judge.expect(f"{method} {coll} with {field}: {sent} ({label})", got.status, {want},
                     "MB-STATUS-7")  # fmt: skip
        if got.status == 304:
            # Spec 4.2 (MB-METHOD-4): "A 304 or 204 answer to a collection retrieval carries
            # the aggregate `ETag` and `Vary: Accept` that the 200 would have carried": the tag
            # the 200 carries, not the one the request sent.
            vary = {n.strip().lower() for v in got.get_all("Vary") for n in v.split(",")}
            judge.expect(
                f"{method} {coll} with {field}: {sent}: the 304's ETag and Vary names Accept",
                ((got.get("ETag") or "").strip(), "accept" in vary),
                {(etag, True)},
                "MB-METHOD-4",
            )
    if ctx.target.claims("conditional"):
        _parts(ctx, judge, coll, (RETRIEVAL,), cases, label)
