"""Conditional parts evaluated against the state the parts before them left (spec 7.2, 7.6).

Theory of operation: MB-PROC-9 evaluates a part's conditional fields "exactly as for the
standalone request", and MB-PROC-2 runs the parts "one at a time, each starting after the
previous one finished": a part's precondition is therefore evaluated when the part runs,
against what the writes before it in the same batch left, never against the state the batch
found. A server that evaluates every part's preconditions up front (while validating the
envelope, or against a snapshot taken for an atomic batch) answers them as if the earlier
writes had not happened. The check creates a member in the sandbox, learns its ETag alone, and
sends [PUT of another document, PUT with If-Match: the old tag, GET with If-None-Match: the
old tag, GET]: the old tag is stale once the first PUT ran, so the second PUT is 412 (RFC 9110
§13.1.1) and the GET is 200 (§13.1.2). It does so in every declared form, plain, under
batch-on-error=stop and as an atomic batch: under stop and atomic the 412 fails the batch
(spec 7.4), so the parts after it are skipped. A second batch deletes the member and then PUTs
it with If-None-Match: *, true once the member is gone, so the PUT gets what a PUT to a member
that does not exist gets alone (201, or the sandbox's 404 or 405), never 412.
"""

from __future__ import annotations

import json
import secrets

from mixbatch_conformance.checks._shared.requests import new_member
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import answers_in_every_form

__all__: list[str] = []

JSON_TYPE = ("Content-Type", "application/json")


def _document(ctx: Context, mark: str) -> bytes:
    member = dict(ctx.target.sandbox_member or {})
    for key, value in member.items():
        if isinstance(value, str):
            member[key] = f"{value} {mark}"
            break
    return json.dumps(member).encode()


def _modes(ctx: Context) -> list[tuple[tuple[tuple[str, str], ...], str, str]]:
    modes: list[tuple[tuple[tuple[str, str], ...], str, str]] = [((), "continue", "MB-PROC-9")]
    if ctx.target.claims("error-policy"):
        modes.append(((("Prefer", "batch-on-error=stop"),), "stop", "MB-PROC-6"))
    if ctx.target.claims("atomic"):
        modes.append(((("Batch-Mode", "atomic"),), "atomic", "MB-PROC-8"))
    return modes


@checker(
    "conditional-parts-after-writes",
    ("MB-PROC-9", "MB-PROC-6", "MB-PROC-8"),
    "A PUT part whose If-Match names the tag a member had before an earlier PUT part of the same batch is answered 412, and a GET whose If-None-Match names it 200, in every declared form, plain, under batch-on-error=stop and atomic; a PUT with If-None-Match: * after a DELETE part of the member gets what a PUT to an absent member gets alone.",
    profile="conditional",
    state=State.WRITES_IN_SANDBOX,
)
def conditional_parts_after_writes(ctx: Context, judge: Judge) -> None:
    path, doc = new_member(ctx, judge)
    before = ctx.alone(judge, SubRequest("GET", path))
    old = before.get("ETag")
    if before.status != 200 or not old:
        judge.setup_error(f"GET {path} alone answered {before.status} with ETag {old!r}")
    other = _document(ctx, secrets.token_hex(4))
    changed = ctx.alone(judge, SubRequest("PUT", path, (JSON_TYPE,), other))
    now = ctx.alone(judge, SubRequest("GET", path))
    if changed.status not in (200, 204) or not now.get("ETag"):
        judge.setup_error(f"PUT {path} alone answered {changed.status}")
    if now.get("ETag") == old:
        judge.not_applicable(f"{path} kept its ETag {old} across a write of another document")
    # Back to the first document, whose tag is `old` again where tags follow the content.
    ctx.alone(judge, SubRequest("PUT", path, (JSON_TYPE,), doc))
    for fields, name, requirement in _modes(ctx):
        subs = [
            SubRequest("PUT", path, (JSON_TYPE,), other),
            SubRequest("PUT", path, (JSON_TYPE, ("If-Match", old)), doc),
            SubRequest("GET", path, (("If-None-Match", old),)),
            SubRequest("GET", path),
        ]
        for media, _, entries in answers_in_every_form(ctx, judge, subs, fields):
            # MB-PROC-9 (RFC 9110 §13.1.1): once part 0 ran, `old` is no current tag of the
            # member, so If-Match is false and the PUT is 412; MB-PROC-2 runs part 1 after
            # part 0 finished.
            judge.expect(
                f"{name}, {media}: part 1 (If-Match: the tag before part 0)",
                entries[1].status,
                {412},
                "MB-PROC-9",
            )
            if name == "continue":
                # RFC 9110 §13.1.2: If-None-Match with a tag the member no longer has is true.
                judge.expect(
                    f"{name}, {media}: part 2 (If-None-Match: the tag before part 0)",
                    entries[2].status,
                    {200},
                    "MB-PROC-9",
                )
            elif entries[1].status == 412:
                # MB-PROC-6 / MB-PROC-8: the parts after the first failing part are skipped.
                judge.expect(
                    f"{name}, {media}: parts 2 and 3 after the 412",
                    (entries[2].outcome, entries[3].outcome),
                    {("skipped", "skipped")},
                    requirement,
                )
        # Back to the first document for the next mode.
        ctx.alone(judge, SubRequest("PUT", path, (JSON_TYPE,), doc))
    absent = f"{path.rsplit('/', 1)[0]}/mb-absent-{secrets.token_hex(6)}"
    created = ctx.alone(judge, SubRequest("PUT", absent, (JSON_TYPE,), doc))
    if created.status in (200, 201, 204):
        ctx.alone(judge, SubRequest("DELETE", absent))
    subs = [
        SubRequest("DELETE", path),
        SubRequest("PUT", path, (JSON_TYPE, ("If-None-Match", "*")), doc),
    ]
    env = expect_processed(ctx, judge, ctx.batch(judge, subs), [s.content_id for s in subs])
    judge.require(f"part 0 (DELETE {path}) status", part_status(env, 0), {200, 204}, "MB-TEST-3")
    # RFC 9110 §13.1.2: If-None-Match: * is false only "if the origin server has a current
    # representation for the target resource"; part 0 removed it, so the PUT runs as a PUT to
    # a member that does not exist does alone (MB-PROC-9).
    judge.expect(
        "part 1 (PUT with If-None-Match: * after the DELETE) status",
        part_status(env, 1),
        {created.status},
        "MB-PROC-9",
    )
    if part_status(env, 1) in (200, 201, 204):
        ctx.alone(judge, SubRequest("DELETE", path))
