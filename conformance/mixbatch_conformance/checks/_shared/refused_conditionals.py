"""Conditional fields on requests that fail without them (RFC 9110 §13.2.1, MB-PROC-9).

RFC 9110 §13.2.1: "A server MUST ignore all received preconditions if its response to the same
request without those conditions, prior to processing the request content, would have been a
status code other than a 2xx (Successful) or 412 (Precondition Failed). In other words,
redirects and failures that can be detected before significant processing occurs take
precedence over the evaluation of preconditions." MB-PROC-9 holds a part to that evaluation
("exactly as for the standalone request", RFC 9110 §13's own, even where the server makes the
same mistake alone), so a part whose request fails without its conditional fields (405 for a
method the target does not route, 404 for a target that does not exist, 415 for a media type
it refuses) gets that same status whatever conditional field it carries; spec 7.6 says so of an
If-Match on a member that does not exist. One reading is left open: a field that can evaluate
false on content in a media type the target refuses may get 412, since whether that refusal
comes "prior to processing the request content" RFC 9110 does not say.

A comparison with the same request alone sees nothing when the server evaluates the fields
before its refusal in both places, so each case first learns, alone, the answer to the request
without any conditional field, and the parts are judged by that answer. Only a 4xx other than
412 is judged: a 2xx ran (and what it wrote is deleted), a 412 or a 5xx says nothing about the
order. The requests with the fields are sent alone too, and an answer alone other than the
unconditional one is noted (MB-PROC-9 binds "the conditional header fields of a part").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import format_datetime
from urllib.parse import urljoin, urlsplit

from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status

__all__ = ["FailingCase", "conditional_fields", "judge_failing_cases"]

#: An entity tag no representation carries.
FOREIGN_TAG = '"mb-suite-no-such-tag"'
#: A date before any representation was modified.
PAST = "Sun, 06 Nov 1994 08:49:37 GMT"
#: The most parts one batch carries here (a target's max_parts is at least this in practice,
#: and a smaller published one is used instead).
MAX_BATCH = 64
#: The status of content in a media type the target refuses.
MEDIA_REFUSED = 415


@dataclass(frozen=True)
class FailingCase:
    """A request expected to fail without conditional fields: `make` writes it (afresh each
    time, so that a request to a member that does not exist names a new one)."""

    what: str
    make: Callable[[], SubRequest]


def conditional_fields() -> list[tuple[str, str]]:
    """One of each conditional field, each in the value a server that evaluated it would
    answer 412 or 304 for, on some target: `*` and a foreign tag for If-None-Match and
    If-Match, a past If-Unmodified-Since and an If-Modified-Since of now."""
    now = format_datetime(datetime.now(UTC), True)
    return [
        ("If-None-Match", "*"),
        ("If-None-Match", FOREIGN_TAG),
        ("If-Match", FOREIGN_TAG),
        ("If-Match", "*"),
        ("If-Unmodified-Since", PAST),
        ("If-Modified-Since", now),
    ]


def _allowed(plain: int, field: tuple[str, str]) -> frozenset[int]:
    """What RFC 9110 allows a request carrying `field` whose request without it fails with
    `plain`."""
    name, value = field
    can_fail = name in ("If-Match", "If-Unmodified-Since") or (name, value) == (
        "If-None-Match",
        "*",
    )
    if plain == MEDIA_REFUSED and can_fail:
        # RFC 9110 §13.2.1 sets aside only a response decided "prior to processing the request
        # content", and whether refusing the content's media type comes before it is left
        # open: a field that may evaluate false may also get 412. A foreign tag in
        # If-None-Match never matches and If-Modified-Since never fails an unsafe method
        # (§13.1.3), so those keep the 415 all the same.
        return frozenset({plain, 412})
    # RFC 9110 §13.2.1: "A server MUST ignore all received preconditions if its response to
    # the same request without those conditions ... would have been a status code other than
    # a 2xx (Successful) or 412 (Precondition Failed)."
    return frozenset({plain})


def _describe(sub: SubRequest, field: tuple[str, str]) -> str:
    return f"{sub.method} {sub.target} with {field[0]}: {field[1]}"


def _location(ctx: Context, base: str, value: str | None) -> str | None:
    """The path a Location value names on the target's own origin (None without one)."""
    if not value:
        return None
    url = urlsplit(urljoin(f"{ctx.scheme}://{ctx.authority}{base}", value.strip()))
    return url.path if url.netloc.lower() == ctx.authority.lower() and url.path else None


def _undo(ctx: Context, judge: Judge, sub: SubRequest, status: int, location: str | None) -> None:
    """Delete what a request that ran created: its Location, or the target a PUT created (201);
    a member a PUT replaced is the check's own and stays."""
    created = sub.target if sub.method == "PUT" and status == 201 else None
    for path in {location, created} - {None}:
        assert path is not None
        ctx.alone(judge, SubRequest("DELETE", path))


def judge_failing_cases(
    ctx: Context, judge: Judge, cases: list[FailingCase], requirement: str = "MB-PROC-9"
) -> None:
    """Learn each case's answer alone without conditional fields, then judge the parts that
    carry each field, where that answer is a 4xx other than 412, by it."""
    fields = conditional_fields()
    judged: list[tuple[FailingCase, int]] = []
    for case in cases:
        sub = case.make()
        got = ctx.alone(judge, sub)
        if 200 <= got.status < 300:
            _undo(ctx, judge, sub, got.status, _location(ctx, sub.target, got.get("Location")))
        if not 400 <= got.status < 500 or got.status == 412:
            judge.note(f"{case.what} without conditional fields answered {got.status}: not judged")
            continue
        judged.append((case, got.status))
    if not judged:
        judge.not_applicable("no request here fails without conditional fields with a 4xx")
    variants: list[tuple[FailingCase, int, tuple[str, str], SubRequest]] = []
    for case, plain in judged:
        for field in fields:
            base = case.make()
            sub = SubRequest(base.method, base.target, (*base.headers, field), base.body)
            variants.append((case, plain, field, sub))
    for case, plain, field, sub in variants:
        alone = ctx.alone(judge, sub)
        if 200 <= alone.status < 300:
            _undo(ctx, judge, sub, alone.status, _location(ctx, sub.target, alone.get("Location")))
        if alone.status not in _allowed(plain, field):
            # MB-PROC-9 binds "the conditional header fields of a part"; no requirement binds
            # the request alone, so its answer is noted and the parts are judged all the same.
            judge.note(
                f"{_describe(sub, field)}, alone, answered {alone.status}; without the field "
                f"{case.what} answers {plain}"
            )
    limit = ctx.limit("max_parts")
    size = MAX_BATCH if limit is None else max(1, min(MAX_BATCH, limit))
    for start in range(0, len(variants), size):
        chunk = variants[start : start + size]
        subs = [sub for *_, sub in chunk]
        env = expect_processed(ctx, judge, ctx.batch(judge, subs), [s.content_id for s in subs])
        for i, (case, plain, field, sub) in enumerate(chunk):
            status = part_status(env, i)
            if status is not None and 200 <= status < 300:
                location = _location(ctx, ctx.batch_path, env.parts[i].get("Location"))
                _undo(ctx, judge, sub, status, location)
            # MB-PROC-9: "evaluate the conditional header fields of a part (RFC 9110 §13)
            # exactly as for the standalone request"; RFC 9110 §13.2.1: "A server MUST ignore
            # all received preconditions if its response to the same request without those
            # conditions ... would have been a status code other than a 2xx (Successful) or 412
            # (Precondition Failed)".
            judge.expect(
                f"part {start + i} ({_describe(sub, field)}); without the field {case.what} "
                f"answers {plain}",
                status,
                _allowed(plain, field),
                requirement,
            )
